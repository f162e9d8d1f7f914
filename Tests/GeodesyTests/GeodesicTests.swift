import Geodesy
import Numerics
import Testing
import _GeoWakeTestSupport

/// One reference line from `Fixtures/geodesic/inverse.txt` (GeographicLib, see its generator).
struct ReferenceLine: CustomTestStringConvertible, Sendable {
  var category: String
  var lat1, lon1, lat2, lon2, azi1, azi2, s12: Double

  var testDescription: String { "\(category) \(lat1) \(lon1) \(lat2) \(lon2)" }

  static let all: [ReferenceLine] = {
    guard let records = try? FixtureFiles.records("geodesic/inverse.txt") else { return [] }
    return records.compactMap { r in
      guard r.count == 8 else { return nil }
      let v = r.dropFirst().compactMap { Double($0) }
      guard v.count == 7 else { return nil }
      return ReferenceLine(category: String(r[0]), lat1: v[0], lon1: v[1], lat2: v[2], lon2: v[3],
                           azi1: v[4], azi2: v[5], s12: v[6])
    }
  }()
}

/// Azimuth difference in degrees, folded into -180...180.
func azimuthDifference(_ a: Double, _ b: Double) -> Double {
  let d = (a - b).remainder(dividingBy: 360)
  return abs(d)
}

@Suite("Geodesic against GeographicLib")
struct GeodesicTests {
  @Test func fixtureHasEveryCategory() {
    let categories = Set(ReferenceLine.all.map(\.category))
    #expect(ReferenceLine.all.count >= 1000)
    #expect(categories == ["random", "distance", "short", "equator", "pole", "dateline", "antipodal", "meridian"])
  }

  @Test func inverseDistanceWithinATenthOfAMillimetre() throws {
    var worst = 0.0
    for line in ReferenceLine.all {
      let p = try Coordinate(latitude: line.lat1, longitude: line.lon1)
      let q = try Coordinate(latitude: line.lat2, longitude: line.lon2)
      let r = Geodesic.wgs84.inverse(from: p, to: q)
      let error = abs(r.distance - line.s12)
      worst = max(worst, error)
      #expect(error <= 1e-4, "\(line.testDescription): s12 \(r.distance) vs \(line.s12)")
    }
    // Karney's algorithm is good to about 15 nm; a much larger worst case would mean a transcription slip.
    #expect(worst < 1e-6)
  }

  @Test func inverseAzimuthsMatch() throws {
    for line in ReferenceLine.all where line.s12 > 1e-3 {
      let p = try Coordinate(latitude: line.lat1, longitude: line.lon1)
      let q = try Coordinate(latitude: line.lat2, longitude: line.lon2)
      let r = Geodesic.wgs84.inverse(from: p, to: q)
      // An azimuth error δ moves the far end by about s·δ: require that to stay below 0.1 mm.
      let tolerance = max(1e-9, 1e-4 / line.s12 * 180 / .pi)
      #expect(azimuthDifference(r.initialAzimuth, line.azi1) <= tolerance, "\(line.testDescription) azi1")
      #expect(azimuthDifference(r.finalAzimuth, line.azi2) <= tolerance, "\(line.testDescription) azi2")
    }
  }

  @Test func directLandsOnTheReferenceEndPoint() throws {
    for line in ReferenceLine.all {
      let p = try Coordinate(latitude: line.lat1, longitude: line.lon1)
      let q = try Coordinate(latitude: line.lat2, longitude: line.lon2)
      let d = try #require(Geodesic.wgs84.direct(from: p, azimuth: line.azi1, distance: line.s12))
      let miss = Ellipsoid.wgs84.chordDistance(d.destination, q)
      #expect(miss <= 1e-4, "\(line.testDescription): direct missed by \(miss) m")
    }
  }

  @Test func inverseIsSymmetric() throws {
    var rng = SeededGenerator(seed: 7)
    for _ in 0..<2000 {
      let p = try Coordinate(latitude: rng.latitude(), longitude: rng.longitude())
      let q = try Coordinate(latitude: rng.latitude(), longitude: rng.longitude())
      let forward = Geodesic.wgs84.distance(from: p, to: q)
      let backward = Geodesic.wgs84.distance(from: q, to: p)
      #expect(abs(forward - backward) <= 1e-8)
    }
  }

  @Test func coincidentPointsAreZeroApart() throws {
    let p = try Coordinate(latitude: 37.7955, longitude: -122.3937)
    #expect(Geodesic.wgs84.distance(from: p, to: p) == 0)
  }

  @Test func directRejectsNonFiniteInput() throws {
    let p = try Coordinate(latitude: 0, longitude: 0)
    #expect(Geodesic.wgs84.direct(from: p, azimuth: .nan, distance: 1) == nil)
    #expect(Geodesic.wgs84.direct(from: p, azimuth: 0, distance: .infinity) == nil)
  }
}
