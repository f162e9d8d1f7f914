internal import CGEOS
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

/// A polygonal region prepared for repeated queries: a GEOS prepared geometry over the projected
/// rings, plus the rings' edges for segment intersection.
/// - Important: Not `Sendable`; confine to one task (it holds a GEOS context).
final class PolygonGeometry {
  let planar: PlanarPolygons
  let prepared: GEOSPreparedGeometry
  /// Every ring edge as (x0, y0, x1, y1), projected.
  let edges: [SIMD4<Double>]

  init(_ planar: PlanarPolygons, context: GEOSContext? = nil) throws(GEOSError) {
    let context = if let context { context } else { try GEOSContext() }
    self.planar = planar
    prepared = try GEOSPreparedGeometry(GEOSGeometry.polygonal(context, polygons: planar.rings))
    var edges: [SIMD4<Double>] = []
    for rings in planar.rings {
      for ring in rings {
        for i in stride(from: 0, to: ring.count - 2, by: 2) {
          edges.append(SIMD4(ring[i], ring[i + 1], ring[i + 2], ring[i + 3]))
        }
      }
    }
    self.edges = edges
  }

  var context: GEOSContext { prepared.context }

  /// Whether the projected point (x, y) is inside or on the boundary (`GEOSPreparedIntersects_r`).
  func contains(x: Double, y: Double) -> Bool {
    let box = planar.box
    guard y >= box.south, y <= box.north, x >= box.west, x <= box.east else { return false }
    guard let point = GEOSGeom_createPointFromXY_r(context.handle, x, y) else { return crossingNumberContains(x: x, y: y) }
    defer { GEOSGeom_destroy_r(context.handle, point) }
    switch GEOSPreparedIntersects_r(context.handle, prepared.handle, point) {
    case 1: return true
    case 0: return false
    default: return crossingNumberContains(x: x, y: y)
    }
  }

  func contains(_ point: Coordinate) -> Bool {
    contains(x: planar.x(longitude: point.longitude), y: point.latitude)
  }

  /// Even-odd containment over all edges; used only if GEOS reports an exception.
  func crossingNumberContains(x: Double, y: Double) -> Bool {
    var inside = false
    for e in edges where (e.y > y) != (e.w > y) {
      let xCross = e.x + (y - e.y) * (e.z - e.x) / (e.w - e.y)
      if x < xCross { inside.toggle() }
    }
    return inside
  }

  /// How the polygon covers the rectangle [west, east] × [south, north] of projected coordinates.
  func coverage(west: Double, south: Double, east: Double, north: Double) -> RectangleCoverage {
    let box = planar.box
    if north < box.south || south > box.north || east < box.west || west > box.east { return .outside }
    guard let rectangle = try? GEOSGeometry.rectangle(context, xmin: west, ymin: south, xmax: east, ymax: north)
    else { return .boundary }
    if (try? prepared.containsProperly(rectangle)) == true { return .inside }
    if (try? prepared.intersects(rectangle)) == false { return .outside }
    return .boundary
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
    for e in edges {
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
  /// can reach, which caps the depth an entry may be asked for. GEOS's maximum inscribed circle
  /// in the polygons' own projection with longitudes scaled to metres at the middle latitude
  /// (approximate where the polygons span many degrees of latitude; to 0.1 % of their size).
  /// Computed on first use; +∞ if GEOS fails (no cap).
  lazy var inscribedRadius: Double = {
    let box = planar.box
    let phi = (box.south + box.north) / 2 * (Double.pi / 180)
    let ellipsoid = Ellipsoid.wgs84
    let sinPhi = Double.sin(phi)
    let metresPerDegreeY = ellipsoid.meridionalRadius(sinLatitude: sinPhi) * (Double.pi / 180)
    let xScale = ellipsoid.parallelRadius(sinLatitude: sinPhi, cosLatitude: Double.cos(phi)) * (Double.pi / 180) / metresPerDegreeY
    let middle = planar.middleX
    let scaled = planar.rings.map { rings in
      rings.map { ring in ring.enumerated().map { k, v in k % 2 == 0 ? (v - middle) * xScale : v } }
    }
    let size = max((box.east - box.west) * xScale, box.north - box.south)
    guard let geometry = try? GEOSGeometry.polygonal(context, polygons: scaled),
      let radius = try? geometry.maximumInscribedRadius(tolerance: max(size / 1_000, 1e-9))
    else { return .infinity }
    return radius * metresPerDegreeY
  }()

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
    for e in edges {
      if max(e.x, e.z) < minX || min(e.x, e.z) > maxX || max(e.y, e.w) < minY || min(e.y, e.w) > maxY { continue }
      let ex = e.z - e.x
      let ey = e.w - e.y
      let denominator = dx * ey - dy * ex
      let qx = e.x - x0
      let qy = e.y - y0
      if denominator == 0 {
        // Parallel: only a collinear overlap matters.
        guard qx * dy - qy * dx == 0 else { continue }
        let length2 = dx * dx + dy * dy
        guard length2 > 0 else { continue }
        for (px, py) in [(e.x, e.y), (e.z, e.w)] {
          let u = ((px - x0) * dx + (py - y0) * dy) / length2
          if u >= 0 && u <= 1 { out.append(u) }
        }
        continue
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
