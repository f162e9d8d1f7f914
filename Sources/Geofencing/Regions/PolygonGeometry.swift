import Geodesy
import RealModule

/// How a polygon relates to a rectangle of the grid.
enum RectangleCoverage: Sendable {
  /// Every point of the rectangle is inside the polygon.
  case inside
  /// No point of the rectangle is inside the polygon.
  case outside
  /// The boundary passes through the rectangle.
  case boundary
}

/// A polygonal region prepared for repeated queries: the projected rings' edges, and an index of
/// them by horizontal band so that a point or a rectangle looks only at the edges at its latitude.
///
/// Pure Swift, no geometry engine. Containment is the even-odd rule over every ring of every
/// polygon with the boundary included, decided with exact orientation tests
/// (``PlanarOrientation``); for valid polygons and multipolygons (the only kind GeoWake's readers
/// accept, see `GEOSValidation`) this is exactly GEOS's and shapely's `covers`/`intersects` for a
/// point.
/// Immutable, so shared by every detector over an index.
final class PolygonGeometry: Sendable {
  let planar: PlanarPolygons
  /// The band index: band b covers latitudes [bandSouth + b / bandScale, bandSouth + (b + 1) /
  /// bandScale] (the first and last bands extend past the box) and lists
  /// `bandEdges[bandStart[b]..<bandStart[b + 1]]`, every edge whose latitude range meets it. An
  /// edge is named by the index of its first vertex in the projected rings (``edge(_:)``).
  private let bandSouth: Double
  private let bandScale: Double
  private let bandCount: Int
  private let bandStart: [Int32]
  private let bandEdges: [Int32]
  /// For a polygon of one ring and at most ``smallestIndexed`` − 1 edges: its edge count, and no
  /// band index (one band listing edges 0..<n implicitly, without the two arrays); else 0.
  private let unindexedEdges: Int

  /// At most this many band entries per edge on average; long edges spanning many bands are what
  /// could make the index large, so the band count shrinks until the index fits.
  private static let entriesPerEdgeLimit = 4
  /// The fewest edges a ring gets a band index for: below this, looking at every edge costs about
  /// what finding the band does, and the index would be most of the polygon's memory.
  static let smallestIndexed = 17

  init(_ planar: PlanarPolygons) {
    self.planar = planar
    if planar.ringCount == 1 && planar.vertexCount - 1 < Self.smallestIndexed {
      bandSouth = planar.box.south
      bandScale = 1
      bandCount = 1
      bandStart = []
      bandEdges = []
      unindexedEdges = planar.vertexCount - 1
      return
    }
    unindexedEdges = 0
    // Every edge by its first vertex, ring after ring; a single ring's are 0..<n − 1, not listed.
    var ringEdges: [Int32] = []
    if planar.ringCount > 1 {
      ringEdges.reserveCapacity(planar.vertexCount)
      planar.forEachRing { first, end in
        for i in first..<end - 1 { ringEdges.append(Int32(i)) }
      }
    }
    let edgeCount = planar.ringCount > 1 ? ringEdges.count : planar.vertexCount - 1
    let south = planar.box.south
    let height = max(planar.box.north - south, 0x1p-40)
    // The latitudes of each edge's ends, lower first.
    var lows = [Double](repeating: 0, count: edgeCount)
    var highs = [Double](repeating: 0, count: edgeCount)
    planar.withVertices { vertices in
      ringEdges.withUnsafeBufferPointer { listed in
        lows.withUnsafeMutableBufferPointer { lows in
          highs.withUnsafeMutableBufferPointer { highs in
            for k in 0..<edgeCount {
              let e = vertices.edge(listed.isEmpty ? k : Int(listed[k]))
              lows[k] = min(e.y, e.w)
              highs[k] = max(e.y, e.w)
            }
          }
        }
      }
    }
    // About four edges a band, fewer bands if long edges would repeat too often.
    var count = max(1, min(edgeCount / 4, 1 << 16))
    var total = 0
    while true {
      let scale = Double(count) / height
      total = 0
      for k in 0..<edgeCount {
        total += Self.band(highs[k], south: south, scale: scale, count: count)
          - Self.band(lows[k], south: south, scale: scale, count: count) + 1
      }
      if count == 1 || total <= Self.entriesPerEdgeLimit * edgeCount { break }
      count = max(1, count / 2)
    }
    let scale = Double(count) / height
    var start = [Int32](repeating: 0, count: count + 1)
    var list = [Int32](repeating: 0, count: total)
    start.withUnsafeMutableBufferPointer { start in
      for k in 0..<edgeCount {
        let first = Self.band(lows[k], south: south, scale: scale, count: count)
        let last = Self.band(highs[k], south: south, scale: scale, count: count)
        for b in first...last { start[b + 1] += 1 }
      }
      for b in 0..<count { start[b + 1] += start[b] }
      // Each band's next free place, from its start: the edges go in ascending order.
      var fill = [Int32](start.dropLast())
      fill.withUnsafeMutableBufferPointer { fill in
        list.withUnsafeMutableBufferPointer { list in
          for k in 0..<edgeCount {
            let e = ringEdges.isEmpty ? Int32(k) : ringEdges[k]
            let first = Self.band(lows[k], south: south, scale: scale, count: count)
            let last = Self.band(highs[k], south: south, scale: scale, count: count)
            for b in first...last {
              list[Int(fill[b])] = e
              fill[b] += 1
            }
          }
        }
      }
    }
    bandSouth = south
    bandScale = scale
    bandCount = count
    bandStart = start
    bandEdges = list
  }

  /// The positions in the band list of band b's edges.
  @inline(__always)
  private func listed(inBand b: Int) -> Range<Int> {
    unindexedEdges > 0 ? 0..<unindexedEdges : Int(bandStart[b])..<Int(bandStart[b + 1])
  }

  /// The edge at position k of the band list (``listed(inBand:)``).
  @inline(__always)
  private func edgeIndex(at k: Int, _ list: UnsafeBufferPointer<Int32>) -> Int {
    unindexedEdges > 0 ? k : Int(list[k])
  }

  /// Edge `i` as (x0, y0, x1, y1): from vertex i of the projected rings to the next.
  @inline(__always)
  func edge(_ i: Int) -> SIMD4<Double> {
    planar.withVertices { $0.edge(i) }
  }

  /// Calls `body` with every edge, ring by ring.
  @inline(__always)
  func forEachEdge(_ body: (SIMD4<Double>) -> Void) {
    planar.withVertices { vertices in
      planar.forEachRing { first, end in
        for i in first..<end - 1 { body(vertices.edge(i)) }
      }
    }
  }

  /// The band of latitude y (clamped; monotone in y, so an edge's bands are those of its ends and
  /// every band between).
  @inline(__always)
  private static func band(_ y: Double, south: Double, scale: Double, count: Int) -> Int {
    let b = (y - south) * scale
    guard b > 0 else { return 0 }
    return b >= Double(count - 1) ? count - 1 : Int(b)
  }

  /// The range of bands meeting latitudes [south, north].
  @inline(__always)
  private func bands(south: Double, north: Double) -> ClosedRange<Int> {
    Self.band(south, south: bandSouth, scale: bandScale, count: bandCount)...Self.band(
      north, south: bandSouth, scale: bandScale, count: bandCount)
  }

  /// Whether the projected point (x, y) is inside or on the boundary.
  ///
  /// A ray to the east counts the edges it crosses (GEOS's `RayCrossingCounter` rules: an edge
  /// counts if it straddles the ray's latitude half-open from below, a horizontal edge never; an
  /// edge through the point, found with an exact orientation test, puts it on the boundary).
  func contains(x: Double, y: Double) -> Bool {
    let box = planar.box
    guard y >= box.south, y <= box.north, x >= box.west, x <= box.east else { return false }
    let b = Self.band(y, south: bandSouth, scale: bandScale, count: bandCount)
    var inside = false
    return planar.withVertices { vertices in
      bandEdges.withUnsafeBufferPointer { list in
        for k in listed(inBand: b) {
          let e = vertices.edge(edgeIndex(at: k, list))
          let (x0, y0, x1, y1) = (e.x, e.y, e.z, e.w)
          if x0 < x && x1 < x { continue }
          if y0 == y && y1 == y {
            if min(x0, x1) <= x && x <= max(x0, x1) { return true }
            continue
          }
          if (y0 > y) != (y1 > y) {
            var orientation = PlanarOrientation.sign(x0, y0, x1, y1, x, y)
            if orientation == 0 { return true }
            if y1 < y0 { orientation = -orientation }
            if orientation > 0 { inside.toggle() }
          } else if (x0 == x && y0 == y) || (x1 == x && y1 == y) {
            return true
          }
        }
        return inside
      }
    }
  }

  func contains(_ point: Coordinate) -> Bool {
    contains(x: planar.x(longitude: point.longitude), y: point.latitude)
  }

  /// How the polygon covers the rectangle [west, east] × [south, north] of projected coordinates.
  ///
  /// `.boundary` whenever an edge may meet the closed rectangle (the test is conservative: an edge
  /// within 10⁻¹² of its size of a corner counts); otherwise the rectangle lies in one face and
  /// its centre decides between `.inside` and `.outside`.
  func coverage(west: Double, south: Double, east: Double, north: Double) -> RectangleCoverage {
    let box = planar.box
    if north < box.south || south > box.north || east < box.west || west > box.east { return .outside }
    let meets = planar.withVertices { vertices in
      bandEdges.withUnsafeBufferPointer { list in
        for b in bands(south: south, north: north) {
          for k in listed(inBand: b) {
            if Self.segment(vertices.edge(edgeIndex(at: k, list)), meets: west, south, east, north) { return true }
          }
        }
        return false
      }
    }
    if meets { return .boundary }
    return contains(x: (west + east) / 2, y: (south + north) / 2) ? .inside : .outside
  }

  /// Whether segment e may meet the closed rectangle (never false when it does).
  static func segment(_ e: SIMD4<Double>, meets west: Double, _ south: Double, _ east: Double, _ north: Double)
    -> Bool
  {
    if max(e.x, e.z) < west || min(e.x, e.z) > east || max(e.y, e.w) < south || min(e.y, e.w) > north { return false }
    // An end in the rectangle: it meets (the usual edge of a polygon in a cell it lies in).
    if e.x >= west && e.x <= east && e.y >= south && e.y <= north { return true }
    let dx = e.z - e.x
    let dy = e.w - e.y
    // Signed areas of the four corners against the edge's line: all strictly on one side, no meeting.
    let tolerance = 1e-12 * (abs(dx) + abs(dy) + (east - west) + (north - south)) * (abs(dx) + abs(dy))
    let areas = SIMD4(
      dx * (south - e.y) - dy * (west - e.x), dx * (south - e.y) - dy * (east - e.x),
      dx * (north - e.y) - dy * (east - e.x), dx * (north - e.y) - dy * (west - e.x))
    return any(areas .> SIMD4(repeating: -tolerance)) && any(areas .< SIMD4(repeating: tolerance))
  }

  /// The geodesic distance (metres) from `point` to the polygons' boundary — how deep inside or
  /// how far outside the point is.
  ///
  /// Every ring edge is searched for its point nearest to `point` in the local metric at
  /// `point` (degrees scaled by the meridional radius and the radius of the parallel there),
  /// and the exact WGS84 geodesic distance to the nearest of those is returned. It is the
  /// distance to a point of the boundary, so it is never less than the true distance; it can
  /// exceed it only by how far the local metric's choice of boundary point strays from the
  /// geodesic one, a second-order effect: the tests check it within 0.1 % of a brute-force
  /// search along the densified boundary for points up to 2 km away at latitudes up to 70°.
  func boundaryDistance(to point: Coordinate) -> Double {
    let x = planar.x(longitude: point.longitude)
    let y = point.latitude
    let phi = y * (Double.pi / 180)
    let ellipsoid = Ellipsoid.wgs84
    let sinPhi = Double.sin(phi)
    let metresPerDegreeY = ellipsoid.meridionalRadius(sinLatitude: sinPhi) * (Double.pi / 180)
    let metresPerDegreeX = ellipsoid.parallelRadius(sinLatitude: sinPhi, cosLatitude: Double.cos(phi)) * (Double.pi / 180)
    var best = Double.infinity
    var nearest = (x: x, y: y)
    forEachEdge { e in
      let ax = (e.x - x) * metresPerDegreeX
      let ay = (e.y - y) * metresPerDegreeY
      let dx = (e.z - e.x) * metresPerDegreeX
      let dy = (e.w - e.y) * metresPerDegreeY
      let length2 = dx * dx + dy * dy
      let t = length2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / length2)) : 0
      let px = ax + t * dx
      let py = ay + t * dy
      let d2 = px * px + py * py
      if d2 < best {
        best = d2
        nearest = (e.x + t * (e.z - e.x), e.y + t * (e.w - e.y))
      }
    }
    guard best.isFinite else { return 0 }
    let boundaryPoint = Coordinate(
      uncheckedLatitude: min(90, max(-90, nearest.y)), longitude: Coordinate.normalizedLongitude(nearest.x))
    return Geodesic.wgs84.distance(from: point, to: boundaryPoint)
  }

  /// The radius (metres) of the largest circle inside the polygons: the greatest depth a point
  /// can reach, which caps the depth an entry may be asked for. Found in the polygons' own
  /// projection with longitudes scaled to metres at the middle latitude (approximate where the
  /// polygons span many degrees of latitude) by ``InscribedCircleSearch``, to within 0.1 % of the
  /// polygons' size below the largest radius in that plane, never above it. A search over the
  /// polygons: callers that need it repeatedly keep it.
  func inscribedRadius() -> Double {
    let box = planar.box
    let phi = (box.south + box.north) / 2 * (Double.pi / 180)
    let ellipsoid = Ellipsoid.wgs84
    let sinPhi = Double.sin(phi)
    let metresPerDegreeY = ellipsoid.meridionalRadius(sinLatitude: sinPhi) * (Double.pi / 180)
    let xScale = ellipsoid.parallelRadius(sinLatitude: sinPhi, cosLatitude: Double.cos(phi)) * (Double.pi / 180) / metresPerDegreeY
    let size = max((box.east - box.west) * xScale, box.north - box.south)
    let radius = InscribedCircleSearch(geometry: self, xScale: xScale).radius(tolerance: max(size / 1_000, 1e-9))
    return radius * metresPerDegreeY
  }

  /// Calls `body` with every edge whose latitude range may meet [south, north], each once (an edge
  /// listed in several bands is taken in the first band of the query it is listed in).
  @inline(__always)
  func forEachEdge(south: Double, north: Double, _ body: (Int, SIMD4<Double>) -> Void) {
    let range = bands(south: south, north: north)
    planar.withVertices { vertices in
      bandEdges.withUnsafeBufferPointer { list in
          for b in range {
            for k in listed(inBand: b) {
              let index = edgeIndex(at: k, list)
              let e = vertices.edge(index)
              if b != range.lowerBound
                && Self.band(min(e.y, e.w), south: bandSouth, scale: bandScale, count: bandCount) < b
              {
                continue
              }
              body(index, e)
            }
          }
      }
    }
  }

  /// Writes every edge (x0, y0, x1, y1) that may meet the closed rectangle [west, east] ×
  /// [south, north] of projected coordinates (never leaving out one that does) to `out`, each
  /// once, and returns how many. `out` has room for `planar.vertexCount` edges, more than the
  /// polygons have.
  ///
  /// Preparing a grid cell runs it for every polygon through the cell. A polygon whose box lies
  /// in the rectangle has every edge in it, copied without a test; one the rectangle spans in
  /// latitude has its edges tested ring by ring, not through the band index (whose lists name an
  /// edge in every band it spans); only the rest go through the bands
  /// (``forEachEdge(south:north:_:)``).
  func edgesMeeting(
    west: Double, south: Double, east: Double, north: Double, into out: UnsafeMutablePointer<SIMD4<Double>>
  ) -> Int {
    let box = planar.box
    let within = box.west >= west && box.east <= east && box.south >= south && box.north <= north
    let range = bands(south: south, north: north)
    var count = 0
    if within || unindexedEdges > 0 || (range.lowerBound == 0 && range.upperBound == bandCount - 1) {
      forEachEdge { e in
        out[count] = e
        count &+= within || Self.segment(e, meets: west, south, east, north) ? 1 : 0
      }
    } else {
      forEachEdge(south: south, north: north) { _, e in
        out[count] = e
        count &+= Self.segment(e, meets: west, south, east, north) ? 1 : 0
      }
    }
    return count
  }

  /// Parameters u in [0, 1] where the projected segment (x0, y0) → (x1, y1) meets a ring edge,
  /// sorted and without duplicates. A collinear overlap contributes both of its ends.
  func boundaryParameters(x0: Double, y0: Double, x1: Double, y1: Double, into out: inout [Double]) {
    out.removeAll(keepingCapacity: true)
    let dx = x1 - x0
    let dy = y1 - y0
    let minX = min(x0, x1)
    let maxX = max(x0, x1)
    let minY = min(y0, y1)
    let maxY = max(y0, y1)
    forEachEdge(south: minY, north: maxY) { _, e in
      if max(e.x, e.z) < minX || min(e.x, e.z) > maxX || max(e.y, e.w) < minY || min(e.y, e.w) > maxY { return }
      let ex = e.z - e.x
      let ey = e.w - e.y
      let denominator = dx * ey - dy * ex
      let qx = e.x - x0
      let qy = e.y - y0
      if denominator == 0 {
        // Parallel: only a collinear overlap matters.
        guard qx * dy - qy * dx == 0 else { return }
        let length2 = dx * dx + dy * dy
        guard length2 > 0 else { return }
        for (px, py) in [(e.x, e.y), (e.z, e.w)] {
          let u = ((px - x0) * dx + (py - y0) * dy) / length2
          if u >= 0 && u <= 1 { out.append(u) }
        }
        return
      }
      let u = (qx * ey - qy * ex) / denominator
      let v = (qx * dy - qy * dx) / denominator
      if u >= 0 && u <= 1 && v >= 0 && v <= 1 { out.append(u) }
    }
    out.sort()
    var unique = 0
    for value in out where unique == 0 || value != out[unique - 1] {
      out[unique] = value
      unique += 1
    }
    out.removeLast(out.count - unique)
  }
}
