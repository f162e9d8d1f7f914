import Foundation
import Geodesy
import Geofencing
import SeededRandom
import Testing

/// Polygons with holes and MultiPolygons against an oracle of this file's own: the crossing-number
/// rule over every ring, in longitude and latitude (GeoJSON's edge convention, the documented path
/// model), written without anything of the module under test. GEOS is not involved.
@Suite struct PolygonContainmentOracleTests {
  typealias Point = (x: Double, y: Double)

  /// A star-shaped ring of `count` vertices around `centre`, radii in `radii` (degrees).
  static func star(_ rng: inout SeededGenerator, _ centre: Point, count: Int, radii: ClosedRange<Double>, clockwise: Bool) -> [Point] {
    (0..<count).map { k in
      let angle = (Double(k) + rng.uniform(0...0.9)) / Double(count) * 2 * .pi * (clockwise ? -1 : 1)
      let r = rng.uniform(radii)
      return (centre.x + r * cos(angle), centre.y + r * sin(angle))
    }
  }

  /// Inside by the crossing number over all rings: a horizontal ray to the east crosses an odd
  /// number of edges (each edge taken half-open in y, so a vertex on the ray counts once).
  static func oracle(_ rings: [[Point]], _ p: Point) -> Bool {
    var inside = false
    for ring in rings {
      for k in ring.indices {
        let a = ring[k]
        let b = ring[(k + 1) % ring.count]
        guard (a.y > p.y) != (b.y > p.y) else { continue }
        let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
        if x > p.x { inside.toggle() }
      }
    }
    return inside
  }

  /// The least distance from `p` to an edge of the rings, in degrees.
  static func distanceToEdges(_ rings: [[Point]], _ p: Point) -> Double {
    var least = Double.infinity
    for ring in rings {
      for k in ring.indices {
        let a = ring[k]
        let b = ring[(k + 1) % ring.count]
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)))
        least = min(least, hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy)))
      }
    }
    return least
  }

  static func coordinates(_ ring: [Point]) throws -> [Coordinate] {
    try ring.map { try Coordinate(latitude: $0.y, longitude: $0.x) }
  }

  /// 40 regions a seed: one to three parts side by side, each with up to three holes (inside the
  /// shell: twelve or more vertices keep its edges at least 0.7 of its size from the centre), from 100 m
  /// to 500 km across; 400 points each in and around its box, those within 10⁻⁹ of the size of an
  /// edge left out (the oracle's own rounding).
  @Test(arguments: [UInt64(1), 2, 3, 4, 5])
  func holesAndMultiPolygonsAgreeWithTheCrossingNumber(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var index = RegionIndex()
    var cases: [(region: PolygonRegion, rings: [[Point]], size: Double)] = []
    for k in 0..<40 {
      let size = [0.001, 0.02, 0.4, 5][k % 4]
      let origin: Point = (rng.uniform(-170...170), rng.uniform(-70...70))
      var polygons: [PolygonRegion.Polygon] = []
      var rings: [[Point]] = []
      for part in 0..<(1 + Int(rng.next() % 3)) {
        let centre: Point = (origin.x + Double(part) * 2.5 * size, origin.y)
        let shell = Self.star(&rng, centre, count: 12 + Int(rng.next() % 40), radii: size * 0.8...size, clockwise: false)
        // Holes inside the shell's inner radius, apart from one another.
        var holes: [[Point]] = []
        for h in 0..<Int(rng.next() % 4) {
          let angle = Double(h) * 2 * .pi / 3
          let hole = Self.star(&rng, (centre.x + 0.45 * size * cos(angle), centre.y + 0.45 * size * sin(angle)), count: 3 + Int(rng.next() % 8), radii: size * 0.1...size * 0.2, clockwise: true)
          holes.append(hole)
        }
        polygons.append(PolygonRegion.Polygon(exterior: try Self.coordinates(shell), holes: try holes.map(Self.coordinates)))
        rings += [shell] + holes
      }
      let region = try PolygonRegion(identifier: RegionIdentifier("p\(k)"), polygons: polygons)
      _ = index.insert(.polygon(region))
      cases.append((region, rings, size))
    }
    var checked = 0
    var inside = 0
    for (region, rings, size) in cases {
      let xs = rings.flatMap { $0.map(\.x) }
      let ys = rings.flatMap { $0.map(\.y) }
      let (west, east, south, north) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
      for _ in 0..<400 {
        let p: Point = (rng.uniform(west - 0.1 * size...east + 0.1 * size), rng.uniform(south - 0.1 * size...north + 0.1 * size))
        guard Self.distanceToEdges(rings, p) > 1e-9 * size else { continue }
        let expected = Self.oracle(rings, p)
        let point = try Coordinate(latitude: p.y, longitude: p.x)
        #expect(region.contains(point) == expected, "\(region.identifier) at \(p)")
        #expect(index.regions(containing: point).contains(region.identifier) == expected, "index: \(region.identifier) at \(p)")
        checked += 1
        if expected { inside += 1 }
      }
    }
    #expect(checked > 15_000)
    // Both answers are asked: neither nearly all in nor nearly all out.
    #expect(inside > checked / 5 && inside < checked * 4 / 5)
  }
}
