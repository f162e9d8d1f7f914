import Geodesy
import Testing
import _GeoWakeTestSupport

@Suite("Chord bounds on the geodesic distance")
struct ChordBoundTests {
  let bound = ChordBound.wgs84

  @Test func geodesicLiesBetweenTheBoundsEverywhere() throws {
    var rng = SeededGenerator(seed: 11)
    for _ in 0..<20_000 {
      let p = try Coordinate(latitude: rng.latitude(), longitude: rng.longitude())
      let distance = Double.exp(rng.uniform(0...16.1))  // 1 m … 9,800 km
      guard let q = Geodesic.wgs84.direct(from: p, azimuth: rng.uniform(-180...180), distance: distance)?.destination
      else { Issue.record("direct failed"); continue }
      let s = Geodesic.wgs84.distance(from: p, to: q)
      let c = Ellipsoid.wgs84.chordDistance(p, q)
      // Rounding in the Cartesian conversion is below 1e-8 m; allow that much.
      #expect(c <= s + 1e-8, "chord \(c) exceeds geodesic \(s)")
      #expect(s <= bound.maximumGeodesic(forChord: c) + 1e-8, "geodesic \(s) exceeds bound for chord \(c)")
      #expect(c >= bound.minimumChord(forGeodesic: s) - 1e-8)
    }
  }

  @Test(arguments: [(2_000.0, 8.3e-6), (10_000.0, 1.04e-3), (100_000.0, 1.04)])
  func statedErrorMatchesTheCubicLaw(_ chord: Double, _ stated: Double) {
    let error = bound.maximumApproximationError(forChord: chord)
    #expect(abs(error - stated) / stated < 0.01, "error at \(chord) m is \(error)")
  }

  @Test func boundIsTightOnTheEquatorMeridian() throws {
    // Along the meridian through the equator the curvature is exactly κ, so s is close to the bound.
    let p = try Coordinate(latitude: -0.05, longitude: 0)
    let q = try Coordinate(latitude: 0.05, longitude: 0)
    let s = Geodesic.wgs84.distance(from: p, to: q)
    let c = Ellipsoid.wgs84.chordDistance(p, q)
    let slack = bound.maximumGeodesic(forChord: c) - s
    #expect(slack >= -1e-9)
    #expect(slack < 0.01 * bound.maximumApproximationError(forChord: c))
  }
}
