public import Geodesy

extension Coordinate {
  /// A position as a file gives it: latitude in -90...90 and longitude in -180...180.
  ///
  /// Unlike ``Coordinate/init(latitude:longitude:)``, a longitude beyond ±180 is not wrapped: in a
  /// file it is far more often a mistake (a unit, a shifted or swapped column, a value cut short)
  /// than a position past the antimeridian, and wrapping it would move the point silently.
  /// - Throws: ``CoordinateError`` naming the component out of range.
  public static func reading(latitude: Double, longitude: Double) throws(CoordinateError) -> Coordinate {
    guard longitude.isNaN || longitude.magnitude <= 180 || !latitude.isFinite || latitude.magnitude > 90 else {
      throw CoordinateError(component: .longitude, value: longitude)
    }
    return try Coordinate(latitude: latitude, longitude: longitude)
  }
}
