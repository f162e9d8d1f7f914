/// One position report from a device: when, where, and how sure.
///
/// Time is seconds since the Unix epoch (UTC) as a `Double`: its resolution around the present is
/// below half a microsecond, far finer than any GPS clock, and interpolation needs no conversion.
public struct LocationFix: Hashable, Sendable, Codable {
  /// Seconds since 1970-01-01T00:00:00Z.
  public var time: Double
  /// Where the device was.
  public var coordinate: Coordinate
  /// Radius of the 68 % confidence circle in metres, or `nil` when the source does not say.
  public var horizontalAccuracy: Double?

  @inlinable
  public init(time: Double, coordinate: Coordinate, horizontalAccuracy: Double? = nil) {
    self.time = time
    self.coordinate = coordinate
    self.horizontalAccuracy = horizontalAccuracy
  }
}
