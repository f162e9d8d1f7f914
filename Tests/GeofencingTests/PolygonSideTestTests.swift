import Geodesy
import SeededRandom
import Testing

@testable import Geofencing

/// The single-precision side test that dismisses most polygon edges before the exact test
/// (``CellPolygonEdges/mayMeet(_:_:_:)``): whenever it dismisses an edge, the
/// exact orientations of both ends of the segment against the edge's line
/// (``PlanarOrientation``, on the shifted longitudes the exact crossing test uses) are equal and
/// not zero. Checked on points a few units in the last place from edges' lines, in cells whose
/// polygons are shifted by whole turns (across the antimeridian), near a pole, and at latitude and
/// longitude 0, where coordinates are fine enough for a point to lie closer to a line than the
/// rounding of the products (there the side test without its bound dismisses edges it meets), with
/// points from on the line to a thousand bounds off it.
@Suite("Polygon side test")
struct PolygonSideTestTests {
  static let places: [(latitude: Double, longitude: Double, level: Int)] = [
    (0.1, 179.99, 11), (0.1, -179.99, 12), (45.3, 7.2, 12), (-72.5, -60.1, 10), (88.9, 100, 8), (0.0003, -0.0002, 12),
  ]

  @Test(arguments: 0..<6)
  func aDismissedEdgeIsNeverTouched(place: Int) throws {
    var rng = SeededGenerator(seed: UInt64(90 + place))
    let (latitude, longitude, level) = Self.places[place]
    let centre = try Coordinate(latitude: latitude, longitude: longitude)
    var regions: [Region] = []
    for i in 0..<12 {
      let radius = rng.uniform(50...3_000)
      let middle = try #require(Geodesic.wgs84.direct(from: centre, azimuth: rng.uniform(0...360), distance: rng.uniform(0...2_000)))
      let ring = try (0..<(8 + i * 4)).map { k in
        try #require(
          Geodesic.wgs84.direct(
            from: middle.destination, azimuth: 360 - Double(k) * 360 / Double(8 + i * 4), distance: radius * rng.uniform(0.7...1)))
          .destination
      }
      regions.append(.polygon(try PolygonRegion(identifier: RegionIdentifier("p\(i)"), exterior: ring)))
    }
    let index = RegionIndex(regions, configuration: .init(gridLevel: level))
    var scratch: [Int32] = []
    let cell = CellCandidates(key: GridCell.key(latitude: latitude, longitude: longitude, level: level), regions: index, scratch: &scratch)
    let edges = cell.polygonEdges
    try #require(edges.count > 20, "the cell should hold edges")
    let width = cell.box.east - cell.box.west
    let height = cell.box.north - cell.box.south
    var dismissed = 0
    var dismissedNear = 0
    var wrong: [String] = []
    let offsets: [Double] = [0, 1e-19, 1e-17, 1e-15, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6]
    for (e, edge) in edges.edges.enumerated() {
      let shift = edges.shift[Int(edge.polygon)]
      let side = edges.sides[e]
      let (x0, east, north) = (edge.x0 - shift, edge.x1 - edge.x0, edge.y1 - edge.y0)
      for _ in 0..<500 {
        // Two points of the edge's line (in the cell or its neighbours), each moved off it by a
        // tiny amount, sometimes not at all, sometimes exactly a vertex.
        func point() -> (latitude: Double, longitude: Double) {
          if rng.next() % 10 == 0 {
            return rng.next() % 2 == 0 ? (edge.y0, edge.x0 - shift) : (edge.y1, edge.x1 - shift)
          }
          let t = rng.uniform(-0.5...1.5)
          let d = offsets[Int(rng.next() % UInt64(offsets.count))] * rng.uniform(-8...8)
          let f = offsets[Int(rng.next() % UInt64(offsets.count))] * rng.uniform(-8...8)
          let lat = edge.y0 + t * north + d
          let lon = x0 + t * east + f
          return (
            min(max(lat, cell.box.south - height), cell.box.north + height),
            min(max(lon, cell.box.west - width), cell.box.east + width)
          )
        }
        let p0 = point()
        let p1 = rng.next() % 3 == 0 ? p0 : point()
        guard
          !CellPolygonEdges.mayMeet(
            side, edges.local(latitude: p0.latitude, longitude: p0.longitude),
            edges.local(latitude: p1.latitude, longitude: p1.longitude))
        else { continue }
        dismissed += 1
        let c = PlanarOrientation.sign(edge.x0, edge.y0, edge.x1, edge.y1, p0.longitude + shift, p0.latitude)
        let d = PlanarOrientation.sign(edge.x0, edge.y0, edge.x1, edge.y1, p1.longitude + shift, p1.latitude)
        if c == 0 || c != d { wrong.append("edge \(e): \(p0) \(p1) signs \(c) \(d)") }
        let near = min(abs(north * (p0.longitude - x0) - east * (p0.latitude - edge.y0)),
                       abs(north * (p1.longitude - x0) - east * (p1.latitude - edge.y0)))
        if near < 4 * Double(side.w) { dismissedNear += 1 }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.count) dismissed edges the segment meets, first \(wrong.prefix(2))")
    // The test reaches the bound: edges are dismissed with an end within four bounds of the line.
    #expect(dismissedNear > 100, "\(dismissedNear) of \(dismissed) dismissals near the line")
  }

  /// The edges a walk stops at a step for (``CellPolygonEdges/WalkStop/kept(count:)``), each
  /// once, are exactly the edges the settle of the same step would gather
  /// (``CellPolygonEdges/forEachEdge(lat0:lon0:lat1:lon1:scratch:_:)``), and the walk goes past a
  /// step only where that gathers none; on random steps of a cell of many edges, within one
  /// sub-cell, between neighbours and farther.
  @Test(arguments: 0..<3)
  func aWalkKeepsTheEdgesTheSettleGathers(place: Int) throws {
    var rng = SeededGenerator(seed: UInt64(190 + place))
    let (latitude, longitude, level) = Self.places[place * 2]
    let centre = try Coordinate(latitude: latitude, longitude: longitude)
    var regions: [Region] = []
    for i in 0..<40 {
      let middle = try #require(
        Geodesic.wgs84.direct(from: centre, azimuth: rng.uniform(0...360), distance: rng.uniform(0...1_500)))
      let radius = rng.uniform(30...1_500)
      let count = 8 + Int(rng.next() % 57)
      let ring = try (0..<count).map { k in
        try #require(
          Geodesic.wgs84.direct(
            from: middle.destination, azimuth: 360 - Double(k) * 360 / Double(count),
            distance: radius * rng.uniform(0.5...1)))
          .destination
      }
      regions.append(.polygon(try PolygonRegion(identifier: RegionIdentifier("p\(i)"), exterior: ring)))
    }
    let index = RegionIndex(regions, configuration: .init(gridLevel: level))
    var scratch: [Int32] = []
    let key = GridCell.key(latitude: latitude, longitude: longitude, level: level)
    let cell = CellCandidates(key: key, regions: index, scratch: &scratch)
    let edges = cell.polygonEdges
    try #require(edges.count > 100, "the cell should hold edges")
    let box = cell.box
    var kept = [Int32](repeating: -1, count: edges.keptCapacity)
    var stops = (cleared: 0, kept: 0, long: 0)
    var wrong: [String] = []
    for _ in 0..<20_000 {
      let lat0 = rng.uniform(box.south...box.north.nextDown)
      let lon0 = rng.uniform(box.west...box.east.nextDown)
      // Steps of a sub-cell's size or so, a few of them far longer.
      let reach = rng.next() % 20 == 0 ? 20.0 : 0.8
      let north = reach * (box.north - box.south) / Double(edges.rows)
      let east = reach * (box.east - box.west) / Double(edges.columns)
      let lat1 = min(max(lat0 + rng.uniform(-north...north), box.south), box.north.nextDown)
      let lon1 = min(max(lon0 + rng.uniform(-east...east), box.west), box.east.nextDown)
      let last = LocationFix(time: 0, coordinate: Coordinate(uncheckedLatitude: lat0, longitude: lon0))
      let fix = [LocationFix(time: 1, coordinate: Coordinate(uncheckedLatitude: lat1, longitude: lon1))]
      let (next, stop) = kept.withUnsafeMutableBufferPointer { buffer in
        fix.withUnsafeBufferPointer { edges.walk($0, from: 0, after: last, within: box, kept: buffer.baseAddress!) }
      }
      var gathered: [Int32] = []
      edges.forEachEdge(lat0: lat0, lon0: lon0, lat1: lat1, lon1: lon1, scratch: &scratch) {
        gathered.append(Int32($0))
      }
      switch stop {
      case .left:
        stops.cleared += 1
        if next != 1 || !gathered.isEmpty { wrong.append("walked past a step meeting \(gathered)") }
      case .kept(let count):
        stops.kept += 1
        let distinct = CellPolygonEdges.keepDistinct(&kept, count: count)
        if next != 0 || Set(kept[0..<distinct]) != Set(gathered) || distinct != Set(gathered).count {
          wrong.append("kept \(kept[0..<distinct].sorted()), gathered \(gathered.sorted())")
        }
      case .longStep:
        stops.long += 1
        let from = edges.subCell(latitude: lat0, longitude: lon0)
        let to = edges.subCell(latitude: lat1, longitude: lon1)
        if abs(from.row - to.row) + abs(from.column - to.column) <= 1 {
          wrong.append("a step between neighbours taken as long")
        }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.count) steps, first \(wrong.prefix(2))")
    #expect(stops.cleared > 1_000 && stops.kept > 300 && stops.long > 100, "\(stops)")
  }

  /// ``CellPolygonEdges/keepDistinct(_:count:)`` leaves each edge of the prefix once, as a set does,
  /// for prefixes of a few edges and of many, with repeats and without, and leaves what follows the
  /// prefix alone.
  @Test func keepDistinctLeavesEachEdgeOnce() {
    var rng = SeededGenerator(seed: 44)
    for _ in 0..<2_000 {
      let count = Int(rng.next() % 40)
      let range = UInt64(1 + rng.next() % 50)
      let prefix = (0..<count).map { _ in Int32(rng.next() % range) }
      let tail: [Int32] = [-7, -8]
      var edges = prefix + tail
      let distinct = CellPolygonEdges.keepDistinct(&edges, count: count)
      #expect(distinct == Set(prefix).count)
      #expect(Set(edges[0..<distinct]) == Set(prefix))
      #expect(Array(edges[count...]) == tail)
    }
  }

  /// ``CellPolygonEdges/forEachDistinct(in:_:)``, which a long step's gathered edges go through,
  /// calls each edge once in the order of first places, as a set built along the array does, and
  /// leaves the array as it was: short and long arrays, few and many repeats, edge numbers small
  /// and large.
  @Test func forEachDistinctCallsEachEdgeOnceInOrder() {
    var rng = SeededGenerator(seed: 45)
    for _ in 0..<3_000 {
      let count = Int(rng.next() % 300)
      let range = UInt64(1 + rng.next() % 400)
      let base = rng.next() % 2 == 0 ? 0 : Int32(rng.next() % 180_000)
      let edges = (0..<count).map { _ in base + Int32(rng.next() % range) }
      var seen = Set<Int32>()
      let expected = edges.filter { seen.insert($0).inserted }.map(Int.init)
      var called: [Int] = []
      var scratch = edges
      CellPolygonEdges.forEachDistinct(in: &scratch) { called.append($0) }
      #expect(called == expected)
      #expect(scratch == edges)
    }
  }
}
