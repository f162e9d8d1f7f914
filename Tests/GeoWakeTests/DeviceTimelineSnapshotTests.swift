import BackgroundRuntime
import CellHandoff
import Foundation
import GeoWake
import Geodesy
import Geofencing
import SeededRandom
import SyntheticData
import Testing

/// A device's whole timeline saved and restored at random fixes, through JSON, as a server that
/// restarts would: the events and the totals equal an uninterrupted run's.
@Suite("Device timeline snapshots")
struct DeviceTimelineSnapshotTests {
  static let center = try! Coordinate(latitude: 35.66, longitude: 139.70)

  /// A random tower map around the centre: ranges 700 m to 3 km, so that the track hands off.
  static func towers(seed: UInt64) throws -> TowerMap {
    var random = SeededGenerator(seed: seed)
    let towers = try (0..<80).map { k in
      let coordinate = try Coordinate(
        latitude: center.latitude + random.uniform(-0.06...0.06), longitude: center.longitude + random.uniform(-0.07...0.07))
      return CellTower(
        identity: CellIdentity(radio: .lte, mcc: 440, net: 10, area: 7, cell: 100 + k), coordinate: coordinate,
        range: random.uniform(700...3_000))
    }
    return try TowerMap(towers)
  }

  struct Setup {
    var fixes: [LocationFix]
    var regions: RegionSet
    var profile: RegionMonitoringProfile
    var seed: UInt64
    var cells: CellTimeline.Configuration?
    var app: DeviceTimeline.App?

    func timeline() throws -> DeviceTimeline {
      try DeviceTimeline(regions: regions, profile: profile, seed: seed, cells: cells, app: app)
    }

    func restored(_ snapshot: DeviceTimeline.Snapshot) throws -> DeviceTimeline {
      try DeviceTimeline(restoring: snapshot, regions: regions, profile: profile, seed: seed, cells: cells, app: app)
    }
  }

  /// A population of devices: profiles, cell layouts (synthetic and a tower map, with and
  /// without significant changes), apps with and without pushes and launches, all from `seed`.
  static func setup(seed: UInt64) throws -> Setup {
    var random = SeededGenerator(seed: seed &* 7919)
    let fixes = SyntheticTrack(
      seed: seed, count: 1_500 + Int(random.next(below: 1_500)), center: center, halfSide: 4_000, interval: random.uniform(1...6)
    ).map(\.fix)
    let regions = SyntheticRegions(seed: seed, count: 10 + Int(random.next(below: 20)), center: center, radii: 120...700)
      .generate(near: fixes.map(\.coordinate))
    let profiles: [RegionMonitoringProfile] = [.ios, .android, .server, .iosDocumented]
    let profile = profiles[Int(random.next(below: UInt64(profiles.count)))]
    let cells: CellTimeline.Configuration?
    switch random.next(below: 4) {
    case 0: cells = nil
    case 1: cells = .init(layout: .hexagonal(spacing: random.uniform(600...2_000)), significantChanges: .ios, description: "synthetic")
    case 2: cells = .init(layout: .towers(try towers(seed: seed)), significantChanges: .iosWithPeriodicWake, description: "towers")
    default: cells = .init(layout: .towers(try towers(seed: seed)), significantChanges: nil, description: "towers")
    }
    var app: DeviceTimeline.App?
    if random.next(below: 5) != 0 {
      let configuration = AppConfiguration(backgroundModes: [.fetch, .remoteNotification, .location], fetchPolicy: .minimum)
      let scenario = AppScenario(
        seed: seed,
        behaviours: [
          .location: HandlerBehaviour(work: 4), .fetch: HandlerBehaviour(work: 5), .remoteNotification: HandlerBehaviour(work: 3),
        ], configuration: configuration)
      let start = fixes[0].time
      let span = fixes[fixes.count - 1].time - start
      let pushes = random.next(below: 2) == 0 ? nil : (0..<Int(2 + random.next(below: 6))).map { _ in
        ProviderRequest(
          time: start + random.uniform(0...span), token: String(repeating: "ab", count: 32),
          headers: [.init("apns-push-type", "background"), .init("apns-priority", "5"), .init("apns-topic", "com.example.news")],
          payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
      }.sorted { $0.time < $1.time }
      let launches = random.next(below: 2) == 0 ? nil : ((0..<6).map { k in UserLaunch(time: start - 86_400 + Double(k) * 3_600, duration: 60) }
        + [UserLaunch(time: start + span / 2, duration: 45)])
      app = .init(scenario: scenario, pushes: pushes, launches: launches)
    }
    return Setup(fixes: fixes, regions: RegionSet(regions), profile: profile, seed: seed, cells: cells, app: app)
  }

  /// The totals of two timelines agree, part by part.
  static func expectSameTotals(_ a: DeviceTimeline, _ b: DeviceTimeline) {
    let (x, y) = (a.summary, b.summary)
    #expect(x.monitor.snapshot() == y.monitor.snapshot())
    #expect(x.activity == y.activity)
    #expect(x.span == y.span)
    #expect(x.cells?.snapshot() == y.cells?.snapshot())
    #expect(x.fetch == y.fetch)
    #expect(x.pushes?.outcomes == y.pushes?.outcomes)
    #expect(x.app == y.app)
  }

  @Test(arguments: UInt64(1)...12)
  func savedAndRestoredAtRandomFixesGivesTheSameTimeline(seed: UInt64) throws {
    let setup = try Self.setup(seed: seed)
    var whole = try setup.timeline()
    var expected: [TimelineEvent] = []
    for fix in setup.fixes { whole.process(fix, into: &expected) }
    try whole.finish(into: &expected)

    // Three cuts, one of them possibly before the first fix; each goes through JSON.
    var random = SeededGenerator(seed: seed ^ 0xC0FFEE)
    let cuts = (0..<3).map { _ in Int(random.next(below: UInt64(setup.fixes.count))) }.sorted()
    var timeline = try setup.timeline()
    var events: [TimelineEvent] = []
    var next = 0
    for cut in cuts {
      while next < cut {
        timeline.process(setup.fixes[next], into: &events)
        next += 1
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      let saved = try encoder.encode(timeline.snapshot())
      let snapshot = try JSONDecoder().decode(DeviceTimeline.Snapshot.self, from: saved)
      #expect(snapshot == timeline.snapshot())
      timeline = try setup.restored(snapshot)
      #expect(try encoder.encode(timeline.snapshot()) == saved, "a restored timeline saves as it was saved")
    }
    while next < setup.fixes.count {
      timeline.process(setup.fixes[next], into: &events)
      next += 1
    }
    try timeline.finish(into: &events)
    #expect(events == expected, "seed \(seed): \(events.count) events, \(expected.count) uninterrupted")
    Self.expectSameTotals(timeline, whole)
  }

  /// The population covers what a snapshot must carry: cells, significant changes, apps with
  /// pushes and launches.
  @Test func thePopulationCoversEveryPart() throws {
    let setups = try (UInt64(1)...12).map { try Self.setup(seed: $0) }
    #expect(setups.contains { if case .towers = $0.cells?.layout { true } else { false } })
    #expect(setups.contains { if case .hexagonal = $0.cells?.layout { true } else { false } })
    #expect(setups.contains { $0.app?.pushes != nil })
    #expect(setups.contains { $0.app?.launches != nil })
    #expect(setups.contains { $0.app == nil })
    // Most devices cross regions (a seed whose track misses every region tests less).
    let crossing = try setups.filter { setup in
      var timeline = try setup.timeline()
      var events: [TimelineEvent] = []
      for fix in setup.fixes { timeline.process(fix, into: &events) }
      return events.contains { if case .region = $0 { true } else { false } }
    }.count
    #expect(crossing >= 9, "\(crossing) of 12 devices have region events")
  }

  /// Restored only with the settings it was saved with, and never once finished.
  @Test func otherSettingsAreRefused() throws {
    var setup = try Self.setup(seed: 3)
    setup.cells = .init(layout: .hexagonal(spacing: 1_500), significantChanges: .ios, description: "synthetic")
    setup.app = .init(scenario: AppScenario(seed: 3))
    var timeline = try setup.timeline()
    var events: [TimelineEvent] = []
    for fix in setup.fixes.prefix(300) { timeline.process(fix, into: &events) }
    let snapshot = timeline.snapshot()
    #expect(throws: Never.self) { try setup.restored(snapshot) }

    var other = setup
    other.cells = .init(layout: .hexagonal(spacing: 1_600), significantChanges: .ios, description: "synthetic")
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }
    other.cells = .init(layout: .towers(try Self.towers(seed: 3)), significantChanges: .ios, description: "towers")
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }
    other.cells = .init(layout: .hexagonal(spacing: 1_500), significantChanges: nil, description: "synthetic")
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }
    other.cells = nil
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }
    other = setup
    other.app = nil
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }
    other = setup
    other.seed = 4
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }
    other = setup
    other.profile = .server
    #expect(throws: SnapshotError.self) { try other.restored(snapshot) }

    try timeline.finish(into: &events)
    #expect(throws: SnapshotError.self) { try setup.restored(timeline.snapshot()) }
  }

  /// A tower map is known by its towers: one tower moved by a metre is another map.
  @Test func aTowerMapsFingerprintFollowsItsTowers() throws {
    let map = try Self.towers(seed: 5)
    var towers = map.towers
    #expect(try TowerMap(towers).fingerprint == map.fingerprint)
    towers[17].coordinate = try Coordinate(latitude: towers[17].coordinate.latitude + 1e-5, longitude: towers[17].coordinate.longitude)
    #expect(try TowerMap(towers).fingerprint != map.fingerprint)
  }
}
