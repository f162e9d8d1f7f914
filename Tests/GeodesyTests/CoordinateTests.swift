import Geodesy
import Testing

@Suite("Coordinate validation")
struct CoordinateTests {
  @Test(arguments: [91.0, -90.0000001, .nan, .infinity, -.infinity])
  func rejectsBadLatitude(_ latitude: Double) {
    #expect(throws: CoordinateError(component: .latitude, value: latitude)) {
      try Coordinate(latitude: latitude, longitude: 0)
    }
  }

  @Test(arguments: [Double.nan, .infinity, -.infinity])
  func rejectsNonFiniteLongitude(_ longitude: Double) {
    #expect(throws: CoordinateError(component: .longitude, value: longitude)) {
      try Coordinate(latitude: 0, longitude: longitude)
    }
  }

  @Test(arguments: [
    (180.0, -180.0), (-180.0, -180.0), (190.0, -170.0), (540.0, -180.0), (-190.0, 170.0),
    (359.5, -0.5), (720.25, 0.25), (-0.0, 0.0), (179.99, 179.99),
  ])
  func normalisesLongitude(_ given: Double, _ expected: Double) throws {
    let c = try Coordinate(latitude: 10, longitude: given)
    #expect(c.longitude == expected)
    #expect(c.longitude.sign == expected.sign)
  }

  @Test func errorMessagesNameTheValueAndTheRange() {
    #expect(
      CoordinateError(component: .latitude, value: 91.5).description
        == "latitude 91.5 is out of range: expected a finite value in -90...90")
    #expect(
      CoordinateError(component: .longitude, value: .nan).description
        == "longitude nan is not a finite number: expected degrees east, any finite value")
  }

  @Test func polesAreValid() throws {
    #expect(try Coordinate(latitude: 90, longitude: 0).latitude == 90)
    #expect(try Coordinate(latitude: -90, longitude: 0).latitude == -90)
  }
}
