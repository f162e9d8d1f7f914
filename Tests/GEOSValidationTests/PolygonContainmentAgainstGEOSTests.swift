import Foundation
import Geodesy
@testable import GEOSValidation
@testable import Geofencing
import Testing
import _GeoWakeTestSupport

/// GeoWake's own polygon geometry (edge bands, exact orientation, even-odd rule) against GEOS's
/// prepared predicates on the same projected rings: random star polygons with holes, multipolygons,
/// collinear runs, spikes and holes touching their shell, probed at random points, at every vertex,
/// on edges and at points a rounding step away from them.
@Suite struct PolygonContainmentAgainstGEOSTests {
  /// A star-shaped ring of `count` vertices around (x, y) with radii in `radii` (degrees).
  static func star(
    _ rng: inout SeededGenerator, x: Double, y: Double, count: Int, radii: ClosedRange<Double>, clockwise: Bool = false
  ) -> [(Double, Double)] {
    var ring: [(Double, Double)] = []
    for k in 0..<count {
      let angle = (Double(k) + rng.uniform(0...0.8)) / Double(count) * 2 * .pi * (clockwise ? -1 : 1)
      let r = rng.uniform(radii)
      ring.append((x + r * cos(angle), y + r * sin(angle)))
    }
    return ring
  }

  static func coordinates(_ ring: [(Double, Double)]) throws -> [Coordinate] {
    try ring.map { try Coordinate(latitude: $0.1, longitude: $0.0) }
  }

  /// Random polygons of every kind the generator makes, for `seed`.
  static func polygons(seed: UInt64) throws -> [PolygonRegion] {
    var rng = SeededGenerator(seed: seed)
    var out: [PolygonRegion] = []
    for k in 0..<60 {
      let x = rng.uniform(-170...170)
      let y = rng.uniform(-70...70)
      let size = [0.001, 0.01, 0.3, 5][k % 4]
      var shell = star(&rng, x: x, y: y, count: Int(rng.next() % 60) + 3, radii: size * 0.5...size)
      var holes: [[(Double, Double)]] = []
      switch k % 6 {
      case 1:  // a hole
        holes.append(star(&rng, x: x, y: y, count: 7, radii: size * 0.1...size * 0.3, clockwise: true))
      case 2:  // collinear runs: every edge split in three
        shell = shell.indices.flatMap { i -> [(Double, Double)] in
          let a = shell[i]
          let b = shell[(i + 1) % shell.count]
          return [a, (a.0 + (b.0 - a.0) / 3, a.1 + (b.1 - a.1) / 3), (a.0 + 2 * (b.0 - a.0) / 3, a.1 + 2 * (b.1 - a.1) / 3)]
        }
      case 3:  // a spike out and back along the same line
        let a = shell[0]
        shell.insert((a.0 + 3 * size, a.1), at: 1)
        shell.insert(a, at: 2)
      case 4:  // a hole touching the shell at one vertex
        let touch = shell[0]
        holes.append([touch, (x + (touch.0 - x) * 0.2, y + (touch.1 - y) * 0.1), (x + (touch.0 - x) * 0.1, y + (touch.1 - y) * 0.3)])
      default: break
      }
      // Every other single ring given closed, as GeoJSON gives it (the region's positions are
      // then its prepared vertices, see PolygonVertexStoreTests).
      if (k / 6) % 2 == 1 && holes.isEmpty && k % 6 != 5 { shell.append(shell[0]) }
      var polygons = [PolygonRegion.Polygon(exterior: try coordinates(shell), holes: try holes.map(coordinates))]
      if k % 6 == 5 {  // a MultiPolygon: a second part beside the first
        let second = star(&rng, x: x + 3 * size, y: y, count: 9, radii: size * 0.5...size)
        polygons.append(PolygonRegion.Polygon(exterior: try coordinates(second)))
      }
      out.append(try PolygonRegion(identifier: RegionIdentifier("p\(k)"), polygons: polygons))
    }
    return out
  }

  /// Points to probe: random ones in and around the box, every vertex, every edge's midpoint and
  /// points along edges at a few parameters, and each nudged by one unit in the last place.
  static func probes(_ planar: PlanarPolygons, _ rng: inout SeededGenerator) -> [(Double, Double)] {
    let box = planar.box
    let width = box.east - box.west
    let height = box.north - box.south
    var points: [(Double, Double)] = []
    for _ in 0..<300 {
      points.append((
        rng.uniform(box.west - 0.1 * width...box.east + 0.1 * width),
        rng.uniform(box.south - 0.1 * height...box.north + 0.1 * height)
      ))
    }
    for rings in planar.rings {
      for ring in rings {
        for i in stride(from: 0, to: ring.count - 2, by: 2) {
          let (x0, y0, x1, y1) = (ring[i], ring[i + 1], ring[i + 2], ring[i + 3])
          points.append((x0, y0))
          for u in [0.5, 0.25, 1.0 / 3] {
            let p = (x0 + u * (x1 - x0), y0 + u * (y1 - y0))
            points.append(p)
            points.append((p.0.nextUp, p.1))
            points.append((p.0, p.1.nextDown))
          }
          points.append((x0, y0 + (y1 - y0) / 2))  // same latitude as an edge point, off the edge
        }
      }
    }
    return points
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func containmentEqualsGEOSPreparedIntersects(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed &* 7919)
    let context = try GEOSContext()
    var checked = 0
    for region in try Self.polygons(seed: seed) {
      let ours = PolygonGeometry(region.planar)
      let prepared = try GEOSPreparedGeometry(GEOSGeometry.polygonal(context, polygons: region.planar.rings))
      for (x, y) in Self.probes(region.planar, &rng) {
        let expected = try prepared.intersects(GEOSGeometry.point(context, x: x, y: y))
        #expect(ours.contains(x: x, y: y) == expected, "\(region.identifier) at (\(x), \(y))")
        checked += 1
      }
    }
    #expect(checked > 40_000)
  }

  @Test(arguments: [4, 5] as [UInt64])
  func rectangleCoverageNeverContradictsGEOS(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let context = try GEOSContext()
    var decided = 0
    for region in try Self.polygons(seed: seed) {
      let ours = PolygonGeometry(region.planar)
      let prepared = try GEOSPreparedGeometry(GEOSGeometry.polygonal(context, polygons: region.planar.rings))
      let box = region.planar.box
      for _ in 0..<200 {
        let side = rng.uniform(0...1) * (box.north - box.south) / 4
        let west = rng.uniform(box.west...box.east)
        let south = rng.uniform(box.south...box.north)
        let rectangle = try GEOSGeometry.rectangle(context, xmin: west, ymin: south, xmax: west + side, ymax: south + side)
        switch ours.coverage(west: west, south: south, east: west + side, north: south + side) {
        case .inside:
          #expect(try prepared.containsProperly(rectangle), "\(region.identifier) \(west) \(south) \(side)")
          decided += 1
        case .outside:
          #expect(try !prepared.intersects(rectangle), "\(region.identifier) \(west) \(south) \(side)")
          decided += 1
        case .boundary:
          // Conservative: the boundary may only come near. It must not be far: the rectangle
          // grown by a tenth of its side must meet the boundary.
          let grown = try GEOSGeometry.rectangle(
            context, xmin: west - side / 10, ymin: south - side / 10, xmax: west + side * 1.1, ymax: south + side * 1.1)
          #expect(try prepared.intersects(grown) && !prepared.containsProperly(grown), "\(region.identifier)")
        }
      }
    }
    #expect(decided > 1_000)
  }

  @Test func inscribedRadiusWithinItsBoundOfGEOS() throws {
    let context = try GEOSContext()
    for region in try Self.polygons(seed: 6) where region.polygons.count == 1 {
      let ours = PolygonGeometry(region.planar)
      // The same scaled plane as `inscribedRadius`, in degrees of latitude.
      let box = region.planar.box
      let middle = region.planar.middleX
      let phi = (box.south + box.north) / 2 * .pi / 180
      let ellipsoid = Ellipsoid.wgs84
      let metresPerDegreeY = ellipsoid.meridionalRadius(sinLatitude: sin(phi)) * .pi / 180
      let xScale = ellipsoid.parallelRadius(sinLatitude: sin(phi), cosLatitude: cos(phi)) * .pi / 180 / metresPerDegreeY
      let scaled = region.planar.rings.map { rings in
        rings.map { ring in ring.enumerated().map { k, v in k % 2 == 0 ? (v - middle) * xScale : v } }
      }
      let size = max((box.east - box.west) * xScale, box.north - box.south)
      let tolerance = size / 1_000
      let reference = try GEOSGeometry.polygonal(context, polygons: scaled).maximumInscribedRadius(tolerance: tolerance / 10)
      let radius = ours.inscribedRadius() / metresPerDegreeY
      // Ours is within `tolerance` below the largest; GEOS's within a tenth of it.
      #expect(radius <= reference + tolerance / 10 + 1e-12, "\(region.identifier)")
      #expect(radius >= reference - tolerance - 1e-12, "\(region.identifier)")
    }
  }
}
