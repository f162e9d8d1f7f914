import Foundation
import Geodesy
import SyntheticData
import Testing

@testable import GEOSValidation
@testable import Geofencing

/// The certificate that lets a polygon pass validation without GEOS
/// (``PlanarPolygons/isCertainlySimpleRing``) against GEOS's own validity on the same projected
/// ring: never true for a ring GEOS finds invalid, over rings made to sit at the edge of
/// validity (vertices shuffled, a vertex on another edge or a few units in the last place from
/// it, on another vertex, collinear runs, spikes, repeated points, polygons a millionth of a degree
/// wide and across most of the globe); and true for every convex ring and nearly every valid star,
/// or it would spare GEOS nothing. `validateWithGEOS()` accepts exactly the rings GEOS finds valid.
@Suite struct SimpleRingCertificateTests {
  enum Kind: CaseIterable {
    case star, convex, flat, shuffled, onVertex, onEdge, nearEdge, nearLongEdge, collinear, spike, repeated, tiny, huge
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
      let certain = region.planar.isCertainlySimpleRing
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
    // The certificate spares GEOS the usual polygon.
    #expect(certified[.convex, default: 0] == total[.convex, default: 0])
    for kind in [Kind.star, .tiny, .huge] {
      #expect(
        Double(certified[kind, default: 0]) >= 0.95 * Double(valid[kind, default: 0]),
        "\(kind): \(certified[kind, default: 0]) of \(valid[kind, default: 0]) valid certified")
    }
    // Never where a vertex lies on another vertex or repeats. (A midpoint put on an edge is
    // mostly off its line by a rounding; where that leaves the ring simple, GEOS agrees.)
    for kind in [Kind.flat, .onVertex, .repeated] {
      #expect(certified[kind, default: 0] == 0, "\(kind)")
    }
  }

  @Test func holesAndPartsAreLeftToGEOS() throws {
    for region in try PolygonContainmentAgainstGEOSTests.polygons(seed: 5)
    where region.polygons.count > 1
      || !region.polygons[0].holes.isEmpty
    {
      #expect(!region.planar.isCertainlySimpleRing, "\(region.identifier)")
    }
  }
}
