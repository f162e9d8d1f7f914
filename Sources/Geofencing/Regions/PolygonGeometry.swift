internal import CGEOS
import Geodesy

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
