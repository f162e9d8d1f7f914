import BackgroundRuntime
import Foundation
import SyntheticData
import Testing

/// 2024-05-06 00:00 local (UTC+2), a Monday.
private let monday = 1_714_946_400.0
private let offset = 7_200
private let day = 86_400.0

/// A user of `kind` drawn from `seed`: 14 days of history, then 14 simulated.
private func comparison(_ kind: SyntheticUsage, seed: UInt64) -> FetchComparison {
  let start = monday - 14 * day
  let sim = FetchSimulation(
    configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum), handler: HandlerBehaviour(work: 3), seed: seed,
    launches: kind.launches(from: start, days: 28, utcOffset: offset, seed: seed), window: monday..<(monday + 14 * day),
    feed: try! .daytimeNews(from: start, days: 29, utcOffset: offset))
  return FetchComparison(sim)
}

/// A history of `kind`'s launches over the 14 days before `monday`.
private func history(_ kind: SyntheticUsage, seed: UInt64) -> LaunchHistory {
  var history = LaunchHistory(profile: .ios)
  for l in kind.launches(from: monday - 14 * day, days: 14, utcOffset: offset, seed: seed) {
    history.observe(launchAt: l.time, utcOffset: l.utcOffset)
  }
  return history
}

private let today = LocalTime(monday, utcOffset: offset).day

/// Whether the scheduler earns its fetches: its p90 staleness against a blind timer making as
/// many fetches evenly (docs/platform-rules.md, background fetch).
@Suite("Fetch: the fetches earned")
struct FetchFrontierTests {
  /// Seeds no rule was tuned on: every archetype, twice per seed.
  static let unseen: [UInt64] = [9_001, 9_002, 9_003, 9_004, 9_005, 9_006]

  /// Over a population of generated users the scheduler's p90 staleness is no worse than an even
  /// timer's with as many fetches for at least 98 % of the users (a launch earlier than any
  /// before it, after a night without fetches, can fail one), and for every commuter, evening
  /// reader, morning checker and user who opens the app at no set time.
  @Test("a population of generated users against even timers")
  func population() {
    var compared = 0
    var earning = 0
    for seed in Self.unseen {
      for (k, kind) in (SyntheticUsage.populationKinds + SyntheticUsage.populationKinds).enumerated() {
        let c = comparison(kind, seed: seed &+ UInt64(k))
        guard let earns = c.earnsItsFetches else { continue }
        compared += 1
        if earns { earning += 1 }
        if kind == .irregular || kind == .evening || kind == .commuter || kind == .morning {
          #expect(earns, "\(kind) seed \(seed &+ UInt64(k)): \(c.scheduler.summary.staleness.p90) s vs \(c.evenTimer?.p90 ?? 0) s")
        }
      }
    }
    #expect(compared >= 80)
    #expect(Double(earning) >= 0.98 * Double(compared), "\(earning) of \(compared)")
  }

  /// The three users the bar names, on seeds of their own: the even timer is beaten (where there
  /// are launches enough for a p90), by the habitual users by far (at most half its p90).
  @Test("a commuter, an evening reader and an irregular user", arguments: [UInt64(31), 32, 33])
  func threeUsers(seed: UInt64) throws {
    for kind in [SyntheticUsage.commuter, .evening, .irregular] {
      let c = comparison(kind, seed: seed)
      let even = try #require(c.evenTimer)
      let s = c.scheduler.summary
      #expect(c.earnsItsFetches != false, "\(kind): \(s.staleness.p90) s vs \(even.p90) s")
      if kind != .irregular, c.earnsItsFetches != nil { #expect(2 * s.staleness.p90 <= even.p90, "\(kind)") }
      #expect(abs(even.fetches - Double(s.fetches)) <= 0.03 * Double(s.fetches), "the timer makes as many fetches")
    }
  }

  @Test("a habit of one launch a day expects no second; launches at random times do")
  func launchesAfterALaunch() throws {
    var morning = history(.morning, seed: 5)
    let habit = try #require(morning.habits(forDay: today).first)
    #expect(morning.launchesExpected(after: habit.median, in: habit, day: today) == 0)
    // The irregular user's widest window still expects launches after its first one.
    var irregular = history(.irregular, seed: 5)
    let widest = try #require(irregular.habits(forDay: today).max { $0.support < $1.support })
    #expect(irregular.launchesExpected(after: widest.start, in: widest, day: today) >= FetchProfile.ios.repeatLaunchSupport)
    // Fewer expected as the span runs out.
    #expect(irregular.launchesExpected(after: widest.end, in: widest, day: today) == 0)
  }

  @Test("launches the windows failed to foretell: few for habits, many at no set time", arguments: [UInt64(6), 7, 8])
  func launchesOutsideWindows(seed: UInt64) {
    var morning = history(.morning, seed: seed)
    var commuter = history(.commuter, seed: seed)
    var irregular = history(.irregular, seed: seed)
    let support = FetchProfile.ios.habitSupport
    #expect(morning.launchesOutsideWindows(forDay: today) < support)
    #expect(commuter.launchesOutsideWindows(forDay: today) < support)
    #expect(irregular.launchesOutsideWindows(forDay: today) >= support)
    var empty = LaunchHistory(profile: .ios)
    #expect(empty.launchesOutsideWindows(forDay: today) == 0)
  }

  @Test("the day's first launch: its early edge is before nearly all first launches")
  func firstLaunchEdge() throws {
    // The morning user opens the app on weekdays at 07:45 ± 6 min: the edge is below the
    // earliest of the few seen, by little.
    let edge = try #require(history(.morning, seed: 9).firstLaunchEdge(forDay: today))
    let weekdays = SyntheticUsage.morning.launches(from: monday - 14 * day, days: 14, utcOffset: offset, seed: 9)
      .map { LocalTime($0.time, utcOffset: offset) }.filter { !$0.isWeekend }
    let earliest = try #require(weekdays.map(\.secondOfDay).min())
    #expect(edge <= earliest && edge >= earliest - 10 * 60, "\(edge) vs \(earliest)")
    // An irregular user's first launch comes at any hour from 09:00: the edge is near it.
    let irregular = try #require(history(.irregular, seed: 9).firstLaunchEdge(forDay: today))
    #expect(irregular >= 8 * 3_600 && irregular <= 11 * 3_600)
    #expect(LaunchHistory(profile: .ios).firstLaunchEdge(forDay: today) == nil)
  }

  /// Nothing fetched since the night before: the day's first fetch comes no later than
  /// launchLead before the early edge of the day's first launches, whatever the windows say.
  @Test("the first fetch of the day is before the day's first launch", arguments: [UInt64(1), 2, 3, 4])
  func firstFetchOfTheDay(seed: UInt64) throws {
    let profile = FetchProfile.ios
    for kind in [SyntheticUsage.irregular, .weekendHeavy, .evening, .commuter, .shiftWorker] {
      for dayOffset in [0, 5] {
        let planned = today + dayOffset
        var scheduler = FetchScheduler(configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum))
        let midnight = LocalTime.time(day: planned, secondOfDay: 0, utcOffset: offset)
        for l in kind.launches(from: monday - 14 * day, days: 14 + dayOffset, utcOffset: offset, seed: seed) where l.time < midnight - 3_600 {
          scheduler.observeLaunch(at: l.time, utcOffset: l.utcOffset)
        }
        scheduler.fetchStarted(at: midnight - 3_600)
        scheduler.fetchEnded(startedAt: midnight - 3_600, at: midnight - 3_590, outcome: .newData)
        // (None when no day of the kind had a launch.)
        guard let edge = scheduler.history.firstLaunchEdge(forDay: planned) else { continue }
        let plan = scheduler.plan(after: midnight, conditions: DeviceConditions())
        let first = try #require(plan.decisions.first { $0.action == .fetch }, "\(kind)")
        #expect(first.time <= midnight + max(0, edge - profile.launchLead) + 1e-6, "\(kind) seed \(seed) day +\(dayOffset): \(first.detail)")
      }
    }
  }

  /// Until the user opens the app on a day, the span in which the day's first launch comes is
  /// served every quiet spacing from its early edge: no launch in it finds content older than
  /// that; a habit of the same minute every morning gets its one fetch; once the app is opened,
  /// the span is done.
  @Test("the span of the day's first launch is served until the user opens the app")
  func firstLaunchSpan() throws {
    let quiet = FetchProfile.ios.quietWindowInterval
    let saturday = today + 5
    let midnight = LocalTime.time(day: saturday, secondOfDay: 0, utcOffset: offset)
    var wide = 0
    for seed in UInt64(1)...6 {
      for kind in [SyntheticUsage.weekendHeavy, .morning] {
        var scheduler = FetchScheduler(configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum))
        for l in kind.launches(from: monday - 14 * day, days: 19, utcOffset: offset, seed: seed) where l.time < midnight - 3_600 {
          scheduler.observeLaunch(at: l.time, utcOffset: l.utcOffset)
        }
        let span = try #require(scheduler.history.firstLaunchSpan(forDay: saturday))
        #expect(span.lowerBound == scheduler.history.firstLaunchEdge(forDay: saturday))
        if kind == .morning { #expect(span.upperBound - span.lowerBound < quiet, "the same minute every weekend morning") }
        let closes = midnight + span.upperBound
        var fetches: [FetchDecision] = []
        var t = midnight
        while let f = scheduler.plan(after: t, conditions: DeviceConditions()).decisions.last, f.action == .fetch, f.time <= closes {
          fetches.append(f)
          scheduler.fetchStarted(at: f.time)
          scheduler.fetchEnded(startedAt: f.time, at: f.time + 3, outcome: .newData)
          t = f.time + 3
        }
        let first = try #require(fetches.first, "\(kind)")
        #expect(first.time <= midnight + max(0, span.lowerBound - FetchProfile.ios.launchLead) + 1e-6)
        // No launch in the span finds content older than the quiet spacing.
        for (a, b) in zip(fetches, fetches.dropFirst()) { #expect(b.time - a.time <= quiet + 1e-6, "\(kind) seed \(seed): \(b.detail)") }
        #expect(closes - (fetches.last?.time ?? 0) <= quiet + 1e-6)
        let spanFetches = fetches.filter { if case .firstLaunchSpan = $0.basis { return true } else { return false } }
        if kind == .morning { #expect(spanFetches.isEmpty) }
        if span.upperBound - span.lowerBound > quiet { wide += 1 }
        // Opened: no more of the span's fetches that day.
        scheduler.observeLaunch(at: first.time + 60, utcOffset: offset)
        let after = scheduler.plan(after: first.time + 60, conditions: DeviceConditions()).decisions
        #expect(!after.contains { d in
          if case .firstLaunchSpan = d.basis { return d.time < midnight + day } else { return false }
        })
      }
    }
    // Weekend-heavy users' first weekend launches spread over more than the spacing on most seeds.
    #expect(wide >= 3, "\(wide) of 6 weekend-heavy spans wider than the quiet spacing")
  }

  /// A user who opens the app in the morning, or else first in the evening: the span is the
  /// morning's, not the hours between (the evening has its window).
  @Test("the span of the day's first launch stops where the first launches stop")
  func firstLaunchSpanStopsAtAGap() throws {
    var history = LaunchHistory(profile: .ios)
    // Weekdays: a launch at 07:30 on most days, on the others the day's first is at 19:00.
    for d in 0..<14 where !LocalTime.isWeekend(day: today - 14 + d) {
      let midnight = LocalTime.time(day: today - 14 + d, secondOfDay: 0, utcOffset: offset)
      if d % 3 != 2 { history.observe(launchAt: midnight + 7.5 * 3_600 + Double(d) * 60, utcOffset: offset) }
      history.observe(launchAt: midnight + 19 * 3_600 + Double(d) * 60, utcOffset: offset)
    }
    let span = try #require(history.firstLaunchSpan(forDay: today))
    #expect(span.upperBound < 9 * 3_600, "\(span)")
    #expect(span.lowerBound <= 7.5 * 3_600)
  }

  /// The even timer fetches only where the system would: not for an app unopened for days.
  @Test("the even timer waits while the app is dormant")
  func evenTimerAndDormancy() throws {
    // Opened every morning for 16 days, then not until day 12 of the window.
    let start = monday - 14 * day
    var launches = SyntheticUsage.morning.launches(from: start, days: 16, utcOffset: offset, seed: 4)
    let comeback = monday + 12 * day + 8 * 3_600
    launches.append(UserLaunch(time: comeback, duration: 120, utcOffset: offset))
    let sim = FetchSimulation(
      configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum), handler: HandlerBehaviour(work: 3), seed: 1,
      launches: launches, window: monday..<(monday + 14 * day), feed: try! .daytimeNews(from: start, days: 29, utcOffset: offset))
    let lastBefore = try #require(launches.last { $0.time < comeback }).time
    let dormantFrom = lastBefore + 7 * day
    let run = sim.run(.evenly(interval: 3_600, phase: 0))
    let fetches = run.events.filter { $0.kind == .fetchRequested }.map(\.time)
    #expect(!fetches.contains { $0 > dormantFrom && $0 < comeback })
    #expect(fetches.contains { $0 > comeback }, "it runs on from the launch")
    // Saved while it waits and restored, it is the same timer.
    let configuration = sim.configuration(.evenly(interval: 3_600, phase: 0))
    var whole = Device(configuration, start: sim.window.lowerBound, launches: launches)
    var expected: [DeviceEvent] = []
    whole.finish(at: sim.window.upperBound, into: &expected)
    var device = Device(configuration, start: sim.window.lowerBound, launches: launches)
    var events: [DeviceEvent] = []
    device.run(until: (dormantFrom + comeback) / 2, into: &events)
    let saved = try JSONEncoder().encode(device.snapshot())
    device = try Device(restoring: try JSONDecoder().decode(Device.Snapshot.self, from: saved), configuration, launches: launches)
    device.finish(at: sim.window.upperBound, into: &events)
    #expect(events == expected)
    let c = FetchComparison(sim)
    let scheduled = c.scheduler.summary.fetches
    let even = try #require(c.evenTimer)
    #expect(abs(even.fetches - Double(scheduled)) <= 0.05 * Double(scheduled) + 1, "\(even.fetches) vs \(scheduled)")
  }
}
