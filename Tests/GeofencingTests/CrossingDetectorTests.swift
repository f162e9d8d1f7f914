import Geodesy
import Geofencing
import Testing
import _GeoWakeTestSupport

/// Fixes every `interval` seconds from a synthetic city track.
func syntheticFixes(seed: UInt64, count: Int, interval: Double, center: Coordinate) -> [LocationFix] {
  SyntheticTrack(seed: seed, count: count, center: center, halfSide: 3_000, interval: interval).map(\.fix)
}

/// Regions scattered along a track: circles of 5 m … 3 km and some polygons.
func regionsAlong(_ fixes: [LocationFix], seed: UInt64, count: Int, polygonFraction: Double) -> [Region] {
  var generator = SyntheticRegions(
    seed: seed, count: count, center: fixes[0].coordinate, radii: 5...3000, polygonFraction: polygonFraction)
  generator.count = count
  return generator.generate(near: stride(from: 0, to: fixes.count, by: 7).map { fixes[$0].coordinate })
}

func detect(_ fixes: [LocationFix], _ regions: [Region]) throws -> (CrossingDetector, [RegionCrossing]) {
  var detector = CrossingDetector(regions: RegionIndex(regions))
  var crossings: [RegionCrossing] = []
  try detector.process(fixes, into: &crossings)
  return (detector, crossings)
}

@Suite("Crossing detector")
struct CrossingDetectorTests {
  /// Crossing times agree with a dense-sampling reference within 1 ms (the reference samples every
  /// segment near a region at 1/40 of the smallest radius and bisects each change of state, with
  /// containment by geodesic distance and an even-odd rule of its own, not the index's).
  @Test(arguments: [(UInt64(1), 1.0), (2, 5.0), (3, 30.0)])
  func matchesDenseSamplingReference(seed: UInt64, interval: Double) throws {
    let center = try Coordinate(latitude: 37.77, longitude: -122.42)
    let fixes = syntheticFixes(seed: seed, count: 400, interval: interval, center: center)
    let regions = regionsAlong(fixes, seed: seed, count: 24, polygonFraction: 0.25)
    let (_, crossings) = try detect(fixes, regions)

    var reference: [BruteForceCrossings.Crossing] = []
    for region in regions {
      let radius: Double
      switch region {
      case .circle(let c): radius = c.radius
      case .polygon: radius = 2
      }
      // Containment from an independent oracle, not the index under test.
      let contains: (Region, Coordinate) -> Bool = { IndependentContainment.contains($0, $1) }
      // Sample every segment at 1/40 of the region's size (polygons: every 5 cm).
      for i in 1..<fixes.count {
        let length = Geodesic.wgs84.distance(from: fixes[i - 1].coordinate, to: fixes[i].coordinate)
        let samples = max(2, Int(length / (radius / 40)) + 1)
        reference += BruteForceCrossings.crossings(
          fixes: [fixes[i - 1], fixes[i]], regions: [region], samples: samples, contains: contains)
      }
    }
    reference.sort { ($0.region, $0.time) < ($1.region, $1.time) }
    let detected = crossings.sorted { ($0.region, $0.time) < ($1.region, $1.time) }
    #expect(detected.count == reference.count)
    #expect(detected.count > 10, "the scenario should cross boundaries")
    for (d, r) in zip(detected, reference) {
      #expect(d.region == r.region)
      #expect((d.direction == .enter) == r.enter, "\(d) vs \(r)")
      #expect(abs(d.time - r.time) <= 1e-3, "\(d) vs reference time \(r.time)")
    }
  }

  /// Property: per region, enter and exit strictly alternate, starting from the initial state,
  /// and end in the detector's final state.
  @Test(arguments: [UInt64(10), 11, 12, 13, 14, 15])
  func enterAndExitAlternate(seed: UInt64) throws {
    let center = try Coordinate(latitude: -33.86, longitude: 151.21)
    let interval = [1.0, 3, 10, 60, 120, 2][Int(seed % 6)]
    let fixes = syntheticFixes(seed: seed, count: 2_000, interval: interval, center: center)
    let regions = regionsAlong(fixes, seed: seed, count: 60, polygonFraction: 0.2)
    let (detector, crossings) = try detect(fixes, regions)
    let index = RegionIndex(regions)
    let initial = Set(index.regions(containing: fixes[0].coordinate))
    var inside = Dictionary(uniqueKeysWithValues: regions.map { ($0.identifier, initial.contains($0.identifier)) })
    for c in crossings {
      let was = try #require(inside[c.region] as Bool?)
      #expect(was == (c.direction == .exit), "\(c) breaks alternation")
      inside[c.region] = c.direction == .enter
      #expect(c.toFix == c.fromFix + 1)
      #expect(c.time >= fixes[c.fromFix].time && c.time <= fixes[c.toFix].time)
    }
    for region in regions {
      #expect(detector.isInside(region.identifier) == inside[region.identifier])
    }
    // The regions inside, listed from the detector's own state, in registration order.
    #expect(detector.insideRegions == regions.map(\.identifier).filter { inside[$0] == true })
    let final = Set(index.regions(containing: fixes[fixes.count - 1].coordinate))
    for region in regions { #expect(final.contains(region.identifier) == inside[region.identifier]) }
  }

  @Test func sparseFixesPassThroughASmallRegion() throws {
    let center = try Coordinate(latitude: 48.8584, longitude: 2.2945)
    let circle = try CircularRegion(identifier: "tower", center: center, radius: 20)
    let fixes = [
      LocationFix(time: 0, coordinate: center.moved(100, azimuth: 270)),
      LocationFix(time: 20, coordinate: center.moved(100, azimuth: 90)),
    ]
    let (_, crossings) = try detect(fixes, [.circle(circle)])
    #expect(crossings.map(\.direction) == [.enter, .exit])
    #expect(crossings.allSatisfy { $0.isPassThrough })
    // 200 m in 20 s through the centre: the boundary is 80 m and 120 m along, at 8 s and 12 s.
    #expect(abs(crossings[0].time - 8) < 0.01)
    #expect(abs(crossings[1].time - 12) < 0.01)
    #expect(abs(Geodesic.wgs84.distance(from: center, to: crossings[0].coordinate) - 20) < 0.01)
  }

  @Test func crossingTheAntimeridian() throws {
    let center = try Coordinate(latitude: -17.5, longitude: 179.9995)
    let circle = try CircularRegion(identifier: "fiji", center: center, radius: 100)
    let ring = try [(179.998, -17.51), (-179.998, -17.51), (-179.998, -17.49), (179.998, -17.49)].map {
      try Coordinate(latitude: $0.1, longitude: $0.0)
    }
    let square = try PolygonRegion(identifier: "square", exterior: ring)
    let fixes = try (0...20).map { i in
      LocationFix(time: Double(i), coordinate: try Coordinate(latitude: -17.5, longitude: 179.99 + Double(i) * 0.001))
    }
    let (_, crossings) = try detect(fixes, [.circle(circle), .polygon(square)])
    #expect(crossings.map { "\($0.direction) \($0.region)" } == ["enter square", "enter fiji", "exit fiji", "exit square"])
  }

  @Test func crossingOverThePole() throws {
    let circle = try CircularRegion(identifier: "pole", center: Coordinate(latitude: 90, longitude: 0), radius: 1000)
    // A straight line over the pole: up the 0° meridian, down the 180° one.
    var fixes: [LocationFix] = []
    for i in 0...10 { fixes.append(LocationFix(time: Double(i), coordinate: try Coordinate(latitude: 89.97 + Double(i) * 0.003, longitude: 0))) }
    for i in 1...10 { fixes.append(LocationFix(time: Double(10 + i), coordinate: try Coordinate(latitude: 90 - Double(i) * 0.003, longitude: 180))) }
    let (_, crossings) = try detect(fixes, [.circle(circle)])
    #expect(crossings.map(\.direction) == [.enter, .exit])
  }

  @Test func regionsChangeWhileTheStreamRuns() throws {
    let center = try Coordinate(latitude: 51.5007, longitude: -0.1246)
    var detector = CrossingDetector(regions: RegionIndex())
    var crossings: [RegionCrossing] = []
    func walk(_ metres: Double, at time: Double) throws {
      try detector.process(LocationFix(time: time, coordinate: center.moved(metres, azimuth: 90)), into: &crossings)
    }
    try walk(-300, at: 0)
    try detector.insert(.circle(CircularRegion(identifier: "ben", center: center, radius: 100)))
    try walk(0, at: 30)
    #expect(crossings.map(\.direction) == [.enter])
    // Replacing it with a larger circle keeps the state (inside); no event for the swap.
    try detector.insert(.circle(CircularRegion(identifier: "ben", center: center, radius: 500)))
    #expect(detector.regions.count == 1)
    try walk(200, at: 50)
    #expect(crossings.count == 1)
    try walk(600, at: 90)
    #expect(crossings.map(\.direction) == [.enter, .exit])
    let ben = try RegionIdentifier("ben")
    #expect(detector.remove(ben) != nil)
    try walk(0, at: 150)
    #expect(crossings.count == 2)
  }

  @Test func rejectsFixesOutOfTimeOrder() throws {
    var detector = CrossingDetector(regions: RegionIndex())
    var crossings: [RegionCrossing] = []
    let p = try Coordinate(latitude: 0, longitude: 0)
    try detector.process(LocationFix(time: 10, coordinate: p), into: &crossings)
    #expect(throws: CrossingDetectorError(fixIndex: 1, time: 5, reason: .outOfOrder(previousTime: 10))) {
      try detector.process(LocationFix(time: 5, coordinate: p), into: &crossings)
    }
    #expect(throws: CrossingDetectorError(fixIndex: 1, time: .nan, reason: .timeNotFinite)) {
      try detector.process(LocationFix(time: .nan, coordinate: p), into: &crossings)
    }
    #expect(detector.fixCount == 1)
  }
}

@Suite("Crossing detector consistency")
struct CrossingDetectorConsistencyTests {
  /// Property: the batch entry point, fix-by-fix processing and every grid level give the same
  /// crossings (the grid and the fast paths are optimisations, never a change of answer).
  @Test(arguments: [UInt64(21), 22, 23])
  func sameCrossingsWhateverTheEntryPointAndGrid(seed: UInt64) throws {
    let center = try Coordinate(latitude: 60.17, longitude: 24.94)
    let fixes = syntheticFixes(seed: seed, count: 3_000, interval: [1.0, 4, 15][Int(seed % 3)], center: center)
    let regions = regionsAlong(fixes, seed: seed, count: 80, polygonFraction: 0.15)
    let (_, batch) = try detect(fixes, regions)
    var one = CrossingDetector(regions: RegionIndex(regions))
    var single: [RegionCrossing] = []
    for fix in fixes { try one.process(fix, into: &single) }
    #expect(single == batch)
    #expect(batch.count > 20)
    for level in [8, 11, 14, 17] {
      var detector = CrossingDetector(regions: RegionIndex(regions, configuration: .init(gridLevel: level)))
      var crossings: [RegionCrossing] = []
      try detector.process(fixes, into: &crossings)
      #expect(crossings.map { "\($0.region) \($0.direction) \($0.fromFix)" } == batch.map { "\($0.region) \($0.direction) \($0.fromFix)" }, "grid level \(level)")
      for (a, b) in zip(crossings, batch) { #expect(abs(a.time - b.time) < 1e-5) }
    }
  }
}

/// The detector's state at every fix against the exact containment of every circle, on random
/// walks at the antimeridian, near both poles and on the prime meridian, at several grid levels
/// (the circle filter runs in each cell's own coordinates, with or without its quadratic map).
@Suite("Crossing detector anywhere on Earth")
struct CrossingDetectorAnywhereTests {
  static let places: [(latitude: Double, longitude: Double)] = [(0.3, 179.99), (89.5, 30), (-89.6, -120), (51.48, -0.001)]

  @Test(arguments: 0..<4)
  func statesAgreeWithExactContainmentAtEveryFix(place: Int) throws {
    var rng = SeededGenerator(seed: UInt64(40 + place))
    let (latitude, longitude) = Self.places[place]
    var position = try Coordinate(latitude: latitude, longitude: longitude)
    var azimuth = rng.uniform(0...360)
    var fixes: [LocationFix] = []
    for k in 0..<1_500 {
      fixes.append(LocationFix(time: 1_700_000_000 + Double(k), coordinate: position))
      azimuth += rng.uniform(-25...25)
      let step = k % 200 == 199 ? rng.uniform(300...900) : rng.uniform(3...40)
      position = try #require(Geodesic.wgs84.direct(from: position, azimuth: azimuth, distance: step)).destination
    }
    var circles: [CircularRegion] = []
    for i in 0..<150 {
      let near = fixes[Int(rng.uniform(0...Double(fixes.count) - 1e-9))].coordinate
      let radius = Double.exp(rng.uniform(Double.log(5)...Double.log(3_000)))
      let center = try #require(
        Geodesic.wgs84.direct(from: near, azimuth: rng.uniform(0...360), distance: rng.uniform(0...(1.3 * radius))))
      circles.append(try CircularRegion(identifier: RegionIdentifier("c\(i)"), center: center.destination, radius: radius))
    }
    let regions = circles.map(Region.circle)
    for level in [nil, 10, 14, 18] as [Int?] {
      var detector = CrossingDetector(regions: RegionIndex(regions, configuration: .init(gridLevel: level)))
      var crossings: [RegionCrossing] = []
      try detector.process(fixes, into: &crossings)
      var inside = Dictionary(uniqueKeysWithValues: circles.map { ($0.identifier, $0.contains(fixes[0].coordinate)) })
      var next = 0
      var mismatches = 0
      for k in 1..<fixes.count {
        while next < crossings.count && crossings[next].toFix == k {
          inside[crossings[next].region] = crossings[next].direction == .enter
          next += 1
        }
        for circle in circles where inside[circle.identifier] != circle.contains(fixes[k].coordinate) { mismatches += 1 }
      }
      #expect(mismatches == 0, "level \(level.map(String.init) ?? "auto"): \(mismatches) (fix, circle) states differ")
      #expect(crossings.count > 50, "the walk should cross boundaries")
    }
  }
}
