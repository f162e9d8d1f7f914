import Foundation
import Geodesy
import SeededRandom
import Testing

@testable import Geofencing

/// A polygon given as one closed ring whose projection is its own positions keeps its vertices
/// once (the prepared geometry reads the region's positions); every other polygon keeps its own
/// projected copy. Either way the projected rings and every containment answer are the same. An
/// index keeps only the prepared rings of a region they give back exactly (closed rings, holes and
/// MultiPolygons included), and rebuilds the region from them.
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

  /// Every region comes back from an index exactly as it went in, bit for bit, whether the index
  /// kept it whole (open rings, rings across the antimeridian, a -0.0 where the ring closes with
  /// 0.0) or rebuilt it from its prepared rings (closed rings, holes, several parts).
  @Test(arguments: [UInt64(1), 2, 3])
  func regionsComeBackExactlyFromTheirRings(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var regions: [Region] = []
    var rebuilt = 0
    for k in 0..<300 {
      // Away from both meridians (where the projection is the positions themselves), across
      // the antimeridian, and across the prime meridian (where adding the steps between
      // longitudes of both signs rounds).
      let x = [rng.uniform(-170...(-1)), rng.uniform(1...170), 179.99, rng.uniform(-0.001...0.001)][k % 4]
      let y = rng.uniform(-60...60)
      let size = [0.001, 0.05][k % 2]
      var parts: [PolygonRegion.Polygon] = []
      for part in 0..<(1 + k % 3) {
        let cx = x + Double(part) * 3 * size
        let shell = try Self.star(&rng, x: cx, y: y, count: Int(rng.next() % 30) + 3, radii: size * 0.6...size)
        let hole = try Self.star(&rng, x: cx, y: y, count: Int(rng.next() % 8) + 3, radii: size * 0.1...size * 0.3)
        // Closed as GeoJSON closes them, mostly; open, or closed with -0.0 against 0.0, sometimes.
        func close(_ ring: [Coordinate]) -> [Coordinate] {
          switch rng.next() % 8 {
          case 0: return ring
          case 1 where ring[0].longitude == 0:
            return ring + [Coordinate(uncheckedLatitude: ring[0].latitude, longitude: -0.0)]
          default: return ring + [ring[0]]
          }
        }
        parts.append(.init(exterior: close(shell), holes: k % 4 == 0 ? [] : [close(hole.reversed())]))
      }
      let region = try PolygonRegion(identifier: RegionIdentifier("p\(k)"), polygons: parts)
      if region.planar.reproduces(region.polygons) { rebuilt += 1 }
      regions.append(.polygon(region))
    }
    let index = RegionIndex(regions)
    let back = index.allRegions
    #expect(back == regions.sorted { $0.identifier < $1.identifier })
    let bits = { (region: Region) -> [UInt64] in
      guard case .polygon(let p) = region else { return [] }
      return p.polygons.flatMap { [$0.exterior] + $0.holes }.flatMap {
        $0.flatMap { [$0.latitude.bitPattern, $0.longitude.bitPattern] }
      }
    }
    for region in regions {
      #expect(index[region.identifier].map(bits) == bits(region), "\(region.identifier)")
      #expect(index[region.identifier]?.stableHash == region.stableHash)
    }
    // Both ways are taken often.
    #expect(rebuilt > 60 && rebuilt < regions.count - 60, "\(rebuilt) of \(regions.count)")
    #expect(index.polygonRegions.compactMap { $0 }.count == regions.count - rebuilt)
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
      identifier: RegionIdentifier("two"),
      polygons: [
        .init(exterior: closed),
        .init(exterior: closed.map { Coordinate(uncheckedLatitude: $0.latitude + 5, longitude: $0.longitude) }),
      ])
    #expect(!two.planar.sharesPositions)
  }

  /// A closed ring read as its own positions without a projected copy being made
  /// (`PlanarPolygons.boxIfOwnProjection`) has exactly the rings and box the general construction
  /// gives the same ring open, bit for bit, and shares its positions exactly when every projected
  /// vertex is its position bit for bit: rings anywhere, at 0° and −0° of longitude, across the
  /// antimeridian, around a pole, with repeated and collinear positions.
  @Test(arguments: [UInt64(7), 8, 9])
  func ownProjectionMatchesTheGeneralConstruction(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var shared = 0
    for k in 0..<400 {
      let x = [rng.uniform(-179...179), 0, 179.9995, -179.9995, rng.uniform(-0.001...0.001)][k % 5]
      let y = k % 7 == 6 ? 88.5 : rng.uniform(-70...70)
      let size = k % 7 == 6 ? 3 : [0.0005, 0.01, 0.3][k % 3]
      var ring = try Self.star(&rng, x: x, y: y, count: Int(rng.next() % 30) + 3, radii: size * 0.5...size)
      if k % 7 == 6 {
        // Around the pole: longitudes from −175° to 175°, every step east, the closing one across
        // the antimeridian.
        let count = Int(rng.next() % 10) + 4
        ring = (0..<count).map { i in
          Coordinate(
            uncheckedLatitude: y - rng.uniform(0...2), longitude: -175 + 350 * Double(i) / Double(count - 1))
        }
      }
      if k % 5 == 1 { ring[0] = Coordinate(uncheckedLatitude: ring[0].latitude, longitude: k % 2 == 0 ? -0.0 : 0.0) }
      if k % 11 == 3 { ring.insert(ring[1], at: 1) }
      if k % 13 == 4 {
        let a = ring[1]
        let b = ring[2]
        ring.insert(
          Coordinate(uncheckedLatitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2),
          at: 2)
      }
      let closedRing = ring + [ring[0]]
      // A ring the general construction refuses is refused either way.
      guard let open = try? PolygonRegion(identifier: "open", exterior: ring).planar else {
        #expect(throws: RegionError.self) { try PolygonRegion(identifier: "closed", exterior: closedRing) }
        continue
      }
      let closed = try PolygonRegion(identifier: "closed", exterior: closedRing).planar
      let bits = { (rings: [[[Double]]]) in rings.map { $0.map { $0.map(\.bitPattern) } } }
      #expect(bits(closed.rings) == bits(open.rings), "seed \(seed) ring \(k)")
      #expect(
        [closed.box.south, closed.box.north, closed.box.west, closed.box.east].map(\.bitPattern)
          == [open.box.south, open.box.north, open.box.west, open.box.east].map(\.bitPattern))
      let own =
        open.rings.count == 1 && open.rings[0].count == 1
        && open.rings[0][0].count == 2 * closedRing.count
        && closedRing.enumerated().allSatisfy { i, p in
          open.rings[0][0][2 * i].bitPattern == p.longitude.bitPattern
            && open.rings[0][0][2 * i + 1].bitPattern == p.latitude.bitPattern
        }
      #expect(closed.sharesPositions == own, "seed \(seed) ring \(k)")
      if own { shared += 1 }
    }
    #expect(shared > 100 && shared < 400, "\(shared) shared")
  }
}
