import Foundation
import Geodesy
import Geofencing
import Testing
import _GeoWakeTestSupport

struct PolygonFixture: Decodable {
  var id: String
  var coordinates: [[[[Double]]]]

  func region() throws -> PolygonRegion {
    let polygons = try coordinates.map { rings in
      let converted = try rings.map { ring in try ring.map { try Coordinate(latitude: $0[1], longitude: $0[0]) } }
      return PolygonRegion.Polygon(exterior: converted[0], holes: Array(converted.dropFirst()))
    }
    return try PolygonRegion(identifier: RegionIdentifier(id), polygons: polygons)
  }

  static func load() throws -> [String: PolygonRegion] {
    let data = try Data(contentsOf: FixtureFiles.url("polygons/polygons.json"))
    let fixtures = try JSONDecoder().decode([PolygonFixture].self, from: data)
    return try Dictionary(uniqueKeysWithValues: fixtures.map { ($0.id, try $0.region()) })
  }
}

@Suite("Polygon regions")
struct PolygonRegionTests {
  @Test func containmentAgreesWithShapely() throws {
    let polygons = try PolygonFixture.load()
    let rows = try FixtureFiles.records("polygons/containment.csv").dropFirst()  // header
    var index = RegionIndex()
    for region in polygons.values { index.insert(.polygon(region)) }
    var checked = 0
    for row in rows {
      let region = try #require(polygons[String(row[0])])
      let point = try Coordinate(latitude: #require(Double(row[1])), longitude: #require(Double(row[2])))
      let expected = row[3] == "1"
      #expect(region.contains(point) == expected, "\(row[0]) \(point)")
      #expect(index.regions(containing: point).contains(region.identifier) == expected, "index \(row[0]) \(point)")
      checked += 1
    }
    #expect(checked == 6000)
  }

  @Test func shortRingIsRejectedWithItsPosition() throws {
    let line = try [(0.0, 0.0), (1.0, 1.0), (0.0, 0.0)].map { try Coordinate(latitude: $0.1, longitude: $0.0) }
    #expect(throws: RegionError(identifier: "line", reason: .ringTooShort(polygon: 0, ring: 0, positions: 2))) {
      try PolygonRegion(identifier: "line", exterior: line)
    }
  }

  @Test func polygonAcrossTheAntimeridian() throws {
    // A square from 179.5° E to 179.5° W, written the way GeoJSON files usually carry it.
    let ring = try [(179.5, -1.0), (-179.5, -1.0), (-179.5, 1.0), (179.5, 1.0), (179.5, -1.0)].map {
      try Coordinate(latitude: $0.1, longitude: $0.0)
    }
    let region = try PolygonRegion(identifier: "dateline", exterior: ring)
    #expect(region.contains(try Coordinate(latitude: 0, longitude: 180)))
    #expect(region.contains(try Coordinate(latitude: 0.5, longitude: -179.9)))
    #expect(region.contains(try Coordinate(latitude: -0.5, longitude: 179.9)))
    #expect(!region.contains(try Coordinate(latitude: 0, longitude: 179)))
    #expect(!region.contains(try Coordinate(latitude: 0, longitude: -179)))
    #expect(!region.contains(try Coordinate(latitude: 0, longitude: 0)))
  }

  @Test func ringAroundAPoleEnclosesThePoleOnItsLeft() throws {
    // East-going ring at 80° N: the Arctic cap.
    let arctic = try stride(from: -180.0, to: 180, by: 30).map { try Coordinate(latitude: 80, longitude: $0) }
    let cap = try PolygonRegion(identifier: "arctic", exterior: arctic)
    #expect(cap.contains(try Coordinate(latitude: 90, longitude: 0)))
    #expect(cap.contains(try Coordinate(latitude: 85, longitude: -123)))
    #expect(!cap.contains(try Coordinate(latitude: 75, longitude: 10)))
    // West-going ring at 80° S: the Antarctic cap.
    let antarctic = try stride(from: 180.0, to: -180, by: -30).map { try Coordinate(latitude: -80, longitude: $0) }
    let south = try PolygonRegion(identifier: "antarctic", exterior: antarctic)
    #expect(south.contains(try Coordinate(latitude: -89, longitude: 45)))
    #expect(!south.contains(try Coordinate(latitude: -70, longitude: 45)))
  }
}
