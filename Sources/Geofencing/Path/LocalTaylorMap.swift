import Geodesy
import RealModule

/// Earth-centred coordinates of points near a reference point, relative to it, by Taylor
/// polynomials of the WGS84 map (φ, λ) ↦ (X, Y, Z): a handful of multiplies, no square root,
/// division or series.
///
/// - Second order (``offset(latitude:longitude:)``): ``CircleFilter`` takes its single-precision
///   look through it; its error, 0.4 mm in a level-14 cell, goes into the filter's slack.
/// - Third order (``preciseOffset(latitude:longitude:)``): the exact tests' coordinates for fixes
///   in a small cell (``CellCandidates/cartesian(latitude:longitude:)``), where its error is
///   under a nanometre, inside the rounding allowance of ``CircleGeometry/slack``.
///
/// **Error bounds.** With X = g(φ) cos λ, Y = g(φ) sin λ, Z = h(φ), g = N cos φ,
/// h = N (1 − e²) sin φ and N = a / √(1 − e² sin² φ), a partial derivative of order k is ±g⁽ʲ⁾
/// times a sine or cosine of λ, or h⁽ᵏ⁾, and g⁽ᵏ⁾, h⁽ᵏ⁾ are sums of products of N⁽ⁱ⁾ with sines
/// and cosines of φ, with binomial weights. Over all latitudes |N| ≤ 1.0034 a, |N′| < 0.0034 a,
/// |N″| < 0.0068 a, |N‴| < 0.0135 a and |N⁗| < 0.0275 a, so
/// - every third partial is below 1.0034 + 3·0.0034 + 3·0.0068 + 0.0135 < 1.1 a;
/// - every fourth partial is below 1.0034 + 4·0.0034 + 6·0.0068 + 4·0.0135 + 0.0275 < 1.2 a.
///
/// Taylor's theorem in two variables then bounds each coordinate's error by
/// 1.1 a (|δφ| + |δλ|)³ / 6 at second order and 1.2 a (|δφ| + |δλ|)⁴ / 24 at third order
/// (radians), and the distance error by √3 times that (``errorBound(reach:)``,
/// ``preciseErrorBound(reach:)``). For a fix within three half-cells of a level-14 cell's centre
/// (|δφ|, |δλ| ≤ 2.9e-4 rad) the second-order bound is 0.4 mm; within the cell itself
/// (|δφ|, |δλ| ≤ 9.6e-5 rad) the third-order bound is 0.75 nm. `LocalTaylorMapTests` compares
/// both with the exact map.
struct LocalTaylorMap {
  let latitude: Double
  let longitude: Double
  /// First, second and third partial derivatives at the reference point (metres per radian,
  /// per radian², per radian³).
  let dPhi: SIMD3<Double>
  let dLambda: SIMD3<Double>
  let dPhiPhi: SIMD3<Double>
  let dPhiLambda: SIMD3<Double>
  let dLambdaLambda: SIMD3<Double>
  let dPhiPhiPhi: SIMD3<Double>
  let dPhiPhiLambda: SIMD3<Double>
  let dPhiLambdaLambda: SIMD3<Double>
  let dLambdaLambdaLambda: SIMD3<Double>

  init(latitude: Double, longitude: Double, ellipsoid: Ellipsoid = .wgs84) {
    self.latitude = latitude
    self.longitude = longitude
    let phi = latitude * (Double.pi / 180)
    let lambda = longitude * (Double.pi / 180)
    let (sinPhi, cosPhi) = (Double.sin(phi), Double.cos(phi))
    let (sinLambda, cosLambda) = (Double.sin(lambda), Double.cos(lambda))
    let a = ellipsoid.equatorialRadius
    let e2 = ellipsoid.eccentricitySquared
    let w = 1 - e2 * sinPhi * sinPhi
    let n = a / w.squareRoot()
    // N′ = a e² sin φ cos φ / W^(3/2); N″ = a e² (cos 2φ / W^(3/2) + (3/4) e² sin² 2φ / W^(5/2));
    // N‴ = a e² sin 2φ ((15/8) e⁴ sin² 2φ / W^(7/2) + (9/2) e² cos 2φ / W^(5/2) − 2 / W^(3/2)).
    let w32 = w * w.squareRoot()
    let w52 = w32 * w
    let w72 = w52 * w
    let sin2Phi = 2 * sinPhi * cosPhi
    let cos2Phi = cosPhi * cosPhi - sinPhi * sinPhi
    let n1 = a * e2 * sinPhi * cosPhi / w32
    let n2 = a * e2 * (cos2Phi / w32 + 0.75 * e2 * sin2Phi * sin2Phi / w52)
    let n3 =
      a * e2 * sin2Phi
      * (1.875 * e2 * e2 * sin2Phi * sin2Phi / w72 + 4.5 * e2 * cos2Phi / w52 - 2 / w32)
    // g = N cos φ (X and Y), h = N (1 − e²) sin φ (Z), and their φ-derivatives.
    let g = n * cosPhi
    let g1 = n1 * cosPhi - n * sinPhi
    let g2 = n2 * cosPhi - 2 * n1 * sinPhi - n * cosPhi
    let g3 = n3 * cosPhi - 3 * n2 * sinPhi - 3 * n1 * cosPhi + n * sinPhi
    let h1 = (1 - e2) * (n1 * sinPhi + n * cosPhi)
    let h2 = (1 - e2) * (n2 * sinPhi + 2 * n1 * cosPhi - n * sinPhi)
    let h3 = (1 - e2) * (n3 * sinPhi + 3 * n2 * cosPhi - 3 * n1 * sinPhi - n * cosPhi)
    dPhi = SIMD3(g1 * cosLambda, g1 * sinLambda, h1)
    dLambda = SIMD3(-g * sinLambda, g * cosLambda, 0)
    dPhiPhi = SIMD3(g2 * cosLambda, g2 * sinLambda, h2)
    dPhiLambda = SIMD3(-g1 * sinLambda, g1 * cosLambda, 0)
    dLambdaLambda = SIMD3(-g * cosLambda, -g * sinLambda, 0)
    dPhiPhiPhi = SIMD3(g3 * cosLambda, g3 * sinLambda, h3)
    dPhiPhiLambda = SIMD3(-g2 * sinLambda, g2 * cosLambda, 0)
    dPhiLambdaLambda = SIMD3(-g1 * cosLambda, -g1 * sinLambda, 0)
    dLambdaLambdaLambda = SIMD3(g * sinLambda, -g * cosLambda, 0)
  }

  /// The offsets of (latitude, longitude) from the reference point in radians, the longitude
  /// taken the short way round.
  @inline(__always)
  func radians(latitude: Double, longitude: Double) -> (u: Double, v: Double) {
    var dLon = longitude - self.longitude
    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
    return ((latitude - self.latitude) * (Double.pi / 180), dLon * (Double.pi / 180))
  }

  /// The Earth-centred offset of (latitude, longitude) from the reference point, to second order.
  @inline(__always)
  func offset(latitude: Double, longitude: Double) -> SIMD3<Double> {
    let (u, v) = radians(latitude: latitude, longitude: longitude)
    return offset(u: u, v: v)
  }

  /// The second-order offset of the point `u`, `v` radians from the reference point.
  @inline(__always)
  func offset(u: Double, v: Double) -> SIMD3<Double> {
    let linear = dPhi * u + dLambda * v
    let quadratic = dPhiPhi * (u * u) + dPhiLambda * (2 * u * v) + dLambdaLambda * (v * v)
    return linear + quadratic * 0.5
  }

  /// The Earth-centred offset of (latitude, longitude) from the reference point, to third order.
  @inline(__always)
  func preciseOffset(latitude: Double, longitude: Double) -> SIMD3<Double> {
    let (u, v) = radians(latitude: latitude, longitude: longitude)
    return offset(u: u, v: v) + cubicTerm(u: u, v: v)
  }

  /// The third-order term at the point `u`, `v` radians from the reference point: added to
  /// ``offset(u:v:)`` it gives ``preciseOffset(latitude:longitude:)``.
  @inline(__always)
  func cubicTerm(u: Double, v: Double) -> SIMD3<Double> {
    let uu = u * u
    let vv = v * v
    let cubic =
      dPhiPhiPhi * (uu * u) + dPhiPhiLambda * (3 * uu * v) + dPhiLambdaLambda * (3 * u * vv)
      + dLambdaLambdaLambda * (vv * v)
    return cubic * (1.0 / 6)
  }

  /// A bound on the distance between ``offset(latitude:longitude:)`` and the exact offset for
  /// points within `reach` degrees of the reference point in latitude and in longitude.
  static func errorBound(reach: Double, ellipsoid: Ellipsoid = .wgs84) -> Double {
    let d = 2 * reach * (Double.pi / 180)
    return 3.0.squareRoot() * 1.1 * ellipsoid.equatorialRadius * d * d * d / 6
  }

  /// A bound on the distance between ``preciseOffset(latitude:longitude:)`` and the exact offset
  /// for points within `reach` degrees of the reference point in latitude and in longitude.
  static func preciseErrorBound(reach: Double, ellipsoid: Ellipsoid = .wgs84) -> Double {
    let d = 2 * reach * (Double.pi / 180)
    return 3.0.squareRoot() * 1.2 * ellipsoid.equatorialRadius * d * d * d * d / 24
  }
}
