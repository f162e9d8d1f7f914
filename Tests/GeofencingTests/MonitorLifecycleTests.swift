import Foundation
import Geodesy
import Geofencing
import Testing
import _GeoWakeTestSupport

/// A track with gaps, a few shuffled fixes and noisy accuracy: what a monitor must carry across a
/// snapshot (held fixes, unconfirmed crossings, dwells, unknown states after a gap).
func lifecycleTrack(seed: UInt64, count: Int, center: Coordinate) -> [LocationFix] {
  var rng = SeededGenerator(seed: seed ^ 0x11fe)
  var fixes = SyntheticTrack(seed: seed, count: count, center: center, halfSide: 2_000, interval: 4).map(\.fix)
  for k in fixes.indices {
    fixes[k].horizontalAccuracy = rng.uniform(3...60)
    // A gap past the profiles' limit now and then.
    if k > 0 && rng.unit() < 0.002 {
      for j in k..<fixes.count { fixes[j].time += 900 }
    }
  }
  // Neighbours swapped: late fixes for the reorder window.
  for k in stride(from: 5, to: fixes.count - 1, by: 97) { fixes.swapAt(k, k + 1) }
  return fixes
}

@Suite("Monitor lifecycle: snapshots, the clock, live changes")
struct MonitorLifecycleTests {
  static let profiles: [RegionMonitoringProfile] = [.ios, .android, .iosDocumented, .androidDocumented, .server, .android8]

  /// A monitor saved as JSON at a random fix and restored from it gives, from then on, exactly
  /// the events of the monitor that ran on (every profile, random seeds and cut points).
  @Test(arguments: zip(profiles, [UInt64(21), 22, 23, 24, 25, 26]))
  func snapshotAndRestoreGiveIdenticalEvents(profile: RegionMonitoringProfile, seed: UInt64) throws {
    let center = try Coordinate(latitude: 52.52, longitude: 13.40)
    let fixes = lifecycleTrack(seed: seed, count: 3_000, center: center)
    let regions = regionsAlong(fixes.sorted { $0.time < $1.time }, seed: seed, count: 120, polygonFraction: 0.25)
      .filter { region in
        // Sizes a phone would monitor (iOS's entry depth needs room).
        if case .circle(let c) = region { return c.radius >= 100 } else { return true }
      }
    let set = RegionSet(regions)
    var rng = SeededGenerator(seed: seed)
    var whole = try RegionMonitor(regions: set, profile: profile, seed: seed)
    var expected: [RegionEvent] = []
    for fix in fixes { whole.process(fix, into: &expected) }
    whole.finish(into: &expected)
    #expect(expected.count { $0.kind == .enter || $0.kind == .exit } > 10, "the track should cross regions")

    for _ in 0..<4 {
      let cut = rng.integer(in: 1...(fixes.count - 2))
      var before = try RegionMonitor(regions: set, profile: profile, seed: seed)
      var events: [RegionEvent] = []
      for fix in fixes[..<cut] { before.process(fix, into: &events) }
      let saved = try JSONEncoder().encode(before.snapshot())
      let snapshot = try JSONDecoder().decode(RegionMonitor.Snapshot.self, from: saved)
      #expect(snapshot == before.snapshot())
      var second = try RegionMonitor(restoring: snapshot, regions: set, profile: profile, seed: seed)
      for fix in fixes[cut...] { second.process(fix, into: &events) }
      second.finish(into: &events)
      let first = zip(events, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      #expect(events.count == expected.count && first == nil, "cut at fix \(cut): first difference at event \(first ?? -1)")
      #expect(second.fixCount == whole.fixCount && second.rejections == whole.rejections)
      #expect(second.suppressedFlaps == whole.suppressedFlaps)
    }
  }

  /// A snapshot is restored only over its own regions, profile and seed.
  @Test func restoreRefusesOtherRegionsProfilesAndSeeds() throws {
    let fixes = walk(Array(stride(from: 1_000.0, through: 0, by: -10)))
    var m = try RegionMonitor(regions: [.circle(plaza)], profile: .server, seed: 3)
    var events: [RegionEvent] = []
    for fix in fixes { m.process(fix, into: &events) }
    let snapshot = m.snapshot()
    let same = RegionSet([Region.circle(plaza)])
    let wider = RegionSet([Region.circle(try CircularRegion(identifier: "plaza", center: origin, radius: 301))])
    #expect(throws: SnapshotError.self) { try RegionMonitor(restoring: snapshot, regions: wider, profile: .server, seed: 3) }
    #expect(throws: SnapshotError.self) { try RegionMonitor(restoring: snapshot, regions: same, profile: .ios, seed: 3) }
    #expect(throws: SnapshotError.self) { try RegionMonitor(restoring: snapshot, regions: same, profile: .server, seed: 4) }
    var tuned = RegionMonitoringProfile.server
    tuned.confirmationTime = 7
    #expect(throws: SnapshotError.self) { try RegionMonitor(restoring: snapshot, regions: same, profile: tuned, seed: 3) }
    #expect(throws: Never.self) { try RegionMonitor(restoring: snapshot, regions: same, profile: .server, seed: 3) }
  }

  /// Held fixes come out when the clock passes their reorder window, with the events `finish`
  /// would give; a fix older than the window before the clock is then refused.
  @Test func advanceReleasesHeldFixes() throws {
    let fixes = walk(Array(stride(from: 600.0, through: 0, by: -10)))
    var held = try RegionMonitor(regions: [.circle(plaza)], profile: .server)
    var flushed = held
    var events: [RegionEvent] = []
    for fix in fixes { held.process(fix, into: &events) }
    var expected = events
    flushed = held
    flushed.finish(into: &expected)
    #expect(held.fixCount < fixes.count, "the server profile holds the last 30 s of fixes")
    let last = fixes[fixes.count - 1].time
    held.advance(to: last + RegionMonitoringProfile.server.reorderWindow, into: &events)
    #expect(held.fixCount == fixes.count)
    #expect(events == expected)
    let late = LocationFix(time: last - 1, coordinate: origin)
    #expect(held.process(late, into: &events)?.cause == "out of time order")
    #expect(held.advance(to: .nan, into: &events) == .timeNotFinite)
  }

  /// Dwell at the end of the loitering delay with no fix after it, as the device was last seen;
  /// not once the gap limit has made the state unknown.
  @Test func advanceDeliversDwellWithoutAFix() throws {
    let fixes = walk(Array(repeating: 0, count: 100))
    var m = try RegionMonitor(regions: [.circle(plaza)], profile: .androidDocumented)
    var events: [RegionEvent] = []
    for fix in fixes { m.process(fix, into: &events) }
    #expect(events.map(\.kind) == [.state])
    m.advance(to: 1_000_250, into: &events)
    #expect(events.map(\.kind) == [.state])
    m.advance(to: 1_000_301, into: &events)
    #expect(events.map(\.kind) == [.state, .dwell])
    #expect(events[1].crossedAt == 1_000_300 && events[1].reason.contains("until the clock reached 1000301 s"))

    // A delay past the gap limit: by then the state is unknown, and no dwell comes.
    var patient = RegionMonitoringProfile.androidDocumented
    patient.loiteringDelay = 900
    var late = try RegionMonitor(regions: [.circle(plaza)], profile: patient)
    events = []
    late.process(fixes[0], into: &events)
    late.advance(to: 1_000_000 + 1_000, into: &events)
    #expect(events.map(\.kind) == [.state])
    #expect(late.state(of: plaza.identifier, at: 1_000_000 + 1_000) == .unknown)
  }

  /// Regions added and removed on a running monitor, as an app does.
  @Test func regionsAddedAndRemovedWhileRunning() throws {
    let approach = walk(Array(stride(from: 1_000.0, through: 0, by: -10)))
    let square = try CircularRegion(identifier: "square", center: origin, radius: 50)
    var m = try RegionMonitor(regions: [], profile: .server)
    var events: [RegionEvent] = []
    try m.startMonitoring(.circle(plaza), into: &events)
    for fix in approach { m.process(fix, into: &events) }
    m.advance(to: approach[approach.count - 1].time + 30, into: &events)
    #expect(events.map(\.kind) == [.enter])
    // Added while inside it: its state at the last fix, as at the first fix.
    try m.startMonitoring(.circle(square), into: &events)
    #expect(events.map(\.kind) == [.enter, .state] && events[1].region == square.identifier)
    #expect(m.state(of: square.identifier) == .inside)
    // Removed: no exit for it when the device leaves.
    #expect(m.stopMonitoring(plaza.identifier) == .circle(plaza))
    #expect(m.state(of: plaza.identifier) == nil)
    let leave = walk(Array(stride(from: 0.0, through: 1_000, by: 10))).map {
      LocationFix(time: $0.time + 200, coordinate: $0.coordinate, horizontalAccuracy: $0.horizontalAccuracy)
    }
    for fix in leave { m.process(fix, into: &events) }
    m.finish(into: &events)
    #expect(events.map(\.kind) == [.enter, .state, .exit])
    #expect(events[2].region == square.identifier)
    #expect(m.monitoredRegions == [.circle(square)])
  }

  /// The profile's cap holds for live additions too.
  @Test func liveAdditionsRespectTheCap() throws {
    var capped = RegionMonitoringProfile.server
    capped.maximumRegions = 2
    var m = try RegionMonitor(regions: [], profile: capped)
    var events: [RegionEvent] = []
    for k in 0..<2 {
      try m.startMonitoring(.circle(CircularRegion(identifier: "r\(k)", center: origin, radius: 100)), into: &events)
    }
    #expect(throws: RegionMonitor.MonitoringError.self) {
      try m.startMonitoring(.circle(CircularRegion(identifier: "r2", center: origin, radius: 100)), into: &events)
    }
    // Replacing one that is monitored is not an addition.
    try m.startMonitoring(.circle(CircularRegion(identifier: "r1", center: origin, radius: 200)), into: &events)
    #expect(m.monitoredRegions.count == 2)
  }
}
