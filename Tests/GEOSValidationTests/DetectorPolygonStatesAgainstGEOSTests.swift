import Geodesy
@testable import GEOSValidation
@testable import Geofencing
import SyntheticData
import Testing
import _GeoWakeTestSupport

/// The crossing detector's polygon state after every fix against GEOS's prepared `intersects` (a
/// point on the boundary is inside) at that fix, on the random, real-shaped and degenerate polygons
/// of ``PolygonContainmentAgainstGEOSTests``: tracks that wander in small steps through the cells a
/// boundary passes through (the detector's per-cell edge lists and quiet ellipses), jump to
/// vertices, land on edges and a rounding step off them, and run along edges; at several grid
/// levels, one fix at a time and in one batch.
@Suite struct DetectorPolygonStatesAgainstGEOSTests {
  /// A track around `planar`'s polygons: `count` fixes a second apart.
  static func track(_ planar: PlanarPolygons, count: Int, _ rng: inout SeededGenerator) -> [LocationFix] {
    let box = planar.box
    let size = max(box.east - box.west, box.north - box.south)
    var vertices: [(Double, Double, Double, Double)] = []
    for rings in planar.rings {
      for ring in rings {
        for i in stride(from: 0, to: ring.count - 2, by: 2) { vertices.append((ring[i], ring[i + 1], ring[i + 2], ring[i + 3])) }
      }
    }
    var x = rng.uniform(box.west...box.east)
    var y = rng.uniform(box.south...box.north)
    var fixes: [LocationFix] = []
    for k in 0..<count {
      switch rng.next() % 16 {
      case 0:  // onto a vertex
        let e = vertices[Int(rng.next() % UInt64(vertices.count))]
        (x, y) = (e.0, e.1)
      case 1:  // onto an edge, or a rounding step beside it
        let e = vertices[Int(rng.next() % UInt64(vertices.count))]
        let u = [0.5, 0.25, 1.0 / 3][Int(rng.next() % 3)]
        (x, y) = (e.0 + u * (e.2 - e.0), e.1 + u * (e.3 - e.1))
        if rng.next() % 2 == 0 { x = x.nextUp } else if rng.next() % 2 == 0 { y = y.nextDown }
      case 2, 3:  // along the edge from its first vertex
        let e = vertices[Int(rng.next() % UInt64(vertices.count))]
        let u = rng.uniform(0...1.2)
        (x, y) = (e.0 + u * (e.2 - e.0), e.1 + u * (e.3 - e.1))
      case 4:  // anywhere near the polygons
        x = rng.uniform(box.west - size * 0.2...box.east + size * 0.2)
        y = rng.uniform(box.south - size * 0.2...box.north + size * 0.2)
      default:  // a small step
        let step = size * [0.002, 0.01, 0.05][Int(rng.next() % 3)]
        let angle = rng.uniform(0...(2 * Double.pi))
        x += step * Double.cos(angle)
        y = min(89.9, max(-89.9, y + step * Double.sin(angle)))
      }
      let coordinate = Coordinate(uncheckedLatitude: y, longitude: Coordinate.normalizedLongitude(x))
      fixes.append(LocationFix(time: Double(k), coordinate: coordinate, horizontalAccuracy: 5))
    }
    return fixes
  }

  @Test(arguments: [11, 12, 13] as [UInt64])
  func everyFixsStateEqualsGEOS(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed &* 104_729)
    let context = try GEOSContext()
    var checked = 0
    var changes = 0
    for polygon in try PolygonContainmentAgainstGEOSTests.polygons(seed: seed) {
      let planar = polygon.planar
      let prepared = try GEOSPreparedGeometry(GEOSGeometry.polygonal(context, polygons: planar.rings))
      let fixes = Self.track(planar, count: 400, &rng)
      let expected = try fixes.map { fix in
        try prepared.intersects(
          GEOSGeometry.point(context, x: planar.x(longitude: fix.coordinate.longitude), y: fix.coordinate.latitude))
      }
      for level in [nil, 8, 13, 17] as [Int?] {
        let set = RegionSet([.polygon(polygon)], configuration: .init(gridLevel: level))
        var detector = CrossingDetector(regions: set)
        var crossings: [RegionCrossing] = []
        var state = expected[0]
        for (i, fix) in fixes.enumerated() {
          try detector.process(fix, into: &crossings)
          let inside = detector.isInside(polygon.identifier)
          #expect(inside == expected[i], "\(polygon.identifier) level \(level.map(String.init) ?? "auto") fix \(i)")
          checked += 1
          if expected[i] != state { changes += 1 }
          state = expected[i]
        }
        // Enter and exit alternate, from the first fix's state.
        var previous = expected[0]
        for crossing in crossings {
          #expect((crossing.direction == .enter) != previous, "\(polygon.identifier) alternation \(level.map(String.init) ?? "auto") \(crossing)")
          previous = crossing.direction == .enter
        }
        #expect(previous == expected[fixes.count - 1], "\(polygon.identifier) final state")
        // The batch path takes the same decisions.
        var batch = CrossingDetector(regions: set)
        var batchCrossings: [RegionCrossing] = []
        try batch.process(fixes, into: &batchCrossings)
        #expect(batchCrossings == crossings, "\(polygon.identifier) batch")
      }
    }
    #expect(checked > 90_000)
    #expect(changes > 5_000)
  }

  /// Large polygons of thousands of vertices shaped like coastlines (cells of tens of thousands of
  /// edges in fine sub-cells) and a sparse track whose steps of up to 3 km cross many sub-cells:
  /// every polygon's state after every fix equals GEOS's, at the automatic grid level and a finer
  /// one.
  @Test(arguments: [21, 22] as [UInt64])
  func longStepsAmongLargeCoastlinesEqualGEOS(seed: UInt64) throws {
    let center = try Coordinate(latitude: 37.75, longitude: -122.42)
    let polygons = SyntheticRegions(
      seed: seed, count: 16, center: center, radii: 1_000...4_000, polygonFraction: 1, vertices: 1_000...3_000,
      outline: .coast
    ).generate(near: [center]).compactMap { region -> PolygonRegion? in
      if case .polygon(let polygon) = region { return polygon }
      return nil
    }
    try #require(polygons.count == 16)
    let context = try GEOSContext()
    let prepared = try polygons.map {
      try GEOSPreparedGeometry(GEOSGeometry.polygonal(context, polygons: $0.planar.rings))
    }
    // Half the polygons lie on the centre, the rest over a 30 km square around it: a walk about
    // the centre, steps of 20 m to 3 km a minute apart.
    var rng = SeededGenerator(seed: seed)
    var (latitude, longitude) = (center.latitude, center.longitude)
    var fixes: [LocationFix] = []
    for k in 0..<800 {
      let step = [20.0, 200, 1_000, 3_000][Int(rng.next() % 4)] * rng.uniform(0.5...1)
      let angle = rng.uniform(0...(2 * Double.pi))
      latitude += step * Double.cos(angle) / 111_000
      longitude += step * Double.sin(angle) / 88_000
      latitude = min(center.latitude + 0.05, max(center.latitude - 0.05, latitude))
      longitude = min(center.longitude + 0.06, max(center.longitude - 0.06, longitude))
      fixes.append(
        LocationFix(
          time: Double(k) * 60, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
          horizontalAccuracy: 5))
    }
    for level in [nil, 12] as [Int?] {
      let set = RegionSet(polygons.map { .polygon($0) }, configuration: .init(gridLevel: level))
      var scratch: [Int32] = []
      let middle = CellCandidates(
        key: GridCell.key(latitude: center.latitude, longitude: center.longitude, level: set.index.gridLevel),
        regions: set.index, scratch: &scratch)
      var detector = CrossingDetector(regions: set)
      var crossings: [RegionCrossing] = []
      var wrong: [String] = []
      var inside = 0
      for (i, fix) in fixes.enumerated() {
        try detector.process(fix, into: &crossings)
        for (k, polygon) in polygons.enumerated() {
          let point = try GEOSGeometry.point(
            context, x: polygon.planar.x(longitude: fix.coordinate.longitude), y: fix.coordinate.latitude)
          let expected = try prepared[k].intersects(point)
          if detector.isInside(polygon.identifier) != expected { wrong.append("fix \(i) \(polygon.identifier)") }
          if expected { inside += 1 }
        }
      }
      let mismatches = wrong.count
      #expect(mismatches == 0, "level \(level.map(String.init) ?? "auto"): first \(wrong.prefix(3))")
      let (insidePairs, crossed) = (inside, crossings.count)
      #expect(insidePairs > 300 && crossed > 200, "\(insidePairs) inside, \(crossed) crossings")
      // The case meant: a cell of many edges in many sub-cells.
      #expect(middle.polygonEdges.count > 5_000 && middle.polygonEdges.rows * middle.polygonEdges.columns > 10_000)
    }
  }
}
