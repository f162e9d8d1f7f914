import BackgroundRuntime
import CellHandoff
import GeoWake
import Geodesy
import Geofencing
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

  /// Its region events are exactly a region monitor's; each delivered one wakes the app once
  /// (when the app is not already running); the app's steps come last, in time order; the
  /// summary counts what the events show.
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
    let regionEvents = events.compactMap { if case .region(let e) = $0 { e } else { nil } }
    #expect(regionEvents == expected)
    #expect(expected.contains { $0.deliveredAt != nil }, "the track should give delivered events")

    let steps = events.compactMap { if case .app(let r, _) = $0 { r } else { nil } }
    #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.time <= $1.time })
    let firstStep = try #require(events.firstIndex { if case .app = $0 { true } else { false } })
    #expect(events[firstStep...].allSatisfy { if case .app = $0 { true } else { false } })
    let wakes = steps.filter { $0.kind == .wake || $0.kind == .deliveredWhileRunning }.count
    let significant = events.filter {
      if case .significantChange(let s) = $0 { s.kind == .significantChange && s.trigger != .start } else { false }
    }.count
    #expect(wakes == regionEvents.count { $0.deliveredAt != nil } + significant)

    let summary = timeline.summary
    #expect(summary.monitor.fixCount == fixes.count)
    #expect(summary.activity.totals.values.map(\.enters).reduce(0, +) == regionEvents.count { $0.kind == .enter })
    #expect(summary.cells?.tracker.handoffCount == events.count { if case .cellChange(let c) = $0 { c.from != nil && c.to != nil } else { false } })
    #expect(summary.app?.wakes[.location] ?? 0 > 0)
    #expect(summary.span == fixes[0].time...fixes[fixes.count - 1].time)
  }

  /// A push schedule and launches join the same app: fetch decisions, push outcomes (one per
  /// request) and the wakes they cause.
  @Test func pushesAndFetchJoinTheApp() throws {
    let fixes = Self.fixes(seed: 4)
    let configuration = AppConfiguration(backgroundModes: [.fetch, .remoteNotification], fetchPolicy: .minimum)
    let scenario = AppScenario(
      behaviours: [.fetch: HandlerBehaviour(work: 5), .remoteNotification: HandlerBehaviour(work: 4)], configuration: configuration)
    let start = fixes[0].time
    let pushes = (0..<4).map { k in
      ProviderRequest(
        time: start + Double(k) * 900, token: String(repeating: "ab", count: 32),
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
    let outcomes = events.compactMap { if case .push(let p, _) = $0 { p } else { nil } }
    #expect(outcomes.count == pushes.count)
    #expect(events.contains { if case .fetch = $0 { true } else { false } })
    let reasons = Set(events.compactMap { if case .app(let r, _) = $0, r.kind == .wake { r.reason } else { nil } })
    #expect(reasons.contains(.remoteNotification), "\(outcomes.map(\.kind))")
    #expect(timeline.summary.fetch != nil && timeline.summary.pushes?.outcomes.count == pushes.count)
  }
}
