import Foundation
import Geodesy
import SyntheticData
import Testing

@testable import GEOSValidation
@testable import Geofencing

/// The certificate that lets a polygon pass validation without GEOS
/// (``PlanarPolygons/isCertainlyValid``) against GEOS's own validity on the same projected
/// rings. One ring: never true for a ring GEOS finds invalid, over rings made to sit at the edge of
/// validity (vertices shuffled, a vertex on another edge or a few units in the last place from
/// it, on another vertex, collinear runs, spikes, repeated points, polygons a millionth of a degree
/// wide and across most of the globe); and true for every convex ring and nearly every valid star,
/// or it would spare GEOS nothing. `validateWithGEOS()` accepts exactly the rings GEOS finds valid.
@Suite struct ValidityCertificateTests {
  enum Kind: CaseIterable {
    case star, convex, flat, shuffled, onVertex, onEdge, nearEdge, nearLongEdge, collinear, spike, repeated, tiny, huge
    case straightRuns, runBackAlongASide
  }

  static func star(_ rng: inout SeededGenerator, x: Double, y: Double, count: Int, radii: ClosedRange<Double>)
    -> [(Double, Double)]
  {
    PolygonContainmentAgainstGEOSTests.star(&rng, x: x, y: y, count: count, radii: radii)
  }

  /// `x` moved by `steps` units in the last place.
  static func nudged(_ x: Double, _ steps: Int) -> Double {
    var x = x
    for _ in 0..<abs(steps) { x = steps > 0 ? x.nextUp : x.nextDown }
    return x
  }

  /// A ring of `kind` (open: the region closes it, or given closed every other time).
  static func ring(_ kind: Kind, _ rng: inout SeededGenerator) -> [(Double, Double)] {
    let x = rng.uniform(-170...170)
    let y = rng.uniform(-70...70)
    let size = [0.0001, 0.01, 0.5][Int(rng.next(below: 3))]
    // Triangles and quadrilaterals only where no vertex is moved onto another edge.
    let count = Int(rng.next(below: 61)) + (kind == .star || kind == .convex ? 3 : 5)
    var ring =
      kind == .nearLongEdge
      ? star(&rng, x: 0, y: 0, count: count, radii: 40...80)
      : star(&rng, x: x, y: y, count: count, radii: size * 0.3...size)
    // A vertex k and an edge m → m + 1 that does not touch it.
    let k = Int(rng.next(below: UInt64(ring.count)))
    let m = (k + 2 + Int(rng.next(below: UInt64(max(1, ring.count - 4))))) % ring.count
    switch kind {
    case .star:
      break
    case .convex:
      ring = (0..<count).map { i in
        let angle = Double(i) / Double(count) * 2 * .pi
        return (x + size * cos(angle), y + size * 0.7 * sin(angle))
      }
    case .flat:
      // Three vertices on one parallel or meridian, the last between the first two: a triangle
      // of no area.
      let step = size * rng.uniform(0.5...1)
      ring =
        rng.next(below: 2) == 0
        ? [(x, y), (x + 2 * step, y), (x + step, y)] : [(x, y), (x, y + 2 * step), (x, y + step)]
    case .shuffled:
      ring.swapAt(k, m)
    case .onVertex:
      ring[k] = ring[m]
    case .onEdge, .nearEdge, .nearLongEdge:
      let a = ring[m]
      let b = ring[(m + 1) % ring.count]
      let u = rng.uniform(0.1...0.9)
      var p = (a.0 + u * (b.0 - a.0), a.1 + u * (b.1 - a.1))
      if kind != .onEdge {
        p = (nudged(p.0, Int(rng.next(below: 9)) - 4), nudged(p.1, Int(rng.next(below: 9)) - 4))
      }
      ring[k] = p
    case .collinear:
      let a = ring[k]
      let b = ring[(k + 1) % ring.count]
      ring.insert((a.0 + (b.0 - a.0) / 2, a.1 + (b.1 - a.1) / 2), at: k + 1)
    case .spike:
      let a = ring[k]
      let b = ring[(k + 1) % ring.count]
      ring.insert(contentsOf: [(a.0 + (b.0 - a.0) * 3, a.1 + (b.1 - a.1) * 3), a], at: k + 1)
    case .repeated:
      ring.insert(ring[k], at: k)
    case .straightRuns, .runBackAlongASide:
      // A rectangle whose sides carry positions on their lines (exactly: one coordinate is the
      // side's), in order along each side; or, once, out of order (the ring steps back along the
      // side, over itself).
      let (west, south) = (x, y)
      let (east, north) = (x + size, y + size * rng.uniform(0.3...1))
      func along(_ from: Double, _ to: Double) -> [Double] {
        (0..<Int(rng.next(below: 4)) + 1).map { _ in from + (to - from) * rng.uniform(0.05...0.95) }
          .sorted { from < to ? $0 < $1 : $0 > $1 }
      }
      var bottom = along(west, east)
      if kind == .runBackAlongASide {
        bottom.append(bottom[0] - (bottom[0] - west) / 2)
      }
      ring =
        [(west, south)] + bottom.map { ($0, south) } + [(east, south)] + along(south, north).map { (east, $0) }
        + [(east, north)] + along(east, west).map { ($0, north) } + [(west, north)]
        + along(north, south).map { (west, $0) }
    case .tiny:
      ring = star(&rng, x: x, y: y, count: count, radii: 1e-7...1e-6)
    case .huge:
      ring = star(&rng, x: 0, y: 0, count: count, radii: 40...80)
    }
    if rng.next(below: 2) == 0 { ring.append(ring[0]) }
    return ring
  }

  @Test(arguments: [UInt64(31), 32, 33])
  func certifiedRingsAreValidForGEOS(seed: UInt64) throws {
    let context = try GEOSContext()
    var rng = SeededGenerator(seed: seed)
    var total: [Kind: Int] = [:]
    var valid: [Kind: Int] = [:]
    var certified: [Kind: Int] = [:]
    for n in 0..<2200 {
      let kind = Kind.allCases[n % Kind.allCases.count]
      let points = Self.ring(kind, &rng)
      let region = try PolygonRegion(
        identifier: "r\(n)", exterior: try points.map { try Coordinate(latitude: $0.1, longitude: $0.0) })
      let reason = try GEOSGeometry.polygonal(context, planar: region.planar).invalidityReason()
      let certain = region.planar.isCertainlyValid
      #expect(!certain || reason == nil, "\(kind) ring \(n) certified, GEOS: \(reason ?? "")")
      // Validation: exactly the rings GEOS finds valid pass.
      let passes = (try? region.validateWithGEOS()) != nil
      #expect(passes == (reason == nil), "\(kind) ring \(n): \(reason ?? "valid")")
      total[kind, default: 0] += 1
      if reason == nil { valid[kind, default: 0] += 1 }
      if certain { certified[kind, default: 0] += 1 }
    }
    // The generator reaches both sides of the line: invalid rings of the kinds made to be.
    for kind in [Kind.shuffled, .onVertex, .onEdge, .spike] {
      #expect(valid[kind, default: 0] < total[kind, default: 0], "\(kind): some invalid")
    }
    #expect(
      valid[.runBackAlongASide, default: 0] == 0 && valid[.straightRuns, default: 0] == total[.straightRuns, default: 0]
    )
    // The certificate spares GEOS the usual polygon.
    #expect(certified[.convex, default: 0] == total[.convex, default: 0])
    for kind in [Kind.star, .tiny, .huge, .repeated, .straightRuns] {
      #expect(
        Double(certified[kind, default: 0]) >= 0.95 * Double(valid[kind, default: 0]),
        "\(kind): \(certified[kind, default: 0]) of \(valid[kind, default: 0]) valid certified")
    }
    // Never where a vertex lies on another vertex, or the ring steps back along a line. (A
    // midpoint put on an edge is mostly off its line by a rounding; where that leaves the ring
    // simple, GEOS agrees.)
    for kind in [Kind.flat, .onVertex, .runBackAlongASide] {
      #expect(certified[kind, default: 0] == 0, "\(kind)")
    }
  }

  enum Layout: CaseIterable {
    case holes, holeOutside, holeAcrossExterior, nestedHoles, overlappingHoles, holeOnExteriorVertex, holeNearExterior
    case parts, partInHole, partInPart, overlappingParts, partsAtOneVertex
  }

  /// Polygons of several rings: holes inside their exterior ring or not, crossing it, touching it
  /// at a vertex or a few units in the last place from it, nested or overlapping; parts apart,
  /// in another's hole, inside another, overlapping, touching at a vertex.
  static func polygons(_ layout: Layout, _ rng: inout SeededGenerator) throws -> [PolygonRegion.Polygon] {
    let x = rng.uniform(-170...170)
    let y = rng.uniform(-70...70)
    let size = [0.0001, 0.01, 0.5][Int(rng.next(below: 3))]
    func ring(_ cx: Double, _ cy: Double, _ radii: ClosedRange<Double>, count: Int? = nil) -> [(Double, Double)] {
      star(
        &rng, x: cx, y: cy, count: count ?? Int(rng.next(below: 40)) + 5,
        radii: radii.lowerBound * size...radii.upperBound * size)
    }
    func coordinates(_ ring: [(Double, Double)]) throws -> [Coordinate] {
      try ring.map { try Coordinate(latitude: $0.1, longitude: $0.0) }
    }
    let exterior = ring(x, y, 0.6...1)
    var holes: [[(Double, Double)]] = []
    var parts: [([(Double, Double)], [[(Double, Double)]])] = []
    switch layout {
    case .holes:
      let n = Int(rng.next(below: 3)) + 1
      for k in 0..<n {
        let angle = Double(k) / Double(n) * 2 * .pi
        holes.append(
          ring(x + (n == 1 ? 0 : 0.3 * size * cos(angle)), y + (n == 1 ? 0 : 0.3 * size * sin(angle)), 0.05...0.12))
      }
    case .holeOutside:
      holes.append(ring(x + 3 * size, y, 0.1...0.3))
    case .holeAcrossExterior:
      holes.append(ring(x + 0.8 * size, y, 0.2...0.4))
    case .nestedHoles:
      holes.append(ring(x, y, 0.3...0.4))
      holes.append(ring(x, y, 0.05...0.1))
    case .overlappingHoles:
      holes.append(ring(x - 0.05 * size, y, 0.15...0.25))
      holes.append(ring(x + 0.05 * size, y, 0.15...0.25))
    case .holeOnExteriorVertex, .holeNearExterior:
      var hole = ring(x, y, 0.1...0.3)
      let k = Int(rng.next(below: UInt64(exterior.count)))
      hole[0] = exterior[k]
      if layout == .holeNearExterior {
        // Moved toward the centre by a few units in the last place.
        let steps = Int(rng.next(below: 4)) + 1
        let (hx, hy) = hole[0]
        hole[0] = (nudged(hx, x > hx ? steps : -steps), nudged(hy, y > hy ? steps : -steps))
      }
      holes.append(hole)
    case .parts:
      parts.append((ring(x + 3 * size, y, 0.6...1), [ring(x + 3 * size, y, 0.1...0.2)]))
    case .partInHole:
      holes.append(ring(x, y, 0.35...0.45))
      parts.append((ring(x, y, 0.1...0.2), []))
    case .partInPart:
      parts.append((ring(x, y, 0.1...0.2), []))
    case .overlappingParts:
      parts.append((ring(x + size, y, 0.6...1), []))
    case .partsAtOneVertex:
      var other = ring(x + 2.5 * size, y, 0.6...1)
      other[Int(rng.next(below: UInt64(other.count)))] = exterior[Int(rng.next(below: UInt64(exterior.count)))]
      parts.append((other, []))
    }
    var polygons = [PolygonRegion.Polygon(exterior: try coordinates(exterior), holes: try holes.map(coordinates))]
    for (shell, holes) in parts {
      polygons.append(PolygonRegion.Polygon(exterior: try coordinates(shell), holes: try holes.map(coordinates)))
    }
    return polygons
  }

  @Test(arguments: [UInt64(41), 42, 43])
  func certifiedPolygonsOfSeveralRingsAreValidForGEOS(seed: UInt64) throws {
    let context = try GEOSContext()
    var rng = SeededGenerator(seed: seed)
    var total: [Layout: Int] = [:]
    var valid: [Layout: Int] = [:]
    var certified: [Layout: Int] = [:]
    for n in 0..<1200 {
      let layout = Layout.allCases[n % Layout.allCases.count]
      let polygons = try Self.polygons(layout, &rng)
      guard let region = try? PolygonRegion(identifier: RegionIdentifier("p\(n)"), polygons: polygons) else { continue }
      let reason = try GEOSGeometry.polygonal(context, planar: region.planar).invalidityReason()
      let certain = region.planar.isCertainlyValid
      #expect(!certain || reason == nil, "\(layout) polygon \(n) certified, GEOS: \(reason ?? "")")
      let passes = (try? region.validateWithGEOS()) != nil
      #expect(passes == (reason == nil), "\(layout) polygon \(n): \(reason ?? "valid")")
      total[layout, default: 0] += 1
      if reason == nil { valid[layout, default: 0] += 1 }
      if certain { certified[layout, default: 0] += 1 }
    }
    // Both sides reached: the layouts made to be invalid mostly are.
    for layout in [
      Layout.holeOutside, .holeAcrossExterior, .nestedHoles, .overlappingHoles, .partInPart, .overlappingParts,
    ] {
      #expect(
        valid[layout, default: 0] < total[layout, default: 0] / 2, "\(layout): \(valid[layout, default: 0]) valid")
    }
    // Holes, parts apart and a part in a hole spare GEOS; a touch never does.
    for layout in [Layout.holes, .parts, .partInHole] {
      #expect(
        Double(certified[layout, default: 0]) >= 0.95 * Double(valid[layout, default: 0])
          && valid[layout, default: 0] > 50,
        "\(layout): \(certified[layout, default: 0]) of \(valid[layout, default: 0]) valid certified")
    }
    for layout in [Layout.holeOnExteriorVertex, .partsAtOneVertex] {
      #expect(certified[layout, default: 0] == 0, "\(layout)")
    }
  }

  /// A comb whose teeth are long edges side by side: every two of them overlap in longitude, so
  /// that a sweep over their boxes would look at every pair. With 1,000 teeth the certificate
  /// stops at its budget and leaves the polygon to GEOS, which finds it valid; with 10 it
  /// certifies it.
  @Test func aCombOfLongEdgesIsLeftToGEOSBeyondTheBudget() throws {
    func comb(teeth: Int) throws -> PolygonRegion {
      let (x, y, width, spine, step) = (10.0, 45.0, 0.5, 0.01, 0.0001)
      var ring = [(x, y)]
      for k in 0..<teeth {
        let bottom = y + Double(2 * k) * step
        ring += [(x + width, bottom), (x + width, bottom + step)]
        if k < teeth - 1 { ring += [(x + spine, bottom + step), (x + spine, bottom + 2 * step)] }
      }
      ring.append((x, y + Double(2 * teeth - 1) * step))
      return try PolygonRegion(
        identifier: "comb-\(teeth)", exterior: try ring.map { try Coordinate(latitude: $0.1, longitude: $0.0) })
    }
    let large = try comb(teeth: 1_000)
    #expect(!large.planar.isCertainlyValid)
    try large.validateWithGEOS()
    let small = try comb(teeth: 10)
    #expect(small.planar.isCertainlyValid)
    try small.validateWithGEOS()
  }

  /// Every polygon of the containment tests' generator (holes, MultiPolygons, collinear runs,
  /// spikes, holes touching their exterior ring) and the invalid ones made from them.
  @Test(arguments: [UInt64(5), 6])
  func containmentGeneratorPolygons(seed: UInt64) throws {
    let context = try GEOSContext()
    var regions = try PolygonContainmentAgainstGEOSTests.polygons(seed: seed)
    for (k, region) in regions.prefix(30).enumerated() {
      var exterior = region.polygons[0].exterior
      guard exterior.count >= 5 else { continue }
      exterior.swapAt(1, 3)
      regions.append(try PolygonRegion(identifier: "swapped-\(k)", exterior: exterior, holes: region.polygons[0].holes))
    }
    var certified = 0
    for region in regions {
      let reason = try GEOSGeometry.polygonal(context, planar: region.planar).invalidityReason()
      if region.planar.isCertainlyValid {
        certified += 1
        #expect(reason == nil, "\(region.identifier): \(reason ?? "")")
      }
    }
    #expect(certified > 20)
  }
}
