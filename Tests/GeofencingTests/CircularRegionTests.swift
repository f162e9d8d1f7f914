import Geodesy
import Geofencing
import Testing
import _GeoWakeTestSupport

@Suite("Circular regions")
struct CircularRegionTests {
  /// ≥ 10⁶ containment decisions against the exact geodesic answer, for points farther than 1 mm
  /// from the boundary. Each point is built at a known geodesic distance s from the centre (direct
  /// problem), then tested against many radii r with |s − r| > 1 mm, so the truth is s ≤ r.
  @Test func agreesWithTheExactGeodesicDecision() throws {
    var rng = SeededGenerator(seed: 2024)
    var checks = 0
    var failures = 0
    for _ in 0..<10_000 {
      let center = try Coordinate(latitude: rng.latitude(), longitude: rng.longitude())
      let s = Double.exp(rng.uniform(0...16))  // 1 m … 8,900 km
      let point = center.moved(s, azimuth: rng.uniform(-180...180))
      let truth = Geodesic.wgs84.distance(from: center, to: point)
      for _ in 0..<100 {
        // Radii from far inside to far outside, mostly close to s (the hard cases).
        let offset = rng.uniform(0...1) < 0.5 ? Double.exp(rng.uniform(-6.9...0)) : Double.exp(rng.uniform(-6.9...12))
        let radius = truth + (rng.uniform(0...1) < 0.5 ? -offset : offset)
        guard radius > 0, radius <= CircularRegion.maximumRadius, abs(radius - truth) > 1e-3 else { continue }
        let region = try CircularRegion(identifier: "c", center: center, radius: radius)
        if region.contains(point) != (truth <= radius) { failures += 1 }
        checks += 1
      }
    }
    #expect(checks >= 900_000)
    #expect(failures == 0)
  }

  /// Circles of 5 km to 10,000 km against GeographicLib's own distances (Fixtures/geodesic/
  /// circles.txt): the region, an index and a detector that walks from the centre to the point
  /// all say inside exactly when GeographicLib's s ≤ radius (|s − radius| > 1 mm).
  @Test func largeCirclesAgreeWithGeographicLib() throws {
    let records = try FixtureFiles.records("geodesic/circles.txt")
    #expect(records.count == 3_000)
    var nearBoundary = 0
    for (k, r) in records.enumerated() {
      let v = r.map { Double($0)! }
      let center = try Coordinate(latitude: v[0], longitude: v[1])
      let point = try Coordinate(latitude: v[3], longitude: v[4])
      let radius = v[2]
      let truth = v[5] <= radius
      if abs(v[5] - radius) < 1 { nearBoundary += 1 }
      let region = try CircularRegion(identifier: RegionIdentifier("c\(k)"), center: center, radius: radius)
      #expect(region.contains(point) == truth, "line \(k + 2): s \(v[5]) radius \(radius)")
      let index = RegionIndex([.circle(region)])
      #expect(index.regions(containing: point).isEmpty == !truth, "index, line \(k + 2)")
      var detector = CrossingDetector(regions: index)
      var crossings: [RegionCrossing] = []
      try detector.process(LocationFix(time: 0, coordinate: center), into: &crossings)
      try detector.process(LocationFix(time: 60, coordinate: point), into: &crossings)
      #expect(detector.isInside(region.identifier) == truth, "detector, line \(k + 2)")
    }
    #expect(nearBoundary > 1_000)
  }

  @Test(arguments: [0.0, -5.0, .nan, .infinity, 10_000_001.0])
  func rejectsBadRadius(_ radius: Double) throws {
    let center = try Coordinate(latitude: 0, longitude: 0)
    #expect(throws: RegionError.self) { try CircularRegion(identifier: "bad", center: center, radius: radius) }
  }

  @Test func radiusErrorsNameTheValueAndTheRange() throws {
    let center = try Coordinate(latitude: 0, longitude: 0)
    do {
      _ = try CircularRegion(identifier: "home", center: center, radius: -5)
      Issue.record("accepted a negative radius")
    } catch {
      #expect(error.description == "region \"home\": radius -5.0 is not positive: expected metres in (0, 10000000.0]")
    }
  }

  @Test func identifierRules() {
    #expect(throws: RegionError(identifier: "", reason: .emptyIdentifier)) { try RegionIdentifier("") }
    #expect(throws: RegionError(identifier: "a\tb", reason: .identifierHasControlCharacter(offset: 1))) {
      try RegionIdentifier("a\tb")
    }
    #expect(throws: RegionError.self) { try RegionIdentifier(String(repeating: "x", count: 257)) }
    #expect((try? RegionIdentifier("Café ☕")) != nil)
  }

  @Test func circlesAcrossTheAntimeridianAndAroundThePoles() throws {
    let dateline = try CircularRegion(identifier: "fiji", center: Coordinate(latitude: -17, longitude: 179.999), radius: 5000)
    #expect(dateline.contains(try Coordinate(latitude: -17, longitude: -179.98)))
    #expect(!dateline.contains(try Coordinate(latitude: -17, longitude: -179.9)))
    let pole = try CircularRegion(identifier: "north", center: Coordinate(latitude: 89.99, longitude: 0), radius: 5000)
    #expect(pole.contains(try Coordinate(latitude: 90, longitude: 0)))
    #expect(pole.contains(try Coordinate(latitude: 89.99, longitude: 180)))  // 2.2 km across the pole
    #expect(!pole.contains(try Coordinate(latitude: 89.9, longitude: 180)))
  }
}
