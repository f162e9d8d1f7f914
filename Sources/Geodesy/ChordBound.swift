public import RealModule

/// Proven two-sided bounds between straight-line (chord) distance and geodesic distance on an
/// ellipsoid: the fast filter behind every containment decision in GeoWake.
///
/// For two points on the surface with chord length c (straight line through the Earth, from
/// ``Ellipsoid/cartesian(_:)``) and geodesic distance s ≤ π/κ, where κ = a/b² is the largest normal
/// curvature of the ellipsoid (``Ellipsoid/maximumNormalCurvature``):
///
///     c  ≤  s  ≤  (2/κ) · asin(κc/2)
///
/// **Proof.** The left inequality holds because a straight segment is the shortest curve between
/// two points in space. For the right one, take the geodesic γ of length s joining the points. A
/// geodesic has zero geodesic curvature, so its curvature as a space curve equals the normal
/// curvature of the surface in its direction, which lies between the principal curvatures 1/N and
/// 1/M and is therefore at most κ. Compare γ with a circular arc of radius 1/κ and the same length
/// s: the arc is a plane convex curve (closed by its chord) as long as sκ ≤ π, and its curvature is
/// everywhere ≥ that of γ. Schur's comparison theorem (A. Schur 1921; see S. S. Chern, *Curves and
/// surfaces in Euclidean space*, 1967) then says γ's chord is at least the arc's chord:
/// c ≥ (2/κ) sin(κs/2). Inverting this monotone function gives the right inequality. ∎
///
/// **Error of the approximation s ≈ c.** From the bounds, 0 ≤ s − c ≤ (2/κ)asin(κc/2) − c ≈ κ²c³/24.
/// On WGS84 (κ = 1/6 335 439.3 m) that is 8.3 µm at 2 km, 1.04 mm at 10 km, 1.04 m at 100 km:
/// ``maximumApproximationError(forChord:)`` returns it exactly. GeoWake therefore decides most
/// containment questions from the chord alone and calls the exact ``Geodesic`` solution only for
/// points inside this thin band.
public struct ChordBound: Sendable, Hashable {
  /// κ, the largest normal curvature of the ellipsoid (1/m).
  public let curvature: Double

  /// The longest geodesic distance the bounds are proven for: π/κ (19 903 km on WGS84).
  public var maximumGeodesicDistance: Double { Double.pi / curvature }

  /// Bounds for WGS84.
  public static let wgs84 = ChordBound(ellipsoid: .wgs84)

  public init(ellipsoid: Ellipsoid) {
    curvature = ellipsoid.maximumNormalCurvature
  }

  /// The smallest chord any pair of points at geodesic distance `s` can have: (2/κ) sin(κs/2).
  ///
  /// Every point whose chord to a centre is at most this is within geodesic distance `s` of it.
  /// - Precondition: `0 ≤ s ≤ maximumGeodesicDistance`.
  @inlinable public func minimumChord(forGeodesic s: Double) -> Double {
    let x = curvature * s / 2
    guard x > 1e-3 else {
      // sin x by its series: for x ≤ 1e-3 (s ≤ 12.7 km) the first omitted term, x⁹/9!, is below
      // 3e-30 of x, far under rounding.
      let x2 = x * x
      return 2 / curvature * (x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42))))
    }
    return 2 / curvature * Double.sin(x)
  }

  /// The largest geodesic distance a pair of points with chord `c` can have: (2/κ) asin(κc/2).
  @inlinable public func maximumGeodesic(forChord c: Double) -> Double {
    2 / curvature * Double.asin(min(1, curvature * c / 2))
  }

  /// The largest possible error of approximating the geodesic distance by the chord `c`.
  @inlinable public func maximumApproximationError(forChord c: Double) -> Double {
    maximumGeodesic(forChord: c) - c
  }
}

extension Ellipsoid {
  /// Earth-centred, Earth-fixed Cartesian coordinates (metres) of a point on the surface (height 0).
  ///
  /// x points to (0°, 0°), y to (0°, 90° E), z to the north pole. Relative error is a few units in
  /// the last place (absolute error below 10 nm), which callers include in their tolerances.
  @inlinable public func cartesian(_ c: Coordinate) -> SIMD3<Double> {
    let (sinLat, cosLat) = DegreeMath.sinCos(c.latitude)
    let (sinLon, cosLon) = DegreeMath.sinCos(c.longitude)
    return cartesian(sinLatitude: sinLat, cosLatitude: cosLat, sinLongitude: sinLon, cosLongitude: cosLon)
  }

  /// ECEF coordinates from the sines and cosines of latitude and longitude.
  @inlinable public func cartesian(
    sinLatitude sinLat: Double, cosLatitude cosLat: Double, sinLongitude sinLon: Double, cosLongitude cosLon: Double
  ) -> SIMD3<Double> {
    let e2 = eccentricitySquared
    let nRadius = equatorialRadius / (1 - e2 * sinLat * sinLat).squareRoot()
    let p = nRadius * cosLat
    return SIMD3(p * cosLon, p * sinLon, nRadius * (1 - e2) * sinLat)
  }

  /// Straight-line distance in metres between two surface points.
  @inlinable public func chordDistance(_ p: Coordinate, _ q: Coordinate) -> Double {
    let d = cartesian(p) - cartesian(q)
    return (d * d).sum().squareRoot()
  }
}
