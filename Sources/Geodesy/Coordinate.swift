/// A validated geographic position on the WGS84 ellipsoid, in degrees.
///
/// Latitude is in `-90...90`; longitude is normalised to `-180..<180` (a value of exactly 180 becomes
/// -180, 190 becomes -170). Both are finite: NaN and infinity are rejected with a
/// ``CoordinateError`` that names the value.
///
/// ```swift
/// let ferryBuilding = try Coordinate(latitude: 37.7955, longitude: -122.3937)
/// ```
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
  /// Geodetic latitude in degrees, `-90...90`.
  public let latitude: Double
  /// Longitude in degrees east, normalised to `-180..<180`.
  public let longitude: Double

  /// Creates a coordinate, normalising the longitude.
  ///
  /// - Parameters:
  ///   - latitude: Geodetic latitude in degrees; must be finite and in `-90...90`.
  ///   - longitude: Longitude in degrees east; any finite value (it is reduced to `-180..<180`).
  /// - Throws: ``CoordinateError`` naming the rejected component and value.
  @inlinable
  public init(latitude: Double, longitude: Double) throws(CoordinateError) {
    guard latitude.isFinite, latitude >= -90, latitude <= 90 else {
      throw CoordinateError(component: .latitude, value: latitude)
    }
    guard longitude.isFinite else {
      throw CoordinateError(component: .longitude, value: longitude)
    }
    self.latitude = latitude + 0.0  // turns -0 into +0 so equal points compare equal
    self.longitude = Coordinate.normalizedLongitude(longitude)
  }

  /// Creates a coordinate from values the caller has already validated.
  ///
  /// For hot paths that read millions of fixes: the caller guarantees `latitude` is finite and in
  /// `-90...90` and `longitude` is finite and in `-180..<180`. Checked in debug builds only.
  @inlinable
  public init(uncheckedLatitude latitude: Double, longitude: Double) {
    assert(latitude.isFinite && abs(latitude) <= 90, "latitude \(latitude) out of range")
    assert(longitude.isFinite && longitude >= -180 && longitude < 180, "longitude \(longitude) not normalised")
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Reduces a finite longitude to `-180..<180` exactly (IEEE remainder introduces no rounding).
  @inlinable
  public static func normalizedLongitude(_ longitude: Double) -> Double {
    if longitude >= -180 && longitude < 180 { return longitude + 0.0 }
    let reduced = longitude.remainder(dividingBy: 360)  // in -180...180, exact
    return reduced >= 180 ? reduced - 360 : reduced + 0.0
  }

  public var description: String { "(\(latitude), \(longitude))" }
}

/// Encoded as `{"latitude": …, "longitude": …}`; decoding validates as ``init(latitude:longitude:)``
/// does, so a saved coordinate out of range is a decoding error, not a coordinate.
extension Coordinate: Codable {
  private enum CodingKeys: String, CodingKey { case latitude, longitude }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let latitude = try container.decode(Double.self, forKey: .latitude)
    let longitude = try container.decode(Double.self, forKey: .longitude)
    do { try self.init(latitude: latitude, longitude: longitude) } catch {
      throw DecodingError.dataCorruptedError(
        forKey: error.component == .latitude ? .latitude : .longitude, in: container, debugDescription: error.description)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(latitude, forKey: .latitude)
    try container.encode(longitude, forKey: .longitude)
  }
}
