import Geodesy
import Geofencing
import SyntheticData
import Testing

@Suite("Android profile")
struct AndroidProfileTests {
  /// The lens formula against counting a fine grid over the accuracy disc.
  @Test(arguments: [(10.0, 300.0, 295.0), (100, 300, 250), (100, 300, 350), (200, 100, 50), (200, 100, 250), (50, 50, 49)])
  func overlapRatioMatchesAGridCount(accuracy: Double, radius: Double, distance: Double) {
    let steps = 800
    var inside = 0
    var total = 0
    for i in 0..<steps {
      for j in 0..<steps {
        let x = -accuracy + (Double(i) + 0.5) * 2 * accuracy / Double(steps)
        let y = -accuracy + (Double(j) + 0.5) * 2 * accuracy / Double(steps)
        guard x * x + y * y <= accuracy * accuracy else { continue }
        total += 1
        if (x + distance) * (x + distance) + y * y <= radius * radius { inside += 1 }
      }
    }
    let counted = Double(inside) / Double(total)
    let ratio = AccuracyOverlap.ratio(accuracy: accuracy, radius: radius, distance: distance)
    #expect(abs(ratio - counted) < 0.005, "ratio \(ratio), grid \(counted)")
  }

  @Test func overlapRatioLimits() {
    #expect(AccuracyOverlap.ratio(accuracy: 10, radius: 300, distance: 0) == 1)
    #expect(AccuracyOverlap.ratio(accuracy: 10, radius: 300, distance: 311) == 0)
    #expect(AccuracyOverlap.ratio(accuracy: 200, radius: 100, distance: 0) == 0.25)
    #expect(AccuracyOverlap.ratio(accuracy: 0, radius: 100, distance: 100) == 1)
    #expect(AccuracyOverlap.ratio(accuracy: 0, radius: 100, distance: 100.01) == 0)
    // Monotone: farther out, less of the disc inside.
    var previous = 1.0
    for d in stride(from: 0.0, through: 500, by: 1) {
      let r = AccuracyOverlap.ratio(accuracy: 120, radius: 300, distance: d)
      #expect(r <= previous + 1e-12)
      previous = r
    }
  }

  /// Walking in with a 100 m accuracy disc: the entry waits until 85 % of the disc is inside, not
  /// at the boundary; the crossing time is still the boundary's.
  @Test func entryWaitsForTheOverlapThreshold() throws {
    let fixes = walk(Array(stride(from: 1_000.0, through: 0, by: -5)), accuracy: 100)
    let (_, events) = try monitor(fixes, [.circle(plaza)], .androidDocumented)
    #expect(events.map(\.kind) == [.enter])
    let enter = events[0]
    #expect(abs(enter.crossedAt - (1_000_000 + 140)) < 0.01)
    // The fix that confirmed it: the first one with ≥ 85 % of its disc inside.
    let confirming = try #require(fixes.first { fix in
      AccuracyOverlap.ratio(accuracy: 100, radius: 300, distance: Geodesic.wgs84.distance(from: origin, to: fix.coordinate)) >= 0.85
    })
    #expect(enter.reason.contains("confirmed at fix \(Int(confirming.time - 1_000_000))"))
    #expect(enter.reason.contains("accuracy disc inside (needed ≥ 85 %)"))
    let latency = try #require(enter.deliveredAt) - confirming.time
    #expect(latency >= 0 && latency <= 120)
  }

  /// Wobbling just inside the boundary with a coarse fix is low confidence: no alert at all, and
  /// the crossing is dropped when the device goes back out.
  @Test func lowConfidenceIsNotAlerted() throws {
    var north = Array(stride(from: 1_000.0, to: 300, by: -5))
    for k in 0..<120 { north.append(k % 2 == 0 ? 280 : 290) }
    north += Array(stride(from: 305.0, through: 1_000, by: 5))
    let (android, events) = try monitor(walk(north, accuracy: 80), [.circle(plaza)], .androidDocumented)
    #expect(events.isEmpty)
    #expect(android.suppressedFlaps[plaza.identifier] == 1)
    // The server profile sees the geometric truth.
    #expect(try monitor(walk(north, accuracy: 80), [.circle(plaza)], .server).1.map(\.kind) == [.enter, .exit])
  }

  /// A small region (under 150 m) uses 75 % / 25 %.
  @Test func smallRegionsUseTheirOwnThresholds() {
    let small = AccuracyOverlap.android.thresholds(radius: 100)
    let large = AccuracyOverlap.android.thresholds(radius: 150)
    #expect(small.enter == 0.75 && small.exit == 0.25)
    #expect(large.enter == 0.85 && large.exit == 0.15)
  }

  /// Dwell after the loitering delay, once, and only if the device is still inside.
  @Test func dwellAfterTheLoiteringDelay() throws {
    let walkIn = Array(stride(from: 1_000.0, through: 0, by: -10))
    let stay = try monitor(walk(walkIn + Array(repeating: 0, count: 600), accuracy: 10), [.circle(plaza)], .androidDocumented).1
    #expect(stay.map(\.kind) == [.enter, .dwell])
    let confirmedAt = 1_000_000.0 + 71  // first fix 10 m beyond the 300 m boundary with a 10 m disc
    #expect(abs(stay[1].crossedAt - (confirmedAt + 300)) <= 1)
    #expect(stay[1].reason.contains("loitering delay of 300 s"))
    let brief = walk(walkIn + Array(repeating: 0, count: 120) + Array(stride(from: 0.0, through: 1_000, by: 10)), accuracy: 10)
    #expect(try monitor(brief, [.circle(plaza)], .androidDocumented).1.map(\.kind) == [.enter, .exit])
    let unwanted = try monitor(walk(walkIn + Array(repeating: 0, count: 600)), [.circle(plaza)], .androidDocumented,
      notifications: [plaza.identifier: [.entry, .exit]]).1
    #expect(unwanted.map(\.kind) == [.enter, .dwell] && unwanted[1].deliveredAt == nil)
    #expect(try monitor(walk(walkIn + Array(repeating: 0, count: 600)), [.circle(plaza)], .iosDocumented).1.map(\.kind) == [.enter])
  }

  /// Already inside at the first fix: a delivered `state` (INITIAL_TRIGGER_ENTER), then a dwell.
  @Test func initialTriggerAndDwell() throws {
    let events = try monitor(walk(Array(repeating: 0, count: 400)), [.circle(plaza)], .androidDocumented).1
    #expect(events.map(\.kind) == [.state, .dwell])
    #expect(events[0].deliveredAt == 1_000_000 && events[0].state == .inside)
    #expect(events[1].crossedAt == 1_000_300)
  }

  /// Confirmed while stationary (a fix standing still after the crossing): 2 to 6 minutes late.
  @Test func stationaryDevicesGetLaterDeliveries() throws {
    let fixes = walk([400, 320, 200, 200, 200], interval: 10)
    for seed in UInt64(0)..<20 {
      let events = try monitor(fixes, [.circle(plaza)], .androidDocumented, seed: seed).1
      #expect(events.map(\.kind) == [.enter])
      // The 200 m fix after 320 m moves 12 m/s; confirmed there, so not stationary.
      let latency = try #require(events[0].deliveredAt) - fixes[2].time
      #expect(latency >= 0 && latency <= 120)
    }
    // Crossed at 60 s, 5 m inside with a 10 m disc (81 %, low confidence), confirmed by a fix
    // 5 m deeper a minute later: stationary.
    let slow = walk([400, 295, 290], interval: 60)
    let events = try monitor(slow, [.circle(plaza)], .androidDocumented).1
    #expect(events.map(\.kind) == [.enter])
    let latency = try #require(events[0].deliveredAt) - slow[2].time
    #expect(latency >= 120 && latency <= 360)
    #expect(events[0].reason.contains("stationary"))
  }

  @Test func capIsAHundredRegions() throws {
    let regions = try (0..<105).map { k in
      Region.circle(try CircularRegion(identifier: "r\(k)", center: offset(origin, Double(k) * 3, 5_000), radius: 100))
    }
    let (android, events) = try monitor(walk([0, 10]), regions, .androidDocumented)
    #expect(events.map(\.kind) == Array(repeating: .monitoringFailed, count: 5))
    #expect(android.monitoredRegions.count == 100)
  }

  /// Over random tracks with random accuracies: transitions alternate, a dwell only ever follows
  /// an entry (or a `state` inside) with no exit between, at least the loitering delay later, and
  /// every delivery comes after the crossing.
  @Test(arguments: [UInt64(11), 12, 13])
  func invariantsHoldOnRandomTracks(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let fixes = syntheticFixes(seed: seed, count: 3_000, interval: 5, center: origin).map { fix in
      var f = fix
      f.horizontalAccuracy = Double.random(in: 3...150, using: &random)
      return f
    }
    let regions = regionsAlong(fixes, seed: seed, count: 100, polygonFraction: 0.2)
    let (_, events) = try monitor(fixes, regions, .androidDocumented)
    #expect(events.contains { $0.kind == .enter } && events.contains { $0.kind == .dwell })
    #expect(transitionsAlternate(events))
    var insideSince: [RegionIdentifier: Double] = [:]
    for e in events {
      switch e.kind {
      case .enter: insideSince[e.region] = e.crossedAt
      case .state where e.state == .inside: insideSince[e.region] = e.crossedAt
      case .exit, .state: insideSince[e.region] = nil
      case .dwell:
        let since = try #require(insideSince[e.region])
        #expect(e.crossedAt - since >= 300)
        insideSince[e.region] = nil
      case .passThrough, .monitoringFailed: break
      }
      if let delivered = e.deliveredAt { #expect(delivered >= e.crossedAt) }
    }
  }
}
