/// An oblate ellipsoid of revolution: the reference surface for latitudes, longitudes and distances.
///
/// Only ``wgs84`` is used by GeoWake; the type exists so that every derived constant is computed in
/// one place and named.
public struct Ellipsoid: Hashable, Sendable {
  /// Equatorial radius *a* in metres.
  public let equatorialRadius: Double
  /// Flattening *f* = (a − b) / a.
  public let flattening: Double

  /// WGS84: a = 6 378 137 m, f = 1 / 298.257223563.
  public static let wgs84 = Ellipsoid(uncheckedEquatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

  /// Creates an ellipsoid; GeoWake supports only oblate or spherical ones (0 ≤ f < 1/50).
  public init?(equatorialRadius: Double, flattening: Double) {
    guard equatorialRadius.isFinite, equatorialRadius > 0, flattening.isFinite, flattening >= 0,
      flattening < 1.0 / 50
    else { return nil }
    self.init(uncheckedEquatorialRadius: equatorialRadius, flattening: flattening)
  }

  init(uncheckedEquatorialRadius a: Double, flattening f: Double) {
    self.equatorialRadius = a
    self.flattening = f
  }

  /// Polar semi-axis *b* = a (1 − f).
  @inlinable public var polarRadius: Double { equatorialRadius * (1 - flattening) }
  /// First eccentricity squared, e² = f (2 − f).
  @inlinable public var eccentricitySquared: Double { flattening * (2 - flattening) }

  /// The largest normal curvature anywhere on the surface, κ = a / b² (in 1/m).
  ///
  /// The principal radii of curvature are the meridional M = a(1 − e²)/(1 − e² sin²φ)^{3/2} and the
  /// prime-vertical N = a/(1 − e² sin²φ)^{1/2}; M ≤ N everywhere and M is smallest at the equator,
  /// where M = a(1 − e²) = b²/a. Every curve on the surface whose geodesic curvature is zero (a
  /// geodesic) therefore has space curvature at most a/b². ``ChordBound`` relies on this.
  @inlinable public var maximumNormalCurvature: Double {
    equatorialRadius / (polarRadius * polarRadius)
  }

  /// Meridional radius of curvature M(φ) in metres, from sin φ.
  @inlinable public func meridionalRadius(sinLatitude s: Double) -> Double {
    let e2 = eccentricitySquared
    let w = 1 - e2 * s * s
    return equatorialRadius * (1 - e2) / (w * w.squareRoot())
  }

  /// Radius of the parallel p(φ) = N(φ) cos φ in metres, from sin φ and cos φ.
  @inlinable public func parallelRadius(sinLatitude s: Double, cosLatitude c: Double) -> Double {
    equatorialRadius * c / (1 - eccentricitySquared * s * s).squareRoot()
  }
}
