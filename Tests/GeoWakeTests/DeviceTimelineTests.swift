import BackgroundRuntime
import CellHandoff
import GeoWake
import Geodesy
import Geofencing
import SeededRandom
import SyntheticData
import Testing

@Suite("Device timeline")
struct DeviceTimelineTests {
  static let center = try! Coordinate(latitude: 35.66, longitude: 139.70)

  static func fixes(seed: UInt64) -> [LocationFix] {
    SyntheticTrack(seed: seed, count: 3_000, center: center, halfSide: 3_000, interval: 2).map(\.fix)
  }

  static func regions(seed: UInt64, near fixes: [LocationFix]) -> [Region] {
    SyntheticRegions(seed: seed, count: 15, center: center, radii: 150...600).generate(near: fixes.map(\.coordinate))
  }

  /// Its region events are exactly a region monitor's, in the order the app hears of them (by
  /// delivery, or decision when not told; a region monitor's own order at one instant); each
  /// delivered one wakes the app once (when the app is not already running); the summary counts
  /// what the events show.
  @Test(arguments: [UInt64(1), 2, 3])
  func agreesWithItsParts(seed: UInt64) throws {
    let fixes = Self.fixes(seed: seed)
    let regions = Self.regions(seed: seed, near: fixes)
    let scenario = AppScenario(seed: seed, behaviours: [.location: HandlerBehaviour(work: 4)])
    var timeline = try DeviceTimeline(
      regions: RegionSet(regions), profile: .ios, seed: seed,
      cells: .init(layout: .hexagonal(spacing: 1_500), significantChanges: .ios, description: "urban"),
      app: .init(scenario: scenario))
    var events: [TimelineEvent] = []
    for fix in fixes { timeline.process(fix, into: &events) }
    try timeline.finish(into: &events)

    var monitor = try RegionMonitor(regions: regions, profile: .ios, seed: seed)
    var expected: [RegionEvent] = []
    for fix in fixes { monitor.process(fix, into: &expected) }
    monitor.finish(into: &expected)
    let inOrder = expected.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    let regionEvents = events.compactMap { if case .region(let e) = $0 { e } else { nil } }
    #expect(regionEvents == inOrder)
    #expect(expected.contains { $0.deliveredAt != nil }, "the track should give delivered events")
    #expect(expected.contains { ($0.deliveredAt ?? 0) > $0.decidedAt }, "some events reach the app after the decision")
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
    #expect(expected.allSatisfy { $0.crossedAt <= $0.decidedAt + 1e-9 && $0.decidedAt <= ($0.deliveredAt ?? .infinity) })

    let steps = events.compactMap { if case .app(let r, _) = $0 { r } else { nil } }
    let wakes = steps.filter { $0.kind == .wake || $0.kind == .deliveredWhileRunning }.count
    let significant = events.filter {
      if case .significantChange(let s) = $0 { s.kind == .significantChange && s.trigger != .start } else { false }
    }.count
    #expect(wakes == regionEvents.count { $0.deliveredAt != nil } + significant)
    // Every wake comes after the event that caused it, at its delivery.
    for e in regionEvents where e.deliveredAt != nil {
      let label = "\(e.kind.rawValue) \(e.region.rawValue)"
      #expect(steps.contains { $0.time == e.deliveredAt && ($0.facts == .wake(label: label, budget: 10) || $0.facts == .delivered(label: label, budget: 10)) })
    }

    let summary = timeline.summary
    #expect(summary.monitor.fixCount == fixes.count)
    #expect(summary.activity.totals.values.map(\.enters).reduce(0, +) == regionEvents.count { $0.kind == .enter })
    #expect(summary.cells?.tracker.handoffCount == events.count { if case .cellChange(let c) = $0 { c.from != nil && c.to != nil } else { false } })
    #expect(summary.app?.wakes[.location] ?? 0 > 0)
    #expect(summary.span == fixes[0].time...fixes[fixes.count - 1].time)
  }

  /// A push schedule and launches join the same app: fetch decisions, each request's steps (one
  /// answer per request, each accepted one settled once) and the wakes they cause.
  @Test func pushesAndFetchJoinTheApp() throws {
    let fixes = Self.fixes(seed: 4)
    let configuration = AppConfiguration(backgroundModes: [.fetch, .remoteNotification], fetchPolicy: .minimum)
    let scenario = AppScenario(
      behaviours: [.fetch: HandlerBehaviour(work: 5), .remoteNotification: HandlerBehaviour(work: 4)], configuration: configuration)
    let start = fixes[0].time
    let pushes = (0..<4).map { k in
      ProviderRequest(
        time: start + Double(k) * 900, token: DevicePopulation.token,
        headers: [.init("apns-push-type", "background"), .init("apns-priority", "5"), .init("apns-topic", "com.example.news")],
        payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
    }
    let launches = (0..<6).map { k in UserLaunch(time: start - 86_400 + Double(k) * 3_600, duration: 60) }
      + [UserLaunch(time: start + 3_000, duration: 60)]
    var timeline = try DeviceTimeline(
      regions: RegionSet([]), profile: .server, app: .init(scenario: scenario, pushes: pushes, launches: launches))
    var events: [TimelineEvent] = []
    for fix in fixes { timeline.process(fix, into: &events) }
    try timeline.finish(into: &events)
    let steps = events.compactMap { if case .push(let p, _) = $0 { p } else { nil } }
    let outcomes = PushOutcome.fold(steps)
    #expect(outcomes.count == pushes.count)
    #expect(steps.count { $0.kind == .accepted || $0.kind == .rejected } == pushes.count)
    let settling: Set<PushEvent.Kind> = [.delivered, .delayed, .piggybacked, .dropped, .coalesced, .held]
    #expect(steps.count { settling.contains($0.kind) } == pushes.count)
    #expect(events.contains { if case .fetch = $0 { true } else { false } })
    let reasons = Set(events.compactMap { if case .app(let r, _) = $0, r.kind == .wake { r.reason } else { nil } })
    #expect(reasons.contains(.remoteNotification), "\(outcomes.map(\.kind))")
    #expect(timeline.summary.fetch != nil && timeline.summary.pushes?.requests == pushes.count)
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
  }

  /// On devices with everything at once — location wakes, pushes of every kind, fetches,
  /// sessions, force-quits, offline and Low Power Mode —, events come out in time order as the
  /// fixes stream: what a fix lets out is no later than its time, and never earlier than what
  /// came out before.
  @Test(arguments: UInt64(1)...16)
  func streamsInTimeOrder(seed: UInt64) throws {
    let setup = try DevicePopulation.setup(seed: seed)
    var timeline = try setup.timeline()
    var all: [TimelineEvent] = []
    var batch: [TimelineEvent] = []
    var clock = -Double.infinity
    for fix in setup.fixes {
      batch.removeAll()
      timeline.process(fix, into: &batch)
      clock = max(clock, fix.time)
      #expect(batch.allSatisfy { $0.time <= clock }, "seed \(seed): an event let out before its time")
      all += batch
    }
    try timeline.finish(into: &all)
    #expect(zip(all, all.dropFirst()).allSatisfy { $0.time <= $1.time }, "seed \(seed)")
    if let pushes = setup.app?.pushes {
      let steps = all.compactMap { if case .push(let p, _) = $0 { p } else { nil } }
      #expect(PushOutcome.fold(steps).count == pushes.count)
    }
    #expect(try setup.events() == all, "deterministic")
  }

  /// Moving the clock between fixes (as a server does with its wall clock) lets events out
  /// earlier but never changes them: the same events in the same order as without, on profiles
  /// whose events depend only on the fixes (no dwell, which the clock can reveal).
  @Test(arguments: UInt64(1)...12)
  func theClockBetweenFixesChangesNothing(seed: UInt64) throws {
    let setup = try DevicePopulation.setup(seed: seed)
    guard setup.profile.loiteringDelay == nil else { return }
    var random = SeededGenerator(seed: seed ^ 0xADA)
    var timeline = try setup.timeline()
    var events: [TimelineEvent] = []
    for (k, fix) in setup.fixes.enumerated() {
      timeline.process(fix, into: &events)
      guard k + 1 < setup.fixes.count, random.next(below: 4) == 0 else { continue }
      let next = setup.fixes[k + 1].time
      let count = events.count
      #expect(timeline.advance(to: fix.time + random.unit() * (next - fix.time), into: &events) == nil)
      #expect(events[count...].allSatisfy { $0.time <= next })
    }
    try timeline.finish(into: &events)
    #expect(events == (try setup.events()), "seed \(seed)")
  }

  /// The population covers what the properties above must see.
  @Test func thePopulationCoversEveryInput() throws {
    let setups = try (UInt64(1)...16).map { try DevicePopulation.setup(seed: $0) }
    #expect(setups.count { $0.app?.pushes != nil } >= 4)
    #expect(setups.count { $0.app?.launches != nil } >= 4)
    #expect(setups.count { !($0.app?.scenario.forceQuits.isEmpty ?? true) } >= 2)
    #expect(setups.count { !($0.app?.conditions.intervals.isEmpty ?? true) } >= 2)
    #expect(setups.count { $0.profile.loiteringDelay == nil } >= 8)
  }
}
