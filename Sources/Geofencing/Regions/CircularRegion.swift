public import Geodesy

/// A geodesic circle on WGS84: every point whose geodesic distance from `center` is at most `radius`.
///
/// The boundary belongs to the region. Containment is exact on the ellipsoid: a chord test with a
/// proven error bound (``ChordBound``) decides almost every point, and Karney's geodesic decides
/// the few within micrometres of the boundary.
public struct CircularRegion: Hashable, Sendable {
  /// The largest radius accepted: 10 000 km, about a quarter meridian.
  ///
  /// Past it a "circle" covers more than a hemisphere. Platform limits are much smaller and are
  /// applied by the monitoring profile (iOS caps radii at `maximumRegionMonitoringDistance`).
  public static let maximumRadius = 10_000_000.0

  /// The region's name, unique within a ``RegionIndex``.
  public let identifier: RegionIdentifier
  /// The centre.
  public let center: Coordinate
  /// Radius in metres, in `(0, maximumRadius]`.
  public let radius: Double

  /// Creates a circular region.
  /// - Throws: ``RegionError`` for a radius that is not finite, not positive, or above
  ///   ``maximumRadius``.
  public init(identifier: RegionIdentifier, center: Coordinate, radius: Double) throws(RegionError) {
    guard radius.isFinite else { throw RegionError(identifier: identifier.rawValue, reason: .radiusNotFinite(radius)) }
    guard radius > 0 else { throw RegionError(identifier: identifier.rawValue, reason: .radiusNotPositive(radius)) }
    guard radius <= Self.maximumRadius else {
      throw RegionError(identifier: identifier.rawValue, reason: .radiusTooLarge(radius))
    }
    self.identifier = identifier
    self.center = center
    self.radius = radius
  }

  /// A circle whose radius is known to be valid (it was checked when the region was made).
  init(validIdentifier identifier: RegionIdentifier, center: Coordinate, radius: Double) {
    self.identifier = identifier
    self.center = center
    self.radius = radius
  }

  /// Creates a circular region from a raw identifier string.
  public init(identifier: String, center: Coordinate, radius: Double) throws(RegionError) {
    try self.init(identifier: RegionIdentifier(identifier), center: center, radius: radius)
  }

  /// Whether `point` is inside or on the boundary (exact WGS84 geodesic distance ≤ radius).
  public func contains(_ point: Coordinate) -> Bool {
    CircleGeometry(self).contains(point)
  }
}
