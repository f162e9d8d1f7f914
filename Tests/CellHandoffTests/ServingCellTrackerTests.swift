import CellHandoff
import Geodesy
import SyntheticData
import Testing

/// Runs a tracker over fixes, returning all changes.
func track(_ fixes: [LocationFix], _ layout: CellLayout, _ profile: CellSelectionProfile = .lte) throws -> (ServingCellTracker, [ServingCellChange]) {
  var tracker = try ServingCellTracker(layout: layout, profile: profile)
  var changes: [ServingCellChange] = []
  for fix in fixes { tracker.process(fix, into: &changes) }
  return (tracker, changes)
}

/// A straight drive from `start` towards `azimuth` at `speed` m/s, one fix per `interval` s.
func drive(from start: Coordinate, azimuth: Double, speed: Double, seconds: Double, interval: Double = 1) -> [LocationFix] {
  stride(from: 0.0, through: seconds, by: interval).map { t in
    LocationFix(time: 1_700_000_000 + t, coordinate: Geodesic.wgs84.direct(from: start, azimuth: azimuth, distance: speed * t)!.destination)
  }
}

/// The handoff rule written the plain way, over every tower: the reference the tracker must match.
func referenceChanges(_ fixes: [LocationFix], _ towers: [CellTower], _ profile: CellSelectionProfile) -> [(Double, CellIdentity?, CellIdentity?)] {
  var out: [(Double, CellIdentity?, CellIdentity?)] = []
  var serving: CellIdentity?
  var previous: (CellIdentity, Double)?
  var pending: (CellIdentity, Double)?
  for fix in fixes {
    var signals: [(CellIdentity, Double)] = []
    for t in towers {
      let d = Ellipsoid.wgs84.chordDistance(t.coordinate, fix.coordinate)
      if d <= t.range { signals.append((t.identity, profile.pathLoss.signal(distance: d, range: t.range))) }
    }
    signals.sort { ($0.1, $1.0) > ($1.1, $0.0) }
    guard let current = serving else {
      if let best = signals.first { serving = best.0; pending = nil; out.append((fix.time, nil, best.0)) }
      continue
    }
    guard let mine = signals.first(where: { $0.0 == current })?.1 else {
      pending = nil
      previous = (current, fix.time)
      serving = signals.first?.0
      out.append((fix.time, current, serving))
      continue
    }
    guard let n = signals.first(where: { $0.0 != current }), n.1 > mine + profile.hysteresis else { pending = nil; continue }
    if pending?.0 != n.0 { pending = (n.0, fix.time) }
    guard let p = pending, fix.time - p.1 >= profile.timeToTrigger else { continue }
    var time = p.1 + profile.timeToTrigger
    if let previous, previous.0 == n.0 {
      if previous.1 + profile.pingPongWindow > fix.time { continue }
      time = max(time, previous.1 + profile.pingPongWindow)
    }
    pending = nil
    previous = (current, min(time, fix.time))
    serving = n.0
    out.append((min(time, fix.time), current, n.0))
  }
  return out
}

@Suite("Serving cell tracker")
struct ServingCellTrackerTests {
  static let cork = coordinate(51.8985, -8.4756)

  /// Random tower layouts and random wandering tracks: the tracker (with its index) makes exactly
  /// the changes of the plain reference.
  @Test(arguments: [UInt64(1), 2, 3])
  func agreesWithTheBruteForceReference(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let towers = (0..<400).map { k in
      CellTower(
        identity: CellIdentity(radio: .lte, mcc: 272, net: 1, area: 1, cell: k),
        coordinate: Geodesic.wgs84.direct(from: Self.cork, azimuth: .random(in: 0..<360, using: &random), distance: .random(in: 0...15_000, using: &random))!.destination,
        range: .random(in: 800...4_000, using: &random))
    }
    var position = Self.cork
    var heading = 0.0
    var fixes: [LocationFix] = []
    for k in 0..<2_000 {
      heading += .random(in: -20...20, using: &random)
      position = Geodesic.wgs84.direct(from: position, azimuth: heading, distance: .random(in: 0...25, using: &random))!.destination
      if Geodesic.wgs84.distance(from: Self.cork, to: position) > 12_000 { heading += 180 }
      fixes.append(LocationFix(time: 1_700_000_000 + Double(k) * .random(in: 0.2...2, using: &random).rounded(), coordinate: position))
    }
    fixes.sort { $0.time < $1.time }
    let (tracker, changes) = try track(fixes, .towers(try TowerMap(towers)))
    let expected = referenceChanges(fixes, towers, .lte)
    #expect(changes.count > 20)
    #expect(changes.map(\.time) == expected.map(\.0))
    #expect(changes.map(\.from) == expected.map(\.1))
    #expect(changes.map(\.to) == expected.map(\.2))
    #expect(tracker.handoffCount == changes.filter(\.isHandoff).count)
    // The result above was reached while skipping fixes that could not change anything.
    #expect(tracker.skippedFixes > 100)
    // The cache size is a tuning knob only: any radius, same changes.
    for radius in [1.0, 50, 5_000] {
      var small = try ServingCellTracker(layout: .towers(try TowerMap(towers)), cacheRadius: radius)
      var other: [ServingCellChange] = []
      for fix in fixes { small.process(fix, into: &other) }
      #expect(other == changes)
    }
  }

  /// GPS noise at the edge between two cells: with the LTE rule one handoff; with no hysteresis
  /// and no time-to-trigger the device would flip at every wobble, and the ping-pong window
  /// suppresses (and counts) the returns.
  @Test func pingPongAtACellEdgeIsSuppressed() throws {
    let west = CellTower(identity: CellIdentity(radio: .lte, mcc: 272, net: 1, area: 1, cell: 1), coordinate: Geodesic.wgs84.direct(from: Self.cork, azimuth: 270, distance: 1_000)!.destination, range: 3_000)
    let east = CellTower(identity: CellIdentity(radio: .lte, mcc: 272, net: 1, area: 1, cell: 2), coordinate: Geodesic.wgs84.direct(from: Self.cork, azimuth: 90, distance: 1_000)!.destination, range: 3_000)
    var random = SeededGenerator(seed: 9)
    // 1 m/s from 300 m west of the edge to 300 m east of it.
    var fixes = drive(from: Geodesic.wgs84.direct(from: Self.cork, azimuth: 270, distance: 300)!.destination, azimuth: 90, speed: 1, seconds: 600)
    for k in fixes.indices {  // ±40 m of GPS noise
      fixes[k].coordinate = Geodesic.wgs84.direct(from: fixes[k].coordinate, azimuth: .random(in: 0..<360, using: &random), distance: .random(in: 0...40, using: &random))!.destination
    }
    let map = try TowerMap([west, east])
    let (lte, lteChanges) = try track(fixes, .towers(map))
    #expect(lteChanges.filter(\.isHandoff).count == 1 && lte.suppressedPingPongs == 0)
    var twitchy = CellSelectionProfile.lte
    twitchy.hysteresis = 0
    twitchy.timeToTrigger = 0
    let (loose, looseChanges) = try track(fixes, .towers(map), twitchy)
    #expect(loose.suppressedPingPongs > 3)
    #expect(looseChanges.filter(\.isHandoff).count < 2 * loose.suppressedPingPongs)
    twitchy.pingPongWindow = 0
    let (_, flapping) = try track(fixes, .towers(map), twitchy)
    #expect(flapping.filter(\.isHandoff).count > looseChanges.filter(\.isHandoff).count)
  }

  @Test func stationaryDeviceStaysOnItsCell() throws {
    let fixes = (0..<3_600).map { LocationFix(time: 1_700_000_000 + Double($0), coordinate: Self.cork) }
    let (tracker, changes) = try track(fixes, .hexagonal(spacing: HexagonalCellLayout.urbanSpacing))
    #expect(changes.map(\.cause) == [.attach])
    #expect(tracker.handoffCount == 0)
  }

  /// Losing every cell, then finding one again.
  @Test func noServiceAndReattach() throws {
    let only = CellTower(identity: CellIdentity(radio: .gsm, mcc: 272, net: 1, area: 1, cell: 7), coordinate: Self.cork, range: 1_000)
    let fixes = drive(from: Self.cork, azimuth: 0, speed: 20, seconds: 100, interval: 10) + drive(from: Geodesic.wgs84.direct(from: Self.cork, azimuth: 0, distance: 2_000)!.destination, azimuth: 180, speed: 20, seconds: 100, interval: 10).map {
      var f = $0
      f.time += 110
      return f
    }
    let (_, changes) = try track(fixes, .towers(try TowerMap([only])))
    #expect(changes.map(\.cause) == [.attach, .noService, .attach])
  }
}

@Suite("Significant change monitor")
struct SignificantChangeMonitorTests {
  static func run(_ fixes: [LocationFix], _ layout: CellLayout, _ profile: SignificantChangeProfile = .ios) throws -> [SignificantChangeEvent] {
    var tracker = try ServingCellTracker(layout: layout)
    var monitor = SignificantChangeMonitor(profile: profile)
    var changes: [ServingCellChange] = []
    var events: [SignificantChangeEvent] = []
    for fix in fixes {
      changes.removeAll(keepingCapacity: true)
      tracker.process(fix, into: &changes)
      monitor.process(fix, changes: changes, servingRange: tracker.servingTower?.range, into: &events)
    }
    return events
  }

  /// A fast drive through urban cells: many handoffs, at most one delivery per 5 minutes, each at
  /// least 500 m from the one before; the rest kept as suppressed, with the reason.
  @Test func fastDriveDeliversAtMostEveryFiveMinutes() throws {
    let fixes = drive(from: ServingCellTrackerTests.cork, azimuth: 60, speed: 30, seconds: 3_600)
    let events = try Self.run(fixes, .hexagonal(spacing: HexagonalCellLayout.urbanSpacing))
    let delivered = events.filter { $0.kind == .significantChange }
    let suppressed = events.filter { $0.kind == .significantChangeSuppressed }
    #expect(delivered.first?.trigger == .start && delivered.first?.time == fixes[0].time)
    #expect(delivered.count >= 10 && delivered.count <= 13)
    #expect(suppressed.count > 40)
    for (a, b) in zip(delivered, delivered.dropFirst()) {
      #expect(b.time - a.time >= 300)
      #expect(Geodesic.wgs84.distance(from: a.location.coordinate, to: b.location.coordinate) >= 500)
    }
    #expect(suppressed.allSatisfy { $0.reason.contains("s after the last delivery (the ios profile needs 300 s)") || $0.reason.contains("needs 500 m") })
    #expect(delivered.allSatisfy { (500...1_500).contains($0.location.horizontalAccuracy ?? 0) })
  }

  @Test func stationaryDeviceGetsOnlyTheStartEvent() throws {
    let fixes = (0..<3_600).map { LocationFix(time: 1_700_000_000 + Double($0), coordinate: ServingCellTrackerTests.cork) }
    let events = try Self.run(fixes, .hexagonal(spacing: HexagonalCellLayout.urbanSpacing))
    #expect(events.map(\.trigger) == [.start])
    // With the optional periodic wake: one every 15 minutes.
    let periodic = try Self.run(fixes, .hexagonal(spacing: HexagonalCellLayout.urbanSpacing), .iosWithPeriodicWake)
    #expect(periodic.map(\.trigger) == [.start, .periodic, .periodic, .periodic])
    #expect(periodic.map(\.time) == [1_700_000_000, 1_700_000_900, 1_700_001_800, 1_700_002_700])
  }
}
