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

@Suite("A monitor moved onto another version of a shared region set")
struct RegionReplacementTests {
  /// `replaceRegions` over a new shared set gives, from the change on, the events of the
  /// independent path: `stopMonitoring` and `startMonitoring` on a monitor with its own copy of
  /// the regions (every profile without a cap in the way, random seeds, cut points and changes).
  @Test(arguments: [
    (RegionMonitoringProfile.server, UInt64(41), 80), (.android, 42, 80), (.androidDocumented, 43, 80), (.ios, 44, 18),
    (.iosDocumented, 45, 18), (.server, 46, 200),
  ])
  func replacingMatchesStoppingAndStarting(profile: RegionMonitoringProfile, seed: UInt64, count: Int) throws {
    let center = try Coordinate(latitude: 52.52, longitude: 13.40)
    let fixes = lifecycleTrack(seed: seed, count: 2_500, center: center)
    let pool = regionsAlong(fixes.sorted { $0.time < $1.time }, seed: seed, count: count * 2, polygonFraction: 0.25)
      .filter { region in
        if case .circle(let c) = region { return c.radius >= 100 } else { return true }
      }
    let initial = Array(pool.prefix(count - 4))
    let spare = Array(pool.dropFirst(count - 4))
    var rng = SeededGenerator(seed: seed)
    var compared = 0
    for _ in 0..<3 {
      let cut = rng.integer(in: 1...(fixes.count - 2))
      // Some regions removed, some redefined (a larger radius, or a polygon swapped for a circle),
      // some added.
      var removed: [RegionIdentifier] = []
      var redefined: [Region] = []
      for region in initial {
        let u = rng.unit()
        if u < 0.15 {
          removed.append(region.identifier)
        } else if u < 0.3 {
          switch region {
          case .circle(let c): redefined.append(.circle(try CircularRegion(identifier: c.identifier, center: c.center, radius: c.radius * 1.5)))
          case .polygon(let p):
            redefined.append(.circle(try CircularRegion(identifier: p.identifier, center: p.polygons[0].exterior[0], radius: 300)))
          }
        }
      }
      let added = Array(spare.shuffled(using: &rng).prefix(4))
      var next = RegionSet(initial)
      for id in removed { next.remove(id) }
      for region in redefined + added { next.insert(region) }
      _ = next.fingerprint

      let before = RegionSet(initial)
      var shared = try RegionMonitor(regions: before, profile: profile, seed: seed)
      var own = try RegionMonitor(regions: RegionSet(initial), profile: profile, seed: seed)
      var ignored: [RegionEvent] = []
      for fix in fixes[..<cut] {
        shared.process(fix, into: &ignored)
        own.process(fix, into: &ignored)
      }
      // A third moved with the change worked out once (as a fleet moves): the same to the byte.
      var prepared = shared
      var replaced: [RegionEvent] = []
      try shared.replaceRegions(with: next, into: &replaced)
      var preparedEvents: [RegionEvent] = []
      let change = RegionSetChange(from: before, to: next)
      #expect(change.leads(from: prepared.regions, to: next))
      #expect(change.differing.count == removed.count + Set(redefined.map(\.identifier)).count + added.count)
      try prepared.replaceRegions(with: next, change: change, into: &preparedEvents)
      #expect(preparedEvents == replaced)
      #expect(prepared.snapshot() == shared.snapshot())
      var oracle: [RegionEvent] = []
      for id in removed { own.stopMonitoring(id) }
      for region in redefined + added { try own.startMonitoring(region, into: &oracle) }
      for fix in fixes[cut...] {
        shared.process(fix, into: &replaced)
        own.process(fix, into: &oracle)
      }
      shared.finish(into: &replaced)
      own.finish(into: &oracle)
      #expect(Set(shared.monitoredRegions) == Set(own.monitoredRegions))
      #expect(shared.regions.fingerprint == next.fingerprint, "the monitor shares the new set")
      func key(_ e: RegionEvent) -> String { "\(e.decidedAt) \(e.crossedAt) \(e.region.rawValue) \(e.kind) \(e.deliveredAt ?? -1)" }
      let a = replaced.sorted { key($0) < key($1) }
      let b = oracle.sorted { key($0) < key($1) }
      let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      #expect(a.count == b.count && first == nil, "cut at fix \(cut): \(a.count) events against \(b.count), first difference at \(first ?? -1)")
      compared += b.count
      // And it is a monitor like any other: saved and restored over the new set.
      let restored = try RegionMonitor(restoring: shared.snapshot(), regions: next, profile: profile, seed: seed)
      #expect(restored.snapshot() == shared.snapshot())
    }
    #expect(compared >= 5, "the changes should be followed by events (\(compared))")
  }

  /// A region added around the device gives its state at the last fix; one removed while the
  /// device is inside ends without an event.
  @Test func addedAroundAndRemovedUnder() throws {
    let origin = try Coordinate(latitude: 35.68, longitude: 139.76)
    let plaza = try CircularRegion(identifier: "plaza", center: origin, radius: 200)
    let square = try CircularRegion(identifier: "square", center: origin, radius: 50)
    var m = try RegionMonitor(regions: RegionSet([.circle(plaza)]), profile: .server)
    var events: [RegionEvent] = []
    for k in 0..<40 { m.process(LocationFix(time: Double(k) * 10, coordinate: origin, horizontalAccuracy: 5), into: &events) }
    m.advance(to: 1_000, into: &events)
    #expect(events.map(\.kind) == [.state])
    events = []
    try m.replaceRegions(with: RegionSet([.circle(square)]), into: &events)
    #expect(events.map(\.kind) == [.state] && events[0].region == square.identifier && events[0].state == .inside)
    #expect(events[0].crossedAt == 390, "at the last fix used")
    #expect(m.state(of: plaza.identifier) == nil && m.state(of: square.identifier) == .inside)
  }
}
