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
