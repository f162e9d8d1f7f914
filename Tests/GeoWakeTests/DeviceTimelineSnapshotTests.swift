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
  typealias Setup = DevicePopulation.Setup

  static func setup(seed: UInt64) throws -> Setup { try DevicePopulation.setup(seed: seed) }
  static func towers(seed: UInt64) throws -> TowerMap { try DevicePopulation.towers(seed: seed) }

  /// The totals of two timelines agree, part by part.
  static func expectSameTotals(_ a: DeviceTimeline, _ b: DeviceTimeline) {
    let (x, y) = (a.summary, b.summary)
    #expect(x.monitor.snapshot() == y.monitor.snapshot())
    #expect(x.activity == y.activity)
    #expect(x.span == y.span)
    #expect(x.cells?.snapshot() == y.cells?.snapshot())
    #expect(x.fetch == y.fetch)
    #expect(x.pushes == y.pushes)
    #expect(x.trackRecord == y.trackRecord)
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

  /// What a device's snapshot holds does not grow with the fixes it has seen (a server saves one
  /// per device): after 6,000 fixes it is about as large as after 1,000, whether the app is woken
  /// often or never.
  @Test(arguments: [true, false])
  func aSnapshotStaysSmallAsFixesStream(withRegions: Bool) throws {
    let fixes = SyntheticTrack(seed: 21, count: 6_000, center: DevicePopulation.center, halfSide: 4_000, interval: 2).map(\.fix)
    let regions = withRegions
      ? SyntheticRegions(seed: 21, count: 20, center: DevicePopulation.center, radii: 150...500).generate(near: fixes.map(\.coordinate)) : []
    let app = DeviceTimeline.App(scenario: AppScenario(behaviours: [.location: HandlerBehaviour(work: 3)]))
    var timeline = try DeviceTimeline(regions: RegionSet(regions), platform: .ios, app: app)
    var events: [TimelineEvent] = []
    var sizes: [Int] = []
    for (k, fix) in fixes.enumerated() {
      timeline.process(fix, into: &events)
      if k == 999 || k == 5_999 { sizes.append(try JSONEncoder().encode(timeline.snapshot()).count) }
    }
    #expect(events.contains { if case .app = $0 { true } else { false } } == withRegions)
    #expect(Double(sizes[1]) < 1.5 * Double(sizes[0]), "\(sizes)")
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
