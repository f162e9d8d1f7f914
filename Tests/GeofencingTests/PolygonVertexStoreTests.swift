import Foundation
import Geodesy
import Geofencing
import SeededRandom
import Testing

/// A polygon given as one closed ring whose projection is its own positions keeps its vertices
/// once (the prepared geometry reads the region's positions); every other polygon keeps its own
/// projected copy. Either way the projected rings and every containment answer are the same.
@Suite("Polygon vertex store")
struct PolygonVertexStoreTests {
  /// A star-shaped ring of `count` positions around (x, y), radii in `radii` degrees.
  static func star(_ rng: inout SeededGenerator, x: Double, y: Double, count: Int, radii: ClosedRange<Double>) throws
    -> [Coordinate]
  {
    try (0..<count).map { k in
      let angle = (Double(k) + rng.uniform(0...0.9)) / Double(count) * 2 * .pi
      let r = rng.uniform(radii)
      return try Coordinate(
        latitude: min(89, max(-89, y + r * sin(angle))), longitude: Coordinate.normalizedLongitude(x + r * cos(angle)))
    }
  }

  @Test(arguments: [UInt64(1), 2, 3, 4, 5])
  func closedAndOpenRingsAnswerTheSame(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var shared = 0
    var total = 0
    for k in 0..<80 {
      // Anywhere, near the prime meridian and across the antimeridian too.
      let x = [rng.uniform(-179...179), rng.uniform(-0.01...0.01), 179.9995, -179.9995][k % 4]
      let y = rng.uniform(-70...70)
      let size = [0.0005, 0.01, 0.3][k % 3]
      let ring = try Self.star(&rng, x: x, y: y, count: Int(rng.next() % 40) + 3, radii: size * 0.5...size)
      let open = try PolygonRegion(identifier: "open", exterior: ring)
      let closed = try PolygonRegion(identifier: "closed", exterior: ring + [ring[0]])
      #expect(!open.planar.sharesPositions)
      #expect(closed.planar.rings == open.planar.rings, "seed \(seed) polygon \(k)")
      if closed.planar.sharesPositions { shared += 1 }
      total += 1
      let index = RegionIndex([.polygon(open), .polygon(closed)])
      var probes = ring
      for _ in 0..<200 {
        probes.append(
          Coordinate(
            uncheckedLatitude: min(89.9, max(-89.9, y + rng.uniform(-1.3...1.3) * size)),
            longitude: Coordinate.normalizedLongitude(x + rng.uniform(-1.3...1.3) * size)))
      }
      for p in probes {
        let inside = index.regions(containing: p).map(\.rawValue).sorted()
        #expect(inside == [] || inside == ["closed", "open"], "seed \(seed) polygon \(k) at \(p)")
        #expect(closed.contains(p) == open.contains(p))
      }
    }
    // Most closed rings away from both meridians share their positions.
    #expect(shared >= total / 3, "\(shared) of \(total) shared")
  }

  @Test func ringsThatCannotShareKeepTheirOwnProjection() throws {
    let square = [(0.0, 10.0), (0.0, 11.0), (1.0, 11.0), (1.0, 10.0)].map {
      Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
    }
    let closed = square + [square[0]]
    #expect(try PolygonRegion(identifier: "plain", exterior: closed).planar.sharesPositions)
    // With a hole, across the antimeridian, or as a MultiPolygon: a projected copy.
    let hole = [(10.2, 0.2), (10.4, 0.2), (10.4, 0.4)].map { Coordinate(uncheckedLatitude: $0.1, longitude: $0.0) }
    #expect(try !PolygonRegion(identifier: "hole", exterior: closed, holes: [hole + [hole[0]]]).planar.sharesPositions)
    let across = [(179.5, 10.0), (-179.5, 10.0), (-179.5, 11.0), (179.5, 11.0), (179.5, 10.0)].map {
      Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
    }
    let acrossRegion = try PolygonRegion(identifier: "across", exterior: across)
    #expect(!acrossRegion.planar.sharesPositions)
    #expect(acrossRegion.contains(Coordinate(uncheckedLatitude: 10.5, longitude: -180)))
    let two = try PolygonRegion(
      identifier: RegionIdentifier("two"), polygons: [.init(exterior: closed), .init(exterior: closed.map { Coordinate(uncheckedLatitude: $0.latitude + 5, longitude: $0.longitude) })])
    #expect(!two.planar.sharesPositions)
  }
}
