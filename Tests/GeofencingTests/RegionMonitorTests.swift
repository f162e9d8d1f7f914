import Geodesy
import Geofencing
import Testing
import _GeoWakeTestSupport

/// A point `distance` metres from `origin` towards `azimuth` degrees.
func offset(_ origin: Coordinate, _ azimuth: Double, _ distance: Double) -> Coordinate {
  Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: distance)!.destination
}

/// Runs a monitor over fixes, returning its events and the monitor.
func monitor(
  _ fixes: [LocationFix], _ regions: [Region], _ profile: RegionMonitoringProfile,
  notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0
) throws -> (RegionMonitor, [RegionEvent]) {
  var m = try RegionMonitor(regions: regions, profile: profile, notifications: notifications, seed: seed)
  var events: [RegionEvent] = []
  for fix in fixes { m.process(fix, into: &events) }
  m.finish(into: &events)
  return (m, events)
}

/// Per region, enters and exits alternate, starting from the region's initial state.
func transitionsAlternate(_ events: [RegionEvent]) -> Bool {
  var inside: [RegionIdentifier: Bool] = [:]
  for e in events {
    switch e.kind {
    case .state: inside[e.region] = e.state == .inside
    case .enter:
      if inside[e.region] == true { return false }
      inside[e.region] = true
    case .exit:
      if inside[e.region] != true { return false }
      inside[e.region] = false
    case .passThrough, .monitoringFailed, .dwell: break
    }
  }
  return true
}

let origin = try! Coordinate(latitude: 35.68, longitude: 139.76)
let plaza = try! CircularRegion(identifier: "plaza", center: origin, radius: 300)

/// Walks at `speed` m/s due north through `points` metres offsets from `origin`, one fix per
/// `interval` seconds, starting at time 1_000_000.
func walk(_ northOffsets: [Double], interval: Double = 1, accuracy: Double? = 10) -> [LocationFix] {
  northOffsets.enumerated().map { k, north in
    LocationFix(time: 1_000_000 + Double(k) * interval, coordinate: offset(origin, north >= 0 ? 0 : 180, abs(north)), horizontalAccuracy: accuracy)
  }
}

@Suite("Region monitor")
struct RegionMonitorTests {
  /// The server profile (without its gap limit) reports exactly the detector's crossings.
  @Test(arguments: [UInt64(4), 5])
  func serverIsTheGeometricTruth(seed: UInt64) throws {
    let fixes = syntheticFixes(seed: seed, count: 4_000, interval: 5, center: origin)
    let regions = regionsAlong(fixes, seed: seed, count: 300, polygonFraction: 0.2)
    let (_, crossings) = try detect(fixes, regions)
    var profile = RegionMonitoringProfile.server
    profile.gapLimit = .infinity
    let (_, events) = try monitor(fixes, regions, profile)
    let transitions = events.filter { $0.kind == .enter || $0.kind == .exit }
    let plain = crossings.filter { !$0.isPassThrough }
    #expect(!plain.isEmpty)
    #expect(transitions.map(\.region) == plain.map(\.region))
    #expect(transitions.map(\.crossedAt) == plain.map(\.time))
    #expect(transitions.map(\.kind.rawValue) == plain.map(\.direction.rawValue))
    #expect(events.filter { $0.kind == .passThrough }.count * 2 == crossings.count - plain.count)
    #expect(events.allSatisfy { $0.deliveredAt != nil })
    #expect(transitionsAlternate(events))
  }

  /// GPS noise at a boundary (Tile38 #816, Traccar #2189): the server sees every wobble, iOS one
  /// enter and one exit, at the crossings that led somewhere.
  @Test func noiseAtTheBoundaryDoesNotFlap() throws {
    var north: [Double] = Array(stride(from: 1_000.0, to: 300, by: -5))  // approach from the north
    for k in 0..<300 { north.append(300 + (k % 2 == 0 ? 15 : -15)) }  // dither ±15 m for 5 min
    north += Array(stride(from: 300.0, to: 0, by: -5)) + Array(repeating: 0, count: 60)  // walk in, stay
    north += Array(stride(from: 0.0, to: 1_000, by: 5))  // leave
    let fixes = walk(north)
    let (_, server) = try monitor(fixes, [.circle(plaza)], .server)
    let (ios, events) = try monitor(fixes, [.circle(plaza)], .iosDocumented)
    #expect(server.filter { $0.kind == .enter }.count > 100)
    #expect(events.map(\.kind) == [.enter, .exit])
    #expect(ios.suppressedFlaps[plaza.identifier, default: 0] > 100)
    #expect(transitionsAlternate(events) && transitionsAlternate(server))
    // The enter is the last inward crossing; confirmation waited for 150 m depth (half the
    // radius) and 20 s; delivery 3–5 min later.
    let enter = events[0]
    let lastInward = try #require(server.last { $0.kind == .enter })
    #expect(enter.crossedAt == lastInward.crossedAt)
    let delivered = try #require(enter.deliveredAt)
    #expect(delivered - enter.crossedAt >= 30 + 20 + 180 && delivered - enter.crossedAt <= 60 + 20 + 300)
    #expect(enter.reason.contains("needed 150 m"))
    var activity = RegionActivity()
    events.forEach { activity.add($0) }
    activity.finish(at: fixes.last!.time)
    let totals = try #require(activity.totals[plaza.identifier])
    #expect(totals.enters == 1 && totals.exits == 1 && totals.undelivered == 0)
    #expect(totals.timeInside == events[1].crossedAt - events[0].crossedAt)
  }

  /// Sparse fixes (Traccar #3779): a 100 m region between two fixes 5 minutes apart is a
  /// pass-through; the server reports it, iOS does not and says why.
  @Test func sparseFixesPassThroughASmallRegion() throws {
    let kiosk = try CircularRegion(identifier: "kiosk", center: offset(origin, 0, 2_000), radius: 100)
    let fixes = walk([0, 4_000], interval: 300)
    let (_, server) = try monitor(fixes, [.circle(kiosk)], .server)
    let (_, ios) = try monitor(fixes, [.circle(kiosk)], .iosDocumented)
    #expect(server.map(\.kind) == [.passThrough])
    #expect(server[0].deliveredAt == fixes[1].time)
    #expect(abs(server[0].crossedAt - (1_000_000 + 300 * 1_900 / 4_000)) < 0.5)
    #expect(ios.map(\.kind) == [.passThrough])
    #expect(ios[0].deliveredAt == nil)
    #expect(ios[0].reason.contains("ios-documented would not have seen it"))
  }

  /// One wild fix (transistorsoft #892) does not fire an exit on iOS; an inaccurate one is rejected.
  @Test func oneWildFixIsNotAnExit() throws {
    var fixes = walk(Array(repeating: 0, count: 600))
    fixes[300].coordinate = offset(origin, 90, 3_000)
    fixes[400].coordinate = offset(origin, 90, 3_000)
    fixes[400].horizontalAccuracy = 2_500
    let (server, serverEvents) = try monitor(fixes, [.circle(plaza)], .server)
    let (ios, events) = try monitor(fixes, [.circle(plaza)], .iosDocumented)
    #expect(serverEvents.map(\.kind) == [.state, .exit, .enter, .exit, .enter])
    #expect(server.rejections.isEmpty)
    #expect(events.map(\.kind) == [.state])
    #expect(events[0].deliveredAt == nil && events[0].state == .inside)
    #expect(ios.rejections == ["accuracy worse than the limit": 1])
    #expect(ios.suppressedFlaps[plaza.identifier] == 1)
    #expect(ios.state(of: plaza.identifier) == .inside)
  }

  /// OwnTracks iOS #718: past the cap, regions fail loudly, not silently.
  @Test func regionsPastTheCapFailLoudly() throws {
    let regions = try (0..<25).map { k in
      Region.circle(try CircularRegion(identifier: "r\(k)", center: offset(origin, Double(k) * 14, 5_000), radius: 100))
    }
    let fixes = walk([0, 10])
    let (ios, events) = try monitor(fixes, regions, .iosDocumented)
    #expect(events.map(\.kind) == Array(repeating: .monitoringFailed, count: 5))
    #expect(events.map(\.region.rawValue) == ["r20", "r21", "r22", "r23", "r24"])
    #expect(events[0].reason.contains("at most 20 regions"))
    #expect(ios.monitoredRegions.count == 20 && ios.failedRegions.count == 5)
    #expect(try monitor(fixes, regions, .server).1.isEmpty)
  }

  @Test func notifyOnExitOffKeepsTheExitUndelivered() throws {
    let fixes = walk(Array(stride(from: 0.0, to: 1_000, by: 5)))
    let (_, events) = try monitor(fixes, [.circle(plaza)], .iosDocumented, notifications: [plaza.identifier: .entry])
    #expect(events.map(\.kind) == [.state, .exit])
    #expect(events[1].deliveredAt == nil)
    #expect(events[1].reason.hasSuffix("not delivered: notifyOnExit is off"))
  }

  /// A gap longer than the limit turns a crossing into a `state` event, never an enter.
  @Test func aLongGapGivesAStateEvent() throws {
    let fixes = walk([2_000, 1_990, 0, 5], interval: 900)
    let (_, events) = try monitor(fixes, [.circle(plaza)], .server)
    #expect(events.map(\.kind) == [.state])
    #expect(events[0].state == .inside && events[0].crossedAt == fixes[2].time)
    #expect(events[0].reason.contains("after 900 s without fixes"))
    var m = try RegionMonitor(regions: [.circle(plaza)], profile: .server)
    #expect(m.state(of: plaza.identifier) == .unknown)
    var ignored: [RegionEvent] = []
    m.process(fixes[2], into: &ignored)
    #expect(m.state(of: plaza.identifier) == .unknown)  // held for the server's 30 s reorder window
    m.finish(into: &ignored)
    #expect(m.state(of: plaza.identifier, at: fixes[2].time + 600) == .inside)
    #expect(m.state(of: plaza.identifier, at: fixes[2].time + 601) == .unknown)
  }

  /// iOS has no reorder window: a fix earlier than its predecessor is rejected, and counted.
  @Test func outOfOrderFixesAreRejectedAndCounted() throws {
    var m = try RegionMonitor(regions: [.circle(plaza)], profile: .iosDocumented)
    var events: [RegionEvent] = []
    let fixes = walk([0, 1, 2])
    #expect(m.process(fixes[1], into: &events) == nil)
    #expect(m.process(fixes[0], into: &events) == .outOfOrder(previousTime: fixes[1].time, window: 0))
    #expect(m.process(fixes[2], into: &events) == nil)
    #expect(m.rejections == ["out of time order": 1] && m.fixCount == 2)
  }

  /// The server puts fixes up to 30 s late back in place: the same events as in order.
  @Test func serverReordersLateFixesWithinItsWindow() throws {
    let fixes = walk(Array(stride(from: 1_000.0, to: -1_000, by: -5)), interval: 2)
    var shuffled = fixes
    for k in stride(from: 0, to: shuffled.count - 10, by: 10) { shuffled[k..<(k + 10)].reverse() }  // up to 18 s late
    let (inOrder, expected) = try monitor(fixes, [.circle(plaza)], .server)
    let (reordered, events) = try monitor(shuffled, [.circle(plaza)], .server)
    #expect(events == expected && expected.map(\.kind) == [.enter, .exit])
    #expect(reordered.reorderedFixCount > 0 && inOrder.reorderedFixCount == 0)
    #expect(reordered.rejections.isEmpty && reordered.fixCount == fixes.count)
    // Beyond the window: refused, and said so.
    var m = try RegionMonitor(regions: [.circle(plaza)], profile: .server)
    var ignored: [RegionEvent] = []
    m.process(fixes[20], into: &ignored)
    #expect(m.process(fixes[0], into: &ignored) == .outOfOrder(previousTime: fixes[20].time, window: 30))
  }

  @Test func reorderBufferReleasesInTimeOrder() throws {
    var buffer = try FixReorderBuffer(window: 10)
    var ready: [LocationFix] = []
    let times: [Double] = [0, 5, 3, 12, 11, 30, 2]
    let accepted = times.map { buffer.add(LocationFix(time: $0, coordinate: origin), into: &ready) }
    buffer.flush(into: &ready)
    #expect(accepted == [true, true, true, true, true, true, false])
    #expect(ready.map(\.time) == [0, 3, 5, 11, 12, 30])
    #expect(buffer.reorderedCount == 2)
  }

  @Test(arguments: [-1, .nan, .infinity] as [Double])
  func anInvalidReorderWindowIsAnError(window: Double) {
    #expect(throws: FixReorderBuffer.InvalidWindow.self) { try FixReorderBuffer(window: window) }
  }

  /// Property: over long jittered streams (held fixes are reclaimed many times over), the buffer
  /// releases exactly what a reference releases: the accepted fixes stably sorted by time, each
  /// refused fix being one more than `window` older than the newest or older than one released.
  @Test(arguments: [0.0, 3, 30])
  func reorderBufferMatchesReference(window: Double) throws {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ window.bitPattern
    func random() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) * 0x1p-53
    }
    var buffer = try FixReorderBuffer(window: window)
    var ready: [LocationFix] = []
    var accepted: [LocationFix] = []
    var released: [LocationFix] = []
    var newest = -Double.infinity
    for k in 0..<5_000 {
      // Mostly in order, one in five up to 40 s late, with repeated times.
      let time = (Double(k) - (random() < 0.2 ? random() * 40 : 0)).rounded()
      let fix = LocationFix(time: time, coordinate: origin.moved(Double(k), azimuth: 0))
      ready.removeAll()
      let expected = time >= newest - window && time >= (released.last?.time ?? -.infinity)
      #expect(buffer.add(fix, into: &ready) == expected)
      if expected {
        accepted.append(fix)
        newest = max(newest, time)
      }
      released += ready
      // Whatever is released is final: nothing accepted later may come before it.
      #expect(ready.allSatisfy { newest - $0.time >= window })
    }
    ready.removeAll()
    buffer.flush(into: &ready)
    released += ready
    let reference = accepted.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
    #expect(released == reference.map(\.element))
  }

  /// Same inputs, same events; another seed moves only the delivery times, within the range.
  @Test func latenciesAreSeededAndInRange() throws {
    let fixes = walk(Array(stride(from: 1_000.0, to: -1_000, by: -5)))
    let a = try monitor(fixes, [.circle(plaza)], .iosDocumented, seed: 1).1
    let b = try monitor(fixes, [.circle(plaza)], .iosDocumented, seed: 1).1
    let c = try monitor(fixes, [.circle(plaza)], .iosDocumented, seed: 2).1
    #expect(a == b)
    #expect(a.map(\.crossedAt) == c.map(\.crossedAt))
    #expect(a.map(\.deliveredAt) != c.map(\.deliveredAt))
    #expect(a.map(\.kind) == [.enter, .exit])
    for e in a + c {
      let confirmation = try #require(e.deliveredAt) - 180
      #expect(confirmation >= e.crossedAt && e.deliveredAt! <= e.crossedAt + 300 + 60)
    }
  }
}

@Suite struct RegionMonitoringProfileValidationTests {
  @Test func outOfRangeFieldsAreThrownNamingTheField() throws {
    var profile = RegionMonitoringProfile.ios
    profile.reorderWindow = -1
    #expect(
      throws: RegionMonitoringProfile.InvalidValue(
        profile: "ios", field: "reorderWindow", value: "-1.0", expected: "a finite number ≥ 0")
    ) { try RegionMonitor(regions: [], profile: profile) }
    profile = .android
    profile.accuracyOverlap?.exitRatio = 1.5
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try RegionMonitor(regions: [], profile: profile) }
    profile = .server
    profile.deliveryLatency = .uniform(0...Double.infinity)
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try profile.validate() }
    profile.deliveryLatency = .logNormal(median: 30, sigma: 1, maximum: 10)
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try profile.validate() }
    profile = .server
    profile.triggerDepth = .fixed(-5)
    #expect(
      throws: RegionMonitoringProfile.InvalidValue(
        profile: "server", field: "triggerDepth", value: "-5", expected: "finite values ≥ 0")
    ) { try profile.validate() }
  }

  @Test(arguments: RegionMonitoringProfile.named.values.sorted { $0.name < $1.name })
  func builtInProfilesAreValid(_ profile: RegionMonitoringProfile) throws {
    try profile.validate()
  }
}

@Suite struct InvalidAccuracyTests {
  @Test(arguments: [Double.nan, -1, .infinity])
  func invalidAccuracyIsRejectedAndChangesNothing(_ accuracy: Double) throws {
    let center = try Coordinate(latitude: 48.85, longitude: 2.35)
    let region = Region.circle(try CircularRegion(identifier: "c", center: center, radius: 100))
    let walk = (0..<80).map { k in
      LocationFix(time: Double(k) * 30, coordinate: offset(center, 90, -1_000 + Double(k) * 25), horizontalAccuracy: 10)
    }
    // The same walk with an invalid fix after every valid one, each placed far away.
    var mixed: [LocationFix] = []
    for fix in walk {
      mixed.append(fix)
      mixed.append(LocationFix(time: fix.time + 1, coordinate: offset(center, 0, 5_000), horizontalAccuracy: accuracy))
    }
    for profile in RegionMonitoringProfile.named.values.sorted(by: { $0.name < $1.name }) {
      var m = try RegionMonitor(regions: [region], profile: profile)
      var events: [RegionEvent] = []
      var rejected = 0
      for fix in mixed {
        if let why = m.process(fix, into: &events) {
          #expect(why == .accuracyInvalid(accuracy: fix.horizontalAccuracy!) || accuracy.isNaN, "\(why)")
          #expect(why.cause == "accuracy invalid")
          rejected += 1
        }
      }
      m.finish(into: &events)
      #expect(rejected == walk.count)
      let (_, clean) = try monitor(walk, [region], profile)
      #expect(events.map(\.kind) == clean.map(\.kind), "\(profile.name)")
      #expect(events.contains { $0.kind == .enter } && events.contains { $0.kind == .exit }, "\(profile.name) \(events.map(\.kind))")
    }
  }
}

@Suite struct RegionEventCauseTests {
  /// Over random walks through random circles under every profile: every event's typed cause
  /// matches its kind, fix numbers are ordered, and an event is withheld exactly when undelivered.
  @Test(arguments: [11, 12, 13] as [UInt64])
  func causesMatchKindsAndDelivery(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let origin = try Coordinate(latitude: 35.68, longitude: 139.76)
    let regions: [Region] = try (0..<25).map { k in
      .circle(try CircularRegion(
        identifier: RegionIdentifier("r\(k)"), center: offset(origin, rng.uniform(0...360), rng.uniform(0...2_000)),
        radius: rng.uniform(50...400)))
    }
    var position = origin
    var fixes: [LocationFix] = []
    var time = 1_700_000_000.0
    for _ in 0..<600 {
      position = offset(position, rng.uniform(0...360), rng.uniform(0...60))
      time += rng.uniform(1...40) + (rng.uniform(0...1) < 0.01 ? 1_200 : 0)
      fixes.append(LocationFix(time: time, coordinate: position, horizontalAccuracy: rng.uniform(5...60)))
    }
    let notifications: [RegionIdentifier: RegionNotifications] = [try RegionIdentifier("r1"): [.exit], try RegionIdentifier("r2"): []]
    for profile in RegionMonitoringProfile.named.values.sorted(by: { $0.name < $1.name }) {
      let (_, events) = try monitor(fixes, regions, profile, notifications: notifications, seed: seed)
      #expect(!events.isEmpty)
      for e in events {
        #expect((e.withheld == nil) == (e.deliveredAt != nil), "\(e)")
        switch (e.kind, e.cause) {
        case (.enter, .crossingConfirmed(let from, let to, let by)), (.exit, .crossingConfirmed(let from, let to, let by)):
          #expect(from < to && to <= by && by < fixes.count, "\(e)")
          if e.withheld != nil { #expect(e.withheld == .notRequested || (e.withheld == .missed && profile.reportingRate != nil)) }
        case (.enter, .leadReached(let at, let by)), (.exit, .leadReached(let at, let by)):
          #expect(profile.entryLead != nil && at <= by && by < fixes.count, "\(e)")
          if e.withheld != nil { #expect(e.withheld == .notRequested || (e.withheld == .missed && profile.reportingRate != nil)) }
        case (.state, .initialState), (.state, .stateRegained): break
        case (.passThrough, .passedThrough(let from, let to)): #expect(from < to, "\(e)")
        case (.dwell, .loiteringDelayElapsed): break
        case (.monitoringFailed, .regionCapExceeded(let limit)): #expect(limit == profile.maximumRegions)
        default: Issue.record("cause \(e.cause) for a \(e.kind) event")
        }
      }
    }
  }
}
