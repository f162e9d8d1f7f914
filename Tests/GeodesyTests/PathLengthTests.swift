import Geodesy
import Numerics
import SeededRandom
import Testing
import _GeoWakeTestSupport

/// A path's length step by step: short steps from their chord within the proven bound of Karney's
/// solution, longer ones Karney's; GeographicLib's short lines to the micrometre.
@Suite("Path length")
struct PathLengthTests {
  /// One step's length as the path measures it, and the chord it was measured from.
  static func step(_ a: Coordinate, _ b: Coordinate) -> (length: Double, chord: Double) {
    var path = PathLength()
    path.add(a)
    return (path.add(b), Ellipsoid.wgs84.chordDistance(a, b))
  }

  /// 10⁶ random short lines (250,000 per seed): anywhere on the ellipsoid, one in twenty within
  /// 0.1° of a pole, across the antimeridian, 1 mm to 1.5 km (past the chord limit too), each
  /// within the step's proven bound (plus 20 nm of rounding) of Karney's distance.
  @Test(arguments: [UInt64(1), 2, 3, 4])
  func shortStepsAreWithinTheirBoundOfKarney(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let geodesic = Geodesic.wgs84
    let path = PathLength()
    var worst = 0.0
    for k in 0..<250_000 {
      let latitude = k % 20 == 0 ? (rng.next(below: 2) == 0 ? 1.0 : -1.0) * rng.uniform(89.9...90) : Double.asin(rng.uniform(-1...1)) * 180 / .pi
      let start = Coordinate(uncheckedLatitude: latitude, longitude: k % 7 == 0 ? 180 - rng.uniform(0...0.01) : rng.uniform(-180..<180))
      let metres = Double.pow(10, rng.uniform(-3...Double.log10(1_500)))
      let end = try #require(geodesic.direct(from: start, azimuth: rng.uniform(-180...180), distance: metres)).destination
      let (length, chord) = Self.step(start, end)
      let reference = geodesic.distance(from: start, to: end)
      let allowed = chord <= PathLength.shortStepLimit ? path.stepErrorBound(forChord: chord) + 2e-8 : 1e-9
      worst = max(worst, abs(length - reference) / allowed)
      #expect(abs(length - reference) <= allowed, "\(start) → \(end): \(length) vs \(reference), chord \(chord)")
    }
    #expect(worst <= 1)
  }

  /// GeographicLib's short lines (1 mm to 1 km, `Fixtures/geodesic/inverse.txt`) to the micrometre.
  @Test func geographicLibShortLinesToTheMicrometre() throws {
    let lines = ReferenceLine.all.filter { $0.s12 <= 1_000 && $0.s12 > 0 }
    #expect(lines.count >= 100)
    for line in lines {
      let (length, _) = Self.step(
        Coordinate(uncheckedLatitude: line.lat1, longitude: line.lon1), Coordinate(uncheckedLatitude: line.lat2, longitude: line.lon2))
      #expect(abs(length - line.s12) <= 1e-6, "\(line.testDescription): \(length) vs \(line.s12)")
    }
  }

  /// A path sums its steps; a break starts a new piece without a step across the gap.
  @Test func stepsAddUpAndBreaksAddNothing() {
    var path = PathLength()
    let points = [(0.0, 0.0), (0.0, 0.001), (0.001, 0.001), (10.0, 10.0), (10.0, 10.001)].map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }
    var sum = 0.0
    for (k, p) in points.enumerated() {
      if k == 3 { path.breakPath() }
      let step = path.add(p)
      if k == 0 || k == 3 { #expect(step == 0) } else { sum += Geodesic.wgs84.distance(from: points[k - 1], to: p) }
    }
    #expect(abs(path.metres - sum) < 1e-7)
  }

  /// The bound: 0.52 µm at the 1 km limit, picometres at GPS steps.
  @Test func boundIsAHalfMicrometreAtTheLimit() {
    let path = PathLength()
    #expect(path.stepErrorBound(forChord: PathLength.shortStepLimit) < 0.53e-6)
    #expect(path.stepErrorBound(forChord: 25) < 1e-11)
  }
}
