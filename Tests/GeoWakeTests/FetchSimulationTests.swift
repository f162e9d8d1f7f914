import BackgroundRuntime
import SyntheticData
import Testing

/// 2024-05-06 00:00 local (UTC+2), a Monday.
private let monday = 1_714_946_400.0
private let offset = 7_200
private let day = 86_400.0

private func simulation(
  _ user: SyntheticUsage, policy: FetchPolicy = .minimum, modes: Set<BackgroundMode> = [.fetch],
  handler: HandlerBehaviour = HandlerBehaviour(work: 3), conditions: DeviceConditions = DeviceConditions(), seed: UInt64 = 1,
  historyDays: Int = 14, days: Int = 14
) -> FetchSimulation {
  let start = monday - Double(historyDays) * day
  let launches = user.launches(from: start, days: historyDays + days, utcOffset: offset, seed: seed)
  return FetchSimulation(
    configuration: AppConfiguration(backgroundModes: modes, fetchPolicy: policy), handler: handler, seed: seed, launches: launches,
    window: monday..<(monday + Double(days) * day),
    feed: try! .daytimeNews(from: start, days: historyDays + days + 1, utcOffset: offset), conditions: conditions)
}

@Suite("Local time")
struct LocalTimeTests {
  @Test("weekday and second of day on an offset clock")
  func reading() {
    let t = LocalTime(monday + 7 * 3_600 + 30, utcOffset: offset)
    #expect(t.weekday == 1)
    #expect(!t.isWeekend)
    #expect(t.secondOfDay == 7 * 3_600 + 30)
    #expect(LocalTime.time(day: t.day, secondOfDay: t.secondOfDay, utcOffset: offset) == monday + 7 * 3_600 + 30)
    // Sunday 23:30 local is still Sunday although it is Sunday 21:30 UTC.
    let sunday = LocalTime(monday - 1_800, utcOffset: offset)
    #expect(sunday.weekday == 0 && sunday.isWeekend)
    // Before 1970 the day rounds down.
    #expect(LocalTime(-1, utcOffset: 0).day == -1)
    #expect(LocalTime(-1, utcOffset: 0).weekday == 3)
  }
}

@Suite("Launch habits")
struct LaunchHabitTests {
  @Test("weekday and weekend habits are learned apart; a cold start has none")
  func weekdayWeekend() {
    var history = LaunchHistory(profile: .ios)
    let launches = SyntheticUsage.morning.launches(from: monday - 14 * day, days: 14, utcOffset: offset, seed: 3)
    let firstDay = LocalTime(monday - 14 * day, utcOffset: offset).day
    #expect(history.habits(forDay: firstDay + 1).isEmpty)
    for l in launches { history.observe(launchAt: l.time, utcOffset: l.utcOffset) }
    let today = LocalTime(monday, utcOffset: offset).day
    let weekday = history.habits(forDay: today)
    #expect(weekday.count == 1)
    #expect(weekday[0].dayKind == .weekday)
    #expect(abs(weekday[0].median - (7 * 3_600 + 45 * 60)) <= 6 * 60)
    #expect(weekday[0].earlyEdge >= 7 * 3_600 + 39 * 60)
    #expect(weekday[0].support > 0.9)
    let saturday = history.habits(forDay: today + 5)
    #expect(saturday.count == 1)
    #expect(saturday[0].dayKind == .weekend)
    #expect(abs(saturday[0].median - (9 * 3_600 + 15 * 60)) <= 12 * 60)
  }

  @Test("a launch seen once in a fortnight is no habit")
  func rareLaunchIsNoHabit() {
    var history = LaunchHistory(profile: .ios)
    for d in 0..<14 {
      history.observe(launchAt: monday - Double(14 - d) * day + 8 * 3_600, utcOffset: offset)
      if d == 11 { history.observe(launchAt: monday - 3 * day + 15 * 3_600, utcOffset: offset) }  // a Friday
    }
    let habits = history.habits(forDay: LocalTime(monday, utcOffset: offset).day)
    #expect(habits.count == 1)
    #expect(habits[0].median == 8 * 3_600)
  }
}

@Suite("Device conditions and staleness")
struct FetchMeasureTests {
  @Test("a chain of overlapping conditions blocks until its end")
  func blockingChain() {
    let c = DeviceConditions([
      .init(start: 100, end: 200, condition: .lowPowerMode), .init(start: 150, end: 300, condition: .offline),
      .init(start: 400, end: 500, condition: .backgroundRefreshOff),
    ])
    #expect(c.blocking(at: 50) == nil)
    #expect(c.blocking(at: 120)! == (.lowPowerMode, 300))
    #expect(c.blocking(at: 250)! == (.offline, 300))
    #expect(c.blocking(at: 300) == nil)
    #expect(c.blocking(at: 400)! == (.backgroundRefreshOff, 500))
  }

  @Test("nearest-rank percentiles")
  func percentiles() {
    let s = StalenessSummary([0, 0, 0, 0, 0, 0, 0, 0, 60, 600])
    #expect(s.fresh == 8)
    #expect(s.freshShare == 0.8)
    #expect(s.p50 == 0)
    #expect(s.p90 == 60)
    #expect(s.p99 == 600)
    #expect(s.maximum == 600)
  }

  @Test("the feed counts what is waiting")
  func feed() throws {
    let feed = try ContentFeed.daytimeNews(from: monday, days: 1, utcOffset: offset)
    #expect(feed.publications.count == 33)  // 06:00 … 22:00 every 30 min
    let (count, oldest) = feed.unfetched(after: monday + 6 * 3_600, through: monday + 7 * 3_600)
    #expect(count == 2)
    #expect(oldest == monday + 6.5 * 3_600)
  }
}

@Suite("BGTaskScheduler requests")
struct BackgroundTaskSchedulerTests {
  let config = AppConfiguration(backgroundModes: [.fetch, .processing], permittedTaskIdentifiers: ["refresh", "other", "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"])

  @Test func oneRefreshTenProcessingAndResubmittingReplaces() throws {
    var s = BackgroundTaskScheduler(configuration: config)
    try s.submit(TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBeginDate: 100))
    try s.submit(TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBeginDate: 200))
    #expect(s.pending == [TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBeginDate: 200)])
    #expect(throws: TaskSchedulerError.tooManyPendingTaskRequests(appRefresh: true, limit: 1)) {
      try s.submit(TaskRequest(identifier: "other", kind: .appRefresh))
    }
    for k in 0..<10 { try s.submit(TaskRequest(identifier: "p\(k)", kind: .processing(requiresNetwork: false, requiresExternalPower: true))) }
    #expect(throws: TaskSchedulerError.tooManyPendingTaskRequests(appRefresh: false, limit: 10)) {
      try s.submit(TaskRequest(identifier: "p10", kind: .processing(requiresNetwork: true, requiresExternalPower: false)))
    }
    try s.submit(TaskRequest(identifier: "p3", kind: .processing(requiresNetwork: true, requiresExternalPower: false)))  // replaces
    #expect(s.pending.count == 11)
    #expect(s.take(identifier: "refresh")?.earliestBeginDate == 200)
    s.cancel(identifier: "p0")
    #expect(s.pending.count == 9 && s.appRefresh == nil)
    s.cancelAll()
    #expect(s.pending.isEmpty)
  }

  @Test func refusals() {
    var s = BackgroundTaskScheduler(configuration: AppConfiguration(backgroundModes: [.fetch], permittedTaskIdentifiers: ["refresh", "work"]))
    #expect(throws: TaskSchedulerError.notPermitted(identifier: "nope", missing: "not in BGTaskSchedulerPermittedIdentifiers")) {
      try s.submit(TaskRequest(identifier: "nope", kind: .appRefresh))
    }
    #expect(throws: TaskSchedulerError.notPermitted(identifier: "work", missing: "UIBackgroundModes does not declare \"processing\"")) {
      try s.submit(TaskRequest(identifier: "work", kind: .processing(requiresNetwork: false, requiresExternalPower: false)))
    }
    #expect(throws: TaskSchedulerError.unavailable) { try s.submit(TaskRequest(identifier: "refresh", kind: .appRefresh), backgroundRefreshEnabled: false) }
    #expect(s.pending.isEmpty)
  }

  @Test("app-refresh requests: never before earliestBeginDate, one fetch per request")
  func refreshTasksDriveFetches() {
    for after: Double in [0, 3_600, 14_400] {
      var sim = simulation(.hourly)
      sim.configuration = AppConfiguration(
        backgroundModes: [.fetch], fetchPolicy: .never, permittedTaskIdentifiers: ["refresh"],
        appRefresh: AppRefreshUse(identifier: "refresh", earliestBeginAfter: after))
      let run = sim.run(.system)
      #expect(run.summary.fetches > 0)
      var due: Double?
      for e in run.events {
        if e.kind == .taskSubmitted, case .submitted(let r) = e.facts { due = r.earliestBeginDate }
        if e.kind == .fetchRequested {
          #expect(due != nil && e.time >= due!, "fetch at \(e.time) before \(String(describing: due))")
          due = nil  // consumed: the next fetch needs a new request
        }
      }
      if after == 0 { #expect(run.summary.staleness.freshShare >= 0.9) }
    }
    var unpermitted = simulation(.hourly)
    unpermitted.configuration = AppConfiguration(backgroundModes: [.fetch], appRefresh: AppRefreshUse(identifier: "refresh", earliestBeginAfter: 0))
    let run = unpermitted.run(.system)
    #expect(run.summary.fetches == 0)
    #expect(run.events.filter { $0.kind == .fetchUnavailable }.map(\.detail) == [
      "BGTaskScheduler error notPermitted for \"refresh\": not in BGTaskSchedulerPermittedIdentifiers",
    ])
  }
}

@Suite("Fetch simulation")
struct FetchSimulationTests {
  @Test("the morning and hourly checkers find fresh content at nearly every launch")
  func regularCheckers() {
    for seed in UInt64(1)...3 {
      for user in [SyntheticUsage.morning, .hourly] {
        let sim = simulation(user, seed: seed)
        let scheduler = sim.run(.system).summary
        let fixed15 = sim.run(.fixed(interval: 900)).summary
        let fixed60 = sim.run(.fixed(interval: 3_600)).summary
        #expect(scheduler.staleness.launches > 0)
        #expect(scheduler.staleness.freshShare >= 0.95, "\(user) seed \(seed)")
        #expect(scheduler.staleness.p90 <= 600, "\(user) seed \(seed)")
        // A launch a day costs a few fetches; a launch an hour, about two an hour.
        #expect(3 * scheduler.fetches <= (user == .morning ? fixed60.fetches : 2 * fixed15.fetches), "\(user) seed \(seed)")
      }
    }
  }

  /// Users of every archetype (other seeds than the examples in the docs): over the population the
  /// scheduler is fresher than an hourly timer at a fraction of its fetches; users with set
  /// habits (commuter, evening, morning, traveller) mostly meet the per-user bar.
  @Test("a population of generated users", arguments: [UInt64(101), 202])
  func population(seed: UInt64) {
    var users: [FetchPopulation.User] = []
    for (k, kind) in (SyntheticUsage.populationKinds + SyntheticUsage.populationKinds).enumerated() {
      let start = monday - 14 * day
      let launches = kind.launches(from: start, days: 28, utcOffset: offset, seed: seed &+ UInt64(k))
      let sim = FetchSimulation(
        configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum), handler: HandlerBehaviour(work: 3), seed: seed,
        launches: launches, window: monday..<(monday + 14 * day), feed: try! .daytimeNews(from: start, days: 29, utcOffset: offset))
      users.append(FetchPopulation.User(name: "\(kind)-\(k)", comparison: FetchComparison(sim)))
    }
    let population = FetchPopulation(users: users)
    let checks = Dictionary(uniqueKeysWithValues: population.checks.map { ($0.name, $0) })
    #expect(checks["median fresh share ≥ fixed 1 h's"]?.passed == true, "\(checks["median fresh share ≥ fixed 1 h's"]?.measured ?? "")")
    #expect(checks["median fetches per day 2–60 for daily users"]?.passed == true)
    let settled = users.filter { ["commuter", "evening", "morning", "traveller"].contains($0.name.split(separator: "-")[0]) }
    let meeting = settled.filter { $0.scheduler.staleness.p90 <= $0.hourly.staleness.p90 && 3 * $0.scheduler.fetches <= $0.hourly.fetches }
    #expect(meeting.count * 3 >= settled.count * 2, "\(meeting.count) of \(settled.count)")
    // Never more fetches than an hourly timer, for anyone.
    #expect(users.allSatisfy { $0.scheduler.fetches <= $0.hourly.fetches })
  }

  /// A clock that springs forward an hour inside the simulated days: the user keeps opening the
  /// app at the same times on the clock, an hour earlier in UTC. Habits are learned in the time
  /// each launch was written with, so the fetches move with the clock: every weekday launch after
  /// the change has a fetch within the hour before it, and the launches are as fresh as the same
  /// user's on a clock that never changed (a scheduler reading times of day in UTC would fetch an
  /// hour after them for days).
  @Test("a daylight-saving change inside the window", arguments: UInt64(1)...4)
  func daylightSavingChange(seed: UInt64) {
    let start = monday - 14 * day
    let change = monday + 4 * day
    let feed = try! ContentFeed.daytimeNews(from: start, days: 29, utcOffset: offset)
    func run(_ launches: [UserLaunch]) -> FetchSimulation.Run {
      FetchSimulation(
        configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum), handler: HandlerBehaviour(work: 3), seed: seed,
        launches: launches, window: monday..<(monday + 14 * day), feed: feed
      ).run(.system)
    }
    // The same clock times: local midnight of the first day is `start` on UTC+2, an hour later on UTC+1.
    let steady = SyntheticUsage.morning.launches(from: start, days: 28, utcOffset: offset, seed: seed)
    let changing = SyntheticUsage.morning.launches(from: start + 3_600, days: 28, utcOffset: 3_600, seed: seed).map { launch in
      launch.time < change ? launch : UserLaunch(time: launch.time - 3_600, duration: launch.duration, utcOffset: offset)
    }
    let changed = run(changing)
    #expect(changed.summary.staleness.freshShare >= run(steady).summary.staleness.freshShare, "seed \(seed)")
    let fetches = changed.events.filter { $0.kind == .fetchRequested }.map(\.time)
    for launch in changing where launch.time >= change && launch.time < monday + 14 * day && !LocalTime(launch.time, utcOffset: offset).isWeekend {
      #expect(fetches.contains { $0 < launch.time && $0 > launch.time - 3_600 }, "seed \(seed), launch \(launch.time)")
    }
  }

  @Test("no fetch for an app left unopened for days, until the user opens it")
  func dormant() {
    let start = monday - 14 * day
    // Opened every morning for 17 days, then once 9 days later.
    var launches = SyntheticUsage.morning.launches(from: start, days: 17, utcOffset: offset, seed: 4)
    launches.append(UserLaunch(time: monday + 12 * day + 8 * 3_600, duration: 120, utcOffset: offset))
    let sim = FetchSimulation(
      configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum), handler: HandlerBehaviour(work: 3), seed: 1,
      launches: launches, window: monday..<(monday + 14 * day), feed: try! .daytimeNews(from: start, days: 29, utcOffset: offset))
    let run = sim.run(.system)
    let lastBeforeGap = launches[launches.count - 2].time
    let fetches = run.events.filter { $0.kind == .fetchRequested }.map(\.time)
    #expect(fetches.contains { $0 > lastBeforeGap })
    #expect(!fetches.contains { $0 > lastBeforeGap + 7 * day && $0 < launches[launches.count - 1].time })
    #expect(run.events.contains { $0.kind == .fetchSkipped && $0.detail.contains("last opened") })
  }

  @Test("policy never, or no fetch background mode: no fetch, and the timeline says why")
  func never() {
    for (policy, modes) in [(FetchPolicy.never, Set<BackgroundMode>([.fetch])), (.minimum, []), (.custom(interval: 3_600), [.location])] {
      let run = simulation(.hourly, policy: policy, modes: modes).run(.system)
      #expect(run.summary.fetches == 0)
      #expect(run.events.first?.kind == .fetchUnavailable)
      #expect(run.events.first?.detail.contains(modes.contains(.fetch) ? "never" : "UIBackgroundModes") == true)
    }
  }

  @Test("a custom interval is never violated", arguments: [1_200.0, 2_700, 7_200, 21_600])
  func customInterval(_ interval: Double) {
    for seed in UInt64(1)...4 {
      for user in SyntheticUsage.allCases {
        let run = simulation(user, policy: .custom(interval: interval), seed: seed).run(.system)
        let starts = run.events.filter { $0.kind == .fetchRequested }.map(\.time)
        #expect(!starts.isEmpty)
        for (a, b) in zip(starts, starts.dropFirst()) { #expect(b - a >= interval) }
      }
    }
  }

  @Test("no fetch in Low Power Mode, with refresh off or offline")
  func conditions() {
    for condition in DeviceCondition.allCases {
      let blocked = DeviceConditions([.init(start: monday, end: monday + 14 * day, condition: condition)])
      let run = simulation(.morning, conditions: blocked).run(.system)
      #expect(run.summary.fetches == 0)
      #expect(run.summary.skipped > 0)
      #expect(run.events.contains { $0.kind == .fetchSkipped && $0.detail.contains(condition.sentence) })
      for baseline in [FetchStrategy.fixed(interval: 900), .oracle(lead: 60)] {
        #expect(simulation(.morning, conditions: blocked).run(baseline).summary.fetches == 0)
      }
    }
    // A condition that ends inside a habit's span defers the fetch to its end.
    let morning = simulation(.morning)
    let first = morning.run(.system).events.first { $0.kind == .fetchRequested }!.time
    let deferred = simulation(.morning, conditions: DeviceConditions([.init(start: first - 60, end: first + 120, condition: .lowPowerMode)]))
    let moved = deferred.run(.system).events.first { $0.kind == .fetchRequested }!
    #expect(moved.time == first + 120)
    #expect(moved.detail.contains("Low Power Mode went off"))
  }

  @Test("a handler that overruns is terminated and gets fewer fetches after")
  func overrun() {
    let good = simulation(.hourly).run(.system)
    let slow = simulation(.hourly, handler: HandlerBehaviour(work: 45)).run(.system)
    #expect(slow.summary.outcomes[.terminated, default: 0] > 0)
    #expect(slow.summary.terminations == slow.summary.outcomes[.terminated])
    #expect(slow.events.contains { $0.kind == .fetchTerminated })
    #expect(slow.summary.fetches < good.summary.fetches / 2)
    #expect(slow.events.contains { $0.kind == .fetchSkipped && $0.detail.contains("track record") })
    // Honest NoData is punished less than failure.
    let failing = simulation(.hourly, handler: HandlerBehaviour(work: 3, failureRate: 1)).run(.system)
    #expect(failing.summary.outcomes[.failed, default: 0] == failing.summary.fetches)
    #expect(failing.summary.fetches < good.summary.fetches)
    var noData = FetchTrackRecord(profile: .ios)
    var failed = FetchTrackRecord(profile: .ios)
    for k in 0..<3 {
      noData.record(.noData, seconds: 2, at: Double(k) * 3_600)
      failed.record(.failed, seconds: 2, at: Double(k) * 3_600)
    }
    #expect(noData.score(at: 3 * 3_600) > failed.score(at: 3 * 3_600))
    #expect(failed.score(at: 30 * day) > 0.99)  // and both recover with time
  }

  @Test("after a force-quit no fetch reaches the app until the user opens it")
  func forceQuit() {
    var sim = simulation(.morning)
    let firstFetch = sim.run(.system).events.first { $0.kind == .fetchRequested }!.time
    sim.forceQuits = [firstFetch - 3_600]
    let run = sim.run(.system)
    let lost = run.events.first { $0.kind == .fetchLost }!
    #expect(lost.time == firstFetch)
    #expect(lost.detail.contains("force-quit"))
    #expect(run.events.contains { $0.kind == .fetchCompleted && $0.time > firstFetch })  // after the user opened it again
    // Killed while fetching: the fetch ends as lost, the next ones run.
    var during = simulation(.morning, handler: HandlerBehaviour(work: 20))
    during.forceQuits = [firstFetch + 5]
    let killed = during.run(.system)
    #expect(killed.events.contains { $0.kind == .fetchLost && $0.time == firstFetch + 5 && $0.detail.contains("while the fetch was running") })
    #expect(killed.events.contains { $0.kind == .fetchCompleted && $0.time > firstFetch + 5 })
  }

  @Test("same seed, same timeline; another seed, another one")
  func deterministic() {
    let a = simulation(.hourly, handler: HandlerBehaviour(work: 3, variation: 0.5, failureRate: 0.2), seed: 9)
    let b = simulation(.hourly, handler: HandlerBehaviour(work: 3, variation: 0.5, failureRate: 0.2), seed: 9)
    let c = simulation(.hourly, handler: HandlerBehaviour(work: 3, variation: 0.5, failureRate: 0.2), seed: 10)
    #expect(a.run(.system).events == b.run(.system).events)
    #expect(a.run(.system).runtimeEvents == b.run(.system).runtimeEvents)
    #expect(a.run(.system).events != c.run(.system).events)
  }

  @Test("property: staleness is never negative and each fetch ends once", arguments: UInt64(1)...6)
  func invariants(_ seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    let work = random.uniform(0...60)
    var sim = simulation(
      seed % 2 == 0 ? .hourly : .morning, policy: .custom(interval: random.uniform(900...10_000).rounded()),
      handler: HandlerBehaviour(work: work, variation: 0.3, failureRate: random.uniform(0...0.5)), seed: seed,
      historyDays: Int(random.uniform(0...14)), days: 7)
    sim.forceQuits = (0..<3).map { _ in monday + random.uniform(0...(7 * day)) }
    for strategy in [FetchStrategy.system, .fixed(interval: 1_800), .oracle(lead: 60)] {
      let run = sim.run(strategy)
      #expect(run.events.allSatisfy { ($0.staleness ?? 0) >= 0 })
      let ends = run.events.filter { $0.outcome != nil || $0.kind == .fetchLost }.count
      #expect(ends == run.summary.fetches)
      #expect(zip(run.events, run.events.dropFirst()).allSatisfy { $0.time <= $1.time })
    }
  }
}

@Suite struct ContentFeedScheduleTests {
  @Test(arguments: [
    (0.0, 1, 0.0, 6, 22, "content feed: every is 0.0: expected seconds > 0"),
    (.nan, 1, 1_800, 6, 22, "content feed: start is nan: expected a finite time"),
    (0, -1, 1_800, 6, 22, "content feed: days is -1: expected a count ≥ 0"),
    (0, 1, 1_800, 22, 6, "content feed: firstHour, lastHour is 22, 6: expected hours in 0...24, first ≤ last"),
  ] as [(Double, Int, Double, Int, Int, String)])
  func badParametersAreThrownNotTrapped(
    start: Double, days: Int, every: Double, firstHour: Int, lastHour: Int, expected: String
  ) {
    do {
      _ = try ContentFeed.daytimeNews(
        from: start, days: days, utcOffset: 0, every: every, firstHour: firstHour, lastHour: lastHour)
      Issue.record("accepted \(expected)")
    } catch {
      #expect(error.description == expected)
    }
  }
}
