import GEOSValidation
import Geodesy
import Geofencing
import Testing

@Suite struct PolygonValidationTests {
  static func ring(_ points: [(Double, Double)]) throws -> [Coordinate] {
    try points.map { try Coordinate(latitude: $0.1, longitude: $0.0) }
  }

  @Test func selfIntersectingRingIsExplainedByGEOS() throws {
    // The core accepts it (even-odd containment); validation rejects it with GEOS's reason.
    let bowtie = try PolygonRegion(identifier: "bowtie", exterior: Self.ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]))
    #expect(throws: RegionError(identifier: "bowtie", reason: .invalidPolygon("Self-intersection[0.5 0.5]"))) {
      try bowtie.validateWithGEOS()
    }
  }

  @Test func holeOutsideItsShellIsInvalid() throws {
    let region = try PolygonRegion(
      identifier: "stray-hole", exterior: Self.ring([(0, 0), (1, 0), (1, 1), (0, 1)]),
      holes: [Self.ring([(2, 2), (3, 2), (3, 3), (2, 3)])])
    do {
      try region.validateWithGEOS()
      Issue.record("accepted a hole outside its shell")
    } catch {
      guard case .invalidPolygon(let reason) = error.reason else { Issue.record("\(error)"); return }
      #expect(reason.hasPrefix("Hole lies outside shell"), "\(reason)")
    }
  }

  @Test func validPolygonsAndCirclesPass() throws {
    let square = try PolygonRegion(
      identifier: "square", exterior: Self.ring([(0, 0), (1, 0), (1, 1), (0, 1)]),
      holes: [Self.ring([(0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.25, 0.75)])])
    try square.validateWithGEOS()
    try Region.circle(CircularRegion(identifier: "c", center: Coordinate(latitude: 1, longitude: 2), radius: 50))
      .validateWithGEOS()
  }
}

/// The validation's geometry, made from the projected rings where they lie, against the same rings
/// copied into nested arrays (the plain construction): the same validity and the same reason for
/// every polygon of the containment tests' generator (holes, multipolygons, collinear runs,
/// spikes, touching holes; rings given open and closed, so both vertex stores) and for invalid
/// ones made from them (a ring crossing itself, a hole outside its shell).
@Suite struct PolygonValidationGeometryTests {
  static func reason(_ geometry: GEOSGeometry) throws -> String {
    try geometry.invalidityReason() ?? "valid"
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func planarConstructionMatchesNestedArrays(seed: UInt64) throws {
    let context = try GEOSContext()
    var regions = try PolygonContainmentAgainstGEOSTests.polygons(seed: seed)
    // Invalid ones: each exterior with two vertices swapped (mostly self-crossing), and with a
    // hole moved far outside it.
    for (k, region) in regions.prefix(20).enumerated() {
      var exterior = region.polygons[0].exterior
      guard exterior.count >= 5 else { continue }
      exterior.swapAt(1, 3)
      regions.append(try PolygonRegion(identifier: "swapped-\(k)", exterior: exterior))
      let outside = try region.polygons[0].exterior.map {
        try Coordinate(latitude: min(89, $0.latitude + 20), longitude: $0.longitude)
      }
      regions.append(try PolygonRegion(identifier: "stray-\(k)", exterior: region.polygons[0].exterior, holes: [outside]))
    }
    var invalid = 0
    for region in regions {
      let planar = region.planar
      let direct = try Self.reason(GEOSGeometry.polygonal(context, planar: planar))
      let nested = try Self.reason(GEOSGeometry.polygonal(context, polygons: planar.rings))
      #expect(direct == nested, "\(region.identifier)")
      if direct != "valid" { invalid += 1 }
    }
    #expect(invalid >= 20, "the invalid polygons were found invalid")
  }
}
