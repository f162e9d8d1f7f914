import Geodesy
import Geofencing
import SeededRandom
import Testing

/// The detector's polygon states at every fix against the polygons' own containment, where
/// boundaries are dense: 160 polygons (8–64 vertices, some with holes, some in two parts)
/// packed around a random walk, so that a grid cell holds thousands of edges and most steps pass
/// near one. The walk mixes short steps, long jumps and fixes put exactly on vertices, on the
/// midpoints of edges and back on the previous fix, at the antimeridian, near a pole and on the
/// prime meridian, at several grid levels.
@Suite("Crossing detector among dense polygons")
struct CrossingDetectorPolygonTests {
  static let places: [(latitude: Double, longitude: Double)] = [(0.2, 179.995), (88.7, 40), (-33.9, 18.4), (51.48, -0.002)]

  /// A star-shaped ring of `count` vertices at distances `radii` (metres) around `centre`,
  /// counter-clockwise unless `clockwise`, through the geodesic direct problem (so a ring near a
  /// pole or across the antimeridian has its real shape).
  static func ring(
    _ rng: inout SeededGenerator, around centre: Coordinate, count: Int, radii: ClosedRange<Double>, clockwise: Bool
  ) throws -> [Coordinate] {
    try (0..<count).map { k in
      let turn = (Double(k) + rng.uniform(0...0.8)) / Double(count) * 360
      let azimuth = clockwise ? turn : 360 - turn
      return try #require(Geodesic.wgs84.direct(from: centre, azimuth: azimuth, distance: rng.uniform(radii))).destination
    }
  }

  static func polygons(near fixes: [LocationFix], count: Int, _ rng: inout SeededGenerator) throws -> [PolygonRegion] {
    var regions: [PolygonRegion] = []
    for i in 0..<count {
      let near = fixes[Int(rng.uniform(0...Double(fixes.count) - 1e-9))].coordinate
      let radius = Double.exp(rng.uniform(Double.log(15)...Double.log(1_500)))
      let centre = try #require(
        Geodesic.wgs84.direct(from: near, azimuth: rng.uniform(0...360), distance: rng.uniform(0...(1.2 * radius))))
        .destination
      var parts: [PolygonRegion.Polygon] = []
      for part in 0..<(i % 7 == 0 ? 2 : 1) {
        let c =
          part == 0 ? centre : try #require(Geodesic.wgs84.direct(from: centre, azimuth: 90, distance: 2.6 * radius)).destination
        let exterior = try ring(&rng, around: c, count: 8 + Int(rng.next() % 57), radii: 0.8 * radius...radius, clockwise: false)
        let holes = i % 5 == 0 ? [try ring(&rng, around: c, count: 5, radii: 0.2 * radius...0.35 * radius, clockwise: true)] : []
        parts.append(PolygonRegion.Polygon(exterior: exterior, holes: holes))
      }
      regions.append(try PolygonRegion(identifier: RegionIdentifier("p\(i)"), polygons: parts))
    }
    return regions
  }

  /// A walk of `count` fixes a second apart from `start`: steps of `steps` metres (1–25 m), a
  /// jump of 200–900 m every 150 fixes, and now and then a fix exactly on a vertex of a polygon,
  /// on the midpoint of one of its edges in latitude and longitude, or repeated.
  static func walk(
    from start: Coordinate, count: Int, polygons: [PolygonRegion], steps: ClosedRange<Double> = 1...25,
    _ rng: inout SeededGenerator
  ) throws -> [LocationFix] {
    var position = start
    var azimuth = rng.uniform(0...360)
    var fixes: [LocationFix] = []
    for k in 0..<count {
      fixes.append(LocationFix(time: 1_700_000_000 + Double(k), coordinate: position))
      azimuth += rng.uniform(-30...30)
      switch polygons.isEmpty ? 0 : k % 97 {
      case 40:
        // Onto a vertex of a polygon near the track, then on from there.
        let ring = polygons[Int(rng.next() % UInt64(polygons.count))].polygons[0].exterior
        position = ring[Int(rng.next() % UInt64(ring.count))]
      case 70:
        let ring = polygons[Int(rng.next() % UInt64(polygons.count))].polygons[0].exterior
        let j = Int(rng.next() % UInt64(ring.count))
        let (a, b) = (ring[j], ring[(j + 1) % ring.count])
        if abs(a.longitude - b.longitude) < 180 {
          position = try Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2)
        }
      case 85:
        break  // the same position again
      default:
        let step = k % 150 == 149 ? rng.uniform(200...900) : rng.uniform(steps)
        position = try #require(Geodesic.wgs84.direct(from: position, azimuth: azimuth, distance: step)).destination
      }
    }
    return fixes
  }

  /// `count` polygons along a first walk from place `place`, then a walk of `fixes` fixes through
  /// them: the one that is checked.
  static func scene(
    place: Int, polygons count: Int, fixes: Int, steps: ClosedRange<Double> = 1...25, _ rng: inout SeededGenerator
  ) throws -> (polygons: [PolygonRegion], fixes: [LocationFix]) {
    let (latitude, longitude) = places[place]
    let start = try Coordinate(latitude: latitude, longitude: longitude)
    let scout = try walk(from: start, count: 600, polygons: [], steps: steps, &rng)
    let polygons = try Self.polygons(near: scout, count: count, &rng)
    return (polygons, try walk(from: start, count: fixes, polygons: polygons, steps: steps, &rng))
  }

  /// Where `crossings` (over the fixes whose containment in each of `polygons` is `truth`) leave a
  /// polygon's state other than its containment at a fix, or enter or exit it twice in a row.
  static func mismatches(
    _ crossings: [RegionCrossing], polygons: [PolygonRegion], truth: [[Bool]]
  ) -> [String] {
    var inside = Dictionary(uniqueKeysWithValues: zip(polygons.map(\.identifier), truth[0]))
    var next = 0
    var mismatches: [String] = []
    for k in 1..<truth.count {
      while next < crossings.count && crossings[next].toFix == k {
        let c = crossings[next]
        if (c.direction == .enter) == inside[c.region] {
          mismatches.append("\(c.region) \(c.direction) twice at fix \(k)")
        }
        inside[c.region] = c.direction == .enter
        next += 1
      }
      for (p, polygon) in polygons.enumerated() where inside[polygon.identifier] != truth[k][p] {
        mismatches.append("\(polygon.identifier) at fix \(k)")
      }
    }
    return mismatches
  }

  /// A device reporting now and then, as a fleet's do: steps of 150–1,500 m among the dense
  /// polygons, so that most steps move to another grid cell (a neighbour, or one across a
  /// corner) or cross many sub-cells, and many cross several boundaries at once. At every fix
  /// the states equal containment, at every grid level, and the levels and fix-by-fix processing
  /// give the same crossings.
  @Test(arguments: 0..<4)
  func longStepsAgreeWithContainmentAtEveryFix(place: Int) throws {
    var rng = SeededGenerator(seed: UInt64(170 + place))
    let (latitude, longitude) = Self.places[place]
    // The polygons along the walk itself (a second walk of such steps soon leaves the first), and
    // every 50th fix put on a vertex of one of them: a jump across many cells.
    let start = try Coordinate(latitude: latitude, longitude: longitude)
    var fixes = try Self.walk(from: start, count: 600, polygons: [], steps: 150...1_500, &rng)
    let polygons = try Self.polygons(near: fixes, count: 400, &rng)
    for k in stride(from: 50, to: fixes.count, by: 50) {
      let ring = polygons[Int(rng.next() % UInt64(polygons.count))].polygons[0].exterior
      fixes[k] = LocationFix(time: fixes[k].time, coordinate: ring[Int(rng.next() % UInt64(ring.count))])
    }
    try Self.checkAcrossLevels(polygons, fixes, levels: [nil, 11, 13, 15, 17], least: 500)
  }

  /// The detector over `polygons` at each grid level of `levels` (the first `nil`, the index's
  /// own): at every fix the states equal containment, at least `least` crossings, the same
  /// crossings (region, direction, step) at every level, and at the first level fix-by-fix
  /// processing gives the batch's crossings exactly.
  static func checkAcrossLevels(
    _ polygons: [PolygonRegion], _ fixes: [LocationFix], levels: [Int?], least: Int
  ) throws {
    let regions = polygons.map(Region.polygon)
    let truth = fixes.map { fix in polygons.map { $0.contains(fix.coordinate) } }
    let described = { (c: RegionCrossing) in "\(c.region) \(c.direction) \(c.fromFix)" }
    var first: [RegionCrossing]?
    for level in levels {
      var detector = CrossingDetector(regions: RegionIndex(regions, configuration: .init(gridLevel: level)))
      var crossings: [RegionCrossing] = []
      try detector.process(fixes, into: &crossings)
      let wrong = Self.mismatches(crossings, polygons: polygons, truth: truth)
      let name = level.map(String.init) ?? "auto"
      #expect(wrong.isEmpty, "level \(name): \(wrong.count) (fix, polygon) states differ, first \(wrong.prefix(3))")
      #expect(crossings.count > least, "the walk should cross boundaries")
      if let first {
        #expect(crossings.map(described) == first.map(described), "level \(name)")
      } else {
        first = crossings
        var one = CrossingDetector(regions: RegionIndex(regions, configuration: .init(gridLevel: level)))
        var single: [RegionCrossing] = []
        for fix in fixes { try one.process(fix, into: &single) }
        #expect(single == crossings)
      }
    }
  }

  @Test(arguments: 0..<4)
  func statesAgreeWithContainmentAtEveryFix(place: Int) throws {
    var rng = SeededGenerator(seed: UInt64(70 + place))
    let (polygons, fixes) = try Self.scene(place: place, polygons: 160, fixes: 1_500, &rng)
    try Self.checkAcrossLevels(polygons, fixes, levels: [nil, 10, 16], least: 100)
  }

  /// Steps from a grid cell into the one across its corner, among polygons whose edges pass
  /// through all four cells there: through the corner exactly and within 10⁻¹⁰ degrees of it (so
  /// that both corner cells lie on the step), and a little to either side. At every fix the
  /// states equal containment, the crossings are those of a coarser grid, where the steps stay
  /// within one cell, and they do not depend on which cells other devices over the set prepared.
  @Test(arguments: 0..<3)
  func stepsAcrossACellCornerAgreeWithContainment(seed: Int) throws {
    var rng = SeededGenerator(seed: UInt64(260 + seed))
    let level = 14
    let size = 180.0 / Double(1 << level)
    // An odd row and column: a corner of this level's grid only, not of the coarser one.
    let cornerY = Double(2 * Int((37.75 + 90) / size / 2) + 1) * size - 90
    let cornerX = Double(2 * Int((-122.41 + 180) / size / 2) + 1) * size - 180
    let corner = try Coordinate(latitude: cornerY, longitude: cornerX)
    let around = try (0..<40).map { _ in
      LocationFix(
        time: 0,
        coordinate: try #require(
          Geodesic.wgs84.direct(from: corner, azimuth: rng.uniform(0...360), distance: rng.uniform(0...600)))
          .destination)
    }
    let polygons = try Self.polygons(near: around, count: 30, &rng)
    var fixes: [LocationFix] = []
    func add(_ latitude: Double, _ longitude: Double) throws {
      let coordinate = try Coordinate(latitude: latitude, longitude: longitude)
      fixes.append(LocationFix(time: 1_700_000_000 + Double(fixes.count), coordinate: coordinate))
    }
    for k in 0..<300 {
      let north = rng.uniform(0.05...0.9) * size
      let east = rng.uniform(0.05...0.9) * size
      // Through the corner, by a hair beside it, or well beside it.
      let miss = [0, 1e-10, -1e-10, 0.2 * size, -0.2 * size][k % 5]
      let (sy, sx) = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)][Int(rng.next() % 4)]
      try add(cornerY - sy * north + miss, cornerX - sx * east)
      try add(cornerY + sy * north + miss, cornerX + sx * east)
    }
    let regions = polygons.map(Region.polygon)
    let truth = fixes.map { fix in polygons.map { $0.contains(fix.coordinate) } }
    var fine = CrossingDetector(regions: RegionIndex(regions, configuration: .init(gridLevel: level)))
    var crossings: [RegionCrossing] = []
    try fine.process(fixes, into: &crossings)
    let wrong = Self.mismatches(crossings, polygons: polygons, truth: truth)
    #expect(wrong.isEmpty, "\(wrong.count), first \(wrong.prefix(3))")
    #expect(crossings.count > 500, "the steps should cross many boundaries")
    var coarse = CrossingDetector(regions: RegionIndex(regions, configuration: .init(gridLevel: level - 3)))
    var reference: [RegionCrossing] = []
    try coarse.process(fixes, into: &reference)
    let described = { (c: RegionCrossing) in "\(c.region) \(c.direction) \(c.fromFix)" }
    #expect(crossings.map(described) == reference.map(described))
    // Over a set whose four cells another device has prepared: the same crossings, exactly.
    let shared = RegionSet(regions, configuration: .init(gridLevel: level))
    var other = CrossingDetector(regions: shared)
    var ignored: [RegionCrossing] = []
    for (k, (dy, dx)) in [(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5), (0.5, -0.5)].enumerated() {
      let centre = try Coordinate(latitude: cornerY + dy * size, longitude: cornerX + dx * size)
      try other.process(LocationFix(time: Double(k), coordinate: centre), into: &ignored)
    }
    var warm = CrossingDetector(regions: shared)
    var again: [RegionCrossing] = []
    try warm.process(fixes, into: &again)
    #expect(again == crossings)
  }

  /// Among polygons only (the cell's edges walk the fixes), the batch entry point stops at the
  /// first unusable fix — time going back, time not finite — having processed exactly the fixes
  /// before it, and goes on from the fix after it as fix-by-fix processing does: same crossings,
  /// same errors at the same fix indices.
  @Test(arguments: 0..<4)
  func batchStopsAtUnusableFixesAsFixByFixDoes(place: Int) throws {
    var rng = SeededGenerator(seed: UInt64(170 + place))
    let scene = try Self.scene(place: place, polygons: 120, fixes: 1_200, &rng)
    let polygons = scene.polygons
    var fixes = scene.fixes
    let bad = [300 + Int(rng.next() % 200), 700 + Int(rng.next() % 200), 1_000]
    fixes[bad[0]].time = fixes[bad[0] - 1].time - 0.5
    fixes[bad[1]].time = .nan
    fixes[bad[2]].time = .infinity
    let regions = RegionSet(RegionIndex(polygons.map(Region.polygon)))

    var one = CrossingDetector(regions: regions)
    var single: [RegionCrossing] = []
    var singleErrors: [Int] = []
    for fix in fixes {
      do throws(CrossingDetectorError) {
        try one.process(fix, into: &single)
      } catch {
        singleErrors.append(error.fixIndex)
      }
    }
    var batch = CrossingDetector(regions: regions)
    var crossings: [RegionCrossing] = []
    var batchErrors: [Int] = []
    var from = 0
    while from < fixes.count {
      let processed = batch.fixCount
      do throws(CrossingDetectorError) {
        try batch.process(fixes[from...], into: &crossings)
        from = fixes.count
      } catch {
        batchErrors.append(error.fixIndex)
        // The fixes before the unusable one were processed: go on after it.
        from += error.fixIndex - processed + 1
      }
    }
    #expect(singleErrors == [bad[0], bad[1] - 1, bad[2] - 2])
    #expect(batchErrors == singleErrors)
    #expect(crossings == single)
    #expect(crossings.count > 50, "the walk should cross boundaries")
  }

  /// Many edges at one step: a fan of thin triangles sharing an apex, and passes through the apex
  /// or close beside it, so that the side test keeps a dozen or more edges at once (lines through
  /// the apex all separate the ends of such a step) and an edge is listed in both sub-cells of a
  /// step that changes sub-cell. Every fix's states equal the triangles' containment, and the
  /// batch entry point (the cell's edges walk the fixes) gives what fix-by-fix processing gives.
  @Test(arguments: 0..<3)
  func stepsNearManyEdgesAtOnceAgreeWithContainment(seed: Int) throws {
    var rng = SeededGenerator(seed: UInt64(270 + seed))
    let apex = try Coordinate(latitude: 47.37 + Double(seed) * 0.01, longitude: 8.54 - Double(seed) * 0.02)
    let triangles = try (0..<24).map { k in
      let azimuth = Double(k) * 15 + rng.uniform(0...3)
      let left = try #require(Geodesic.wgs84.direct(from: apex, azimuth: azimuth, distance: rng.uniform(200...400)))
      let right = try #require(
        Geodesic.wgs84.direct(from: apex, azimuth: azimuth + 9, distance: rng.uniform(200...400)))
      return try PolygonRegion(
        identifier: RegionIdentifier("t\(k)"), exterior: [apex, right.destination, left.destination])
    }
    // Passes along random lines within 3 m of the apex (some through it exactly), 40 m each way,
    // in steps of 4–12 m; the next pass starts where it starts (a step of up to 80 m).
    var fixes: [LocationFix] = []
    for pass in 0..<60 {
      let azimuth = rng.uniform(0...360)
      let offset = pass % 10 == 0 ? 0 : rng.uniform(-3...3)
      let beside = try #require(Geodesic.wgs84.direct(from: apex, azimuth: azimuth + 90, distance: offset)).destination
      var along = -40.0
      while along <= 40 {
        let point = try #require(
          Geodesic.wgs84.direct(from: beside, azimuth: along < 0 ? azimuth + 180 : azimuth, distance: abs(along))
        ).destination
        fixes.append(LocationFix(time: 1_700_000_000 + Double(fixes.count), coordinate: point))
        along += rng.uniform(4...12)
      }
    }
    let regions = RegionSet(RegionIndex(triangles.map(Region.polygon)))
    var batch = CrossingDetector(regions: regions)
    var crossings: [RegionCrossing] = []
    try batch.process(fixes, into: &crossings)
    var one = CrossingDetector(regions: regions)
    var single: [RegionCrossing] = []
    for fix in fixes { try one.process(fix, into: &single) }
    #expect(crossings == single)

    var inside = Dictionary(uniqueKeysWithValues: triangles.map { ($0.identifier, $0.contains(fixes[0].coordinate)) })
    var next = 0
    var mismatches: [String] = []
    for k in 1..<fixes.count {
      while next < crossings.count && crossings[next].toFix == k {
        inside[crossings[next].region] = crossings[next].direction == .enter
        next += 1
      }
      for triangle in triangles where inside[triangle.identifier] != triangle.contains(fixes[k].coordinate) {
        mismatches.append("\(triangle.identifier) at fix \(k)")
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.count) (fix, triangle) states differ, first \(mismatches.prefix(3))")
    #expect(crossings.count > 500, "every pass should cross most triangles")
  }
}
