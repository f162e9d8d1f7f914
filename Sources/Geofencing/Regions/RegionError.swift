import Geodesy

/// Why a region could not be created. The description names the region, the offending value and
/// what was expected.
public struct RegionError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The specific problem.
  public enum Reason: Hashable, Sendable {
    /// The identifier is empty.
    case emptyIdentifier
    /// The identifier is longer than ``RegionIdentifier/maximumUTF8Length`` bytes of UTF-8.
    case identifierTooLong(length: Int)
    /// The identifier contains a control character (U+0000–U+001F, U+007F).
    case identifierHasControlCharacter(offset: Int)
    /// The radius is NaN or infinite.
    case radiusNotFinite(Double)
    /// The radius is zero or negative.
    case radiusNotPositive(Double)
    /// The radius is above ``CircularRegion/maximumRadius``.
    case radiusTooLarge(Double)
    /// A polygon has no rings, or a multipolygon has no polygons.
    case emptyPolygon
    /// A ring has fewer than three distinct positions.
    case ringTooShort(polygon: Int, ring: Int, positions: Int)
    /// A hole ring encircles a pole, which only an exterior ring may do.
    case holeEncirclesPole(polygon: Int, ring: Int)
    /// The polygon is not valid; from the `GEOSValidation` module, the text is GEOS's
    /// `isValidReason` (with the location in GeoWake's projected coordinates, longitude unwrapped
    /// and latitude, in degrees).
    case invalidPolygon(String)
    /// The geometry engine (GEOS, in the `GEOSValidation` module) failed while building the geometry.
    case geometryEngine(String)
  }

  /// The identifier of the region being created (possibly the invalid identifier itself).
  public let identifier: String
  /// What was wrong.
  public let reason: Reason

  public init(identifier: String, reason: Reason) {
    self.identifier = identifier
    self.reason = reason
  }

  public var description: String {
    let name = "region \"\(identifier)\""
    switch reason {
    case .emptyIdentifier:
      return "region identifier is empty: expected 1 to \(RegionIdentifier.maximumUTF8Length) bytes of UTF-8"
    case .identifierTooLong(let length):
      return "region identifier is \(length) bytes long: expected at most \(RegionIdentifier.maximumUTF8Length) bytes of UTF-8"
    case .identifierHasControlCharacter(let offset):
      return "region identifier has a control character at byte \(offset): expected printable text"
    case .radiusNotFinite(let r):
      return "\(name): radius \(r) is not a finite number: expected metres in (0, \(CircularRegion.maximumRadius)]"
    case .radiusNotPositive(let r):
      return "\(name): radius \(r) is not positive: expected metres in (0, \(CircularRegion.maximumRadius)]"
    case .radiusTooLarge(let r):
      return "\(name): radius \(r) m is above the maximum \(CircularRegion.maximumRadius) m"
    case .emptyPolygon:
      return "\(name): polygon has no rings: expected an exterior ring and optional holes"
    case .ringTooShort(let polygon, let ring, let positions):
      return "\(name): polygon \(polygon) ring \(ring) has \(positions) distinct positions: expected at least 3"
    case .holeEncirclesPole(let polygon, let ring):
      return "\(name): polygon \(polygon) ring \(ring) is a hole that encircles a pole: only an exterior ring may"
    case .invalidPolygon(let why):
      return "\(name): invalid polygon: \(why)"
    case .geometryEngine(let message):
      return "\(name): geometry engine (GEOS) failed: \(message)"
    }
  }
}
