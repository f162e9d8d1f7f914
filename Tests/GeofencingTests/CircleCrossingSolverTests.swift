import Geodesy
@testable import Geofencing
import Testing
import _GeoWakeTestSupport

/// The solver alone, on circles from 5 m to 50 km and segments up to 20 km, against a reference
/// that knows nothing of chords: dense samples of the path (linear in latitude and longitude)
/// decided by Karney's geodesic distance to the centre, each change of state bisected.
@Suite("Circle crossing solver")
struct CircleCrossingSolverTests {
  struct Case {
    var circle: CircularRegion
    var from: Coordinate
    var to: Coordinate
  }

  /// Random circles and segments near them: from outside to inside, across, past, and within.
  static func cases(seed: UInt64, count: Int) -> [Case] {
    var rng = SeededGenerator(seed: seed)
    var out: [Case] = []
    while out.count < count {
      let center = Coordinate(uncheckedLatitude: rng.uniform(-70...70), longitude: rng.uniform(-180..<180))
      let radius = Double.exp(rng.uniform(Double.log(5)...Double.log(50_000)))
      guard let circle = try? CircularRegion(identifier: "c\(out.count)", center: center, radius: radius) else { continue }
      if out.count % 3 == 2 {
        // Through the circle with both ends outside: ends 1.3 r from the centre, 130–230° apart.
        let bearing = rng.uniform(0..<360)
        let start = Geodesic.wgs84.direct(from: center, azimuth: bearing, distance: 1.3 * radius)!.destination
        let end = Geodesic.wgs84.direct(from: center, azimuth: bearing + rng.uniform(130...230), distance: 1.3 * radius)!.destination
        out.append(Case(circle: circle, from: start, to: end))
        continue
      }
      let length = min(20_000, radius * rng.uniform(0.05...4))
      let startDistance = radius * rng.uniform(0...2.5)
      let start = Geodesic.wgs84.direct(from: center, azimuth: rng.uniform(0..<360), distance: startDistance)!.destination
      let end = Geodesic.wgs84.direct(from: start, azimuth: rng.uniform(0..<360), distance: length)!.destination
      out.append(Case(circle: circle, from: start, to: end))
    }
    return out
  }

  /// Signed distance (metres) of the path's point at u outside the circle (negative inside).
  static func outside(_ c: Case, _ u: Double) -> Double {
    Geodesic.wgs84.distance(from: c.circle.center, to: BruteForceCrossings.point(c.from, c.to, u)) - c.circle.radius
  }

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func crossingsMatchTheGeodesicReference(seed: UInt64) throws {
    var compared = 0
    var passThroughs = 0
    for c in Self.cases(seed: seed, count: 100) {
      let samples = 2_000
      let values = (0...samples).map { Self.outside(c, Double($0) / Double(samples)) }
      // Grazing paths (a local extreme of the distance within a sample's step of the boundary)
      // are left out: no sampling reference can say whether they touch it.
      let step = Geodesic.wgs84.distance(from: c.from, to: c.to) / Double(samples)
      let grazes = (1..<samples).contains { k in
        let extreme = (values[k] <= values[k - 1] && values[k] <= values[k + 1]) || (values[k] >= values[k - 1] && values[k] >= values[k + 1])
        return extreme && abs(values[k]) <= 1e-3 + step
      }
      guard !grazes, abs(values[0]) > 1e-3, abs(values[samples]) > 1e-3 else { continue }
      var reference: [(u: Double, enter: Bool)] = []
      for k in 1...samples where (values[k - 1] <= 0) != (values[k] <= 0) {
        var lo = Double(k - 1) / Double(samples)
        var hi = Double(k) / Double(samples)
        let insideBefore = values[k - 1] <= 0
        for _ in 0..<60 {
          let mid = (lo + hi) / 2
          if (Self.outside(c, mid) <= 0) == insideBefore { lo = mid } else { hi = mid }
        }
        reference.append(((lo + hi) / 2, !insideBefore))
      }

      let path = PathSegment(from: c.from, at: 0, to: c.to, at: 1_000)
      let solver = CircleCrossingSolver(circle: CircleGeometry(c.circle), path: path, frame: .global)
      var roots: [(u: Double, enter: Bool)] = []
      solver.crossings(start: solver.evaluate(0), end: solver.evaluate(1), length: path.lengthBound(from: 0, to: 1), into: &roots)
      #expect(roots.count == reference.count, "radius \(c.circle.radius) m: \(roots) vs \(reference)")
      let metres = Geodesic.wgs84.distance(from: c.from, to: c.to)
      for (root, truth) in zip(roots, reference) {
        #expect(root.enter == truth.enter)
        // Located to a microsecond of the 1,000 s segment, plus what 60 bisections leave.
        #expect(abs(root.u - truth.u) * metres <= 1e-3, "radius \(c.circle.radius) m, \(metres) m segment")
        #expect(abs(Self.outside(c, root.u)) <= 1e-3)
      }
      if reference.count == 2 && (values[0] > 0) == (values[samples] > 0) { passThroughs += 1 }
      compared += 1
    }
    #expect(compared > 60)
    #expect(passThroughs > 10, "the cases should include paths through a circle with both ends outside")
  }

  /// One crossing of a short piece: ``CircleCrossingSolver/crossing(start:end:)`` is on the
  /// boundary, and it is what the general search finds.
  @Test func singleCrossingOnShortPieces() throws {
    var checked = 0
    for c in Self.cases(seed: 9, count: 400) {
      let path = PathSegment(from: c.from, at: 0, to: c.to, at: 60)
      guard path.lengthBound(from: 0, to: 1) <= CircleCrossingSolver.maximumPieceLength else { continue }
      let solver = CircleCrossingSolver(circle: CircleGeometry(c.circle), path: path, frame: .global)
      let start = solver.evaluate(0)
      let end = solver.evaluate(1)
      guard start.inside != end.inside else { continue }
      let u = solver.crossing(start: start, end: end)
      #expect(abs(Self.outside(c, u)) <= 1e-3, "radius \(c.circle.radius) m")
      var roots: [(u: Double, enter: Bool)] = []
      solver.crossings(start: start, end: end, length: path.lengthBound(from: 0, to: 1), into: &roots)
      #expect(roots.count == 1 && abs(roots[0].u - u) * 60 <= 2e-6)
      checked += 1
    }
    #expect(checked > 30)
  }
}
