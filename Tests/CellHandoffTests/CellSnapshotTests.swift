import CellHandoff
import Foundation
import Geodesy
import SavedState
import SeededRandom
import SyntheticData
import Testing

/// The serving-cell tracker and the significant-change monitor saved and restored at random
/// fixes, through JSON: the changes, events and counts equal an uninterrupted run's, for tower
/// maps and synthetic layouts, with modelled and reported cells.
@Suite("Cell snapshots")
struct CellSnapshotTests {
  static let center = try! Coordinate(latitude: 48.85, longitude: 2.35)

  static func towers(seed: UInt64) throws -> TowerMap {
    var random = SeededGenerator(seed: seed)
    return try TowerMap(
      (0..<120).map { k in
        CellTower(
          identity: CellIdentity(radio: k % 3 == 0 ? .umts : .lte, mcc: 208, net: 1, area: 3, cell: k),
          coordinate: try Coordinate(
            latitude: center.latitude + random.uniform(-0.08...0.08), longitude: center.longitude + random.uniform(-0.1...0.1)),
          range: random.uniform(500...4_000))
      })
  }

  static let otherProfile = {
    var profile = CellSelectionProfile.lte
    profile.hysteresis = 4
    return profile
  }()

  struct Run: Equatable {
    var changes: [ServingCellChange] = []
    var events: [SignificantChangeEvent] = []
  }

  static func step(
    _ tracker: inout ServingCellTracker, _ monitor: inout SignificantChangeMonitor, _ fix: LocationFix, reported: CellIdentity?,
    into run: inout Run
  ) {
    var changes: [ServingCellChange] = []
    tracker.process(fix, reportedCell: reported, into: &changes)
    monitor.process(fix, changes: changes, servingRange: tracker.servingTower?.range, into: &run.events)
    run.changes += changes
  }

  @Test(arguments: UInt64(1)...10)
  func restoredTrackersAndMonitorsCarryOn(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed &* 31)
    let map = try Self.towers(seed: seed)
    let layout: CellLayout = seed % 3 == 0 ? .hexagonal(spacing: random.uniform(500...3_000)) : .towers(map)
    let profile: SignificantChangeProfile = seed % 2 == 0 ? .ios : .iosWithPeriodicWake
    let fixes = SyntheticTrack(seed: seed, count: 2_000, center: Self.center, halfSide: 6_000, interval: random.uniform(1...8)).map(\.fix)
    // Every fifth seed names its serving cell at some fixes, as a drive log does.
    let reported: [CellIdentity?] = fixes.indices.map { k in
      seed % 5 == 0 && (k / 100) % 2 == 1 ? map.towers[(k / 100) % map.count].identity : nil
    }

    var tracker = try ServingCellTracker(layout: layout)
    var monitor = SignificantChangeMonitor(profile: profile)
    var expected = Run()
    for (k, fix) in fixes.enumerated() { Self.step(&tracker, &monitor, fix, reported: reported[k], into: &expected) }

    let cuts = (0..<4).map { _ in Int(random.next(below: UInt64(fixes.count))) }.sorted()
    var restoredTracker = try ServingCellTracker(layout: layout)
    var restoredMonitor = SignificantChangeMonitor(profile: profile)
    var run = Run()
    var next = 0
    for cut in cuts {
      while next < cut {
        Self.step(&restoredTracker, &restoredMonitor, fixes[next], reported: reported[next], into: &run)
        next += 1
      }
      let saved = try JSONEncoder().encode(restoredTracker.snapshot())
      restoredTracker = try ServingCellTracker(
        restoring: JSONDecoder().decode(ServingCellTracker.Snapshot.self, from: saved), layout: layout)
      let savedMonitor = try JSONEncoder().encode(restoredMonitor.snapshot())
      restoredMonitor = try SignificantChangeMonitor(
        restoring: JSONDecoder().decode(SignificantChangeMonitor.Snapshot.self, from: savedMonitor), profile: profile)
    }
    while next < fixes.count {
      Self.step(&restoredTracker, &restoredMonitor, fixes[next], reported: reported[next], into: &run)
      next += 1
    }
    #expect(run == expected)
    #expect(restoredTracker.snapshot() == tracker.snapshot())
    #expect(restoredTracker.skippedFixes == tracker.skippedFixes && restoredTracker.cacheFills == tracker.cacheFills)
    #expect(restoredMonitor.snapshot() == monitor.snapshot())
  }

  /// The population hands off: a seed whose track stays in one cell tests little, so most must not.
  @Test func thePopulationHandsOff() throws {
    var handingOff = 0
    for seed in UInt64(1)...10 {
      var random = SeededGenerator(seed: seed &* 31)
      let layout: CellLayout = seed % 3 == 0 ? .hexagonal(spacing: random.uniform(500...3_000)) : .towers(try Self.towers(seed: seed))
      let fixes = SyntheticTrack(seed: seed, count: 2_000, center: Self.center, halfSide: 6_000, interval: random.uniform(1...8)).map(\.fix)
      var tracker = try ServingCellTracker(layout: layout)
      var changes: [ServingCellChange] = []
      for fix in fixes { tracker.process(fix, into: &changes) }
      if changes.count > 2 { handingOff += 1 }
    }
    #expect(handingOff >= 8, "\(handingOff) of 10 tracks hand off")
  }

  @Test func otherLayoutsAndProfilesAreRefused() throws {
    let map = try Self.towers(seed: 1)
    var tracker = try ServingCellTracker(layout: .towers(map))
    var changes: [ServingCellChange] = []
    for fix in SyntheticTrack(seed: 1, count: 200, center: Self.center, halfSide: 3_000, interval: 2).map(\.fix) {
      tracker.process(fix, into: &changes)
    }
    let snapshot = tracker.snapshot()
    #expect(throws: Never.self) { try ServingCellTracker(restoring: snapshot, layout: .towers(map)) }
    #expect(throws: (any Error).self) { try ServingCellTracker(restoring: snapshot, layout: .towers(Self.towers(seed: 2))) }
    #expect(throws: (any Error).self) { try ServingCellTracker(restoring: snapshot, layout: .hexagonal(spacing: 1_500)) }
    #expect(throws: (any Error).self) { try ServingCellTracker(restoring: snapshot, layout: .towers(map), profile: Self.otherProfile) }
    #expect(throws: (any Error).self) { try ServingCellTracker(restoring: snapshot, layout: .towers(map), cacheRadius: 2_000) }
    let monitor = SignificantChangeMonitor(profile: .ios).snapshot()
    #expect(throws: SnapshotError.self) { try SignificantChangeMonitor(restoring: monitor, profile: .iosWithPeriodicWake) }
  }

  @Test func aSavedCoordinateOutOfRangeIsADecodingError() throws {
    let json = Data(#"{"latitude": 91, "longitude": 2}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Coordinate.self, from: json) }
    let good = try JSONDecoder().decode(Coordinate.self, from: Data(#"{"latitude": 48.5, "longitude": 190}"#.utf8))
    #expect(good == (try Coordinate(latitude: 48.5, longitude: -170)))
  }
}
