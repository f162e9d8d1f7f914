import Geodesy
import RealModule

/// Earth-centred coordinates of points near a reference point, relative to it, by the
/// second-order Taylor polynomial of the WGS84 map (φ, λ) ↦ (X, Y, Z): a handful of multiplies,
/// no square root, division or series. ``CircleFilter`` takes its single-precision look through
/// it; the exact tests still use ``CartesianFrame``.
///
/// **Error bound.** With X = N cos φ cos λ, Y = N cos φ sin λ, Z = N (1 − e²) sin φ and
/// N = a / √(1 − e² sin² φ), every third partial derivative is a sum of products of N, N′, N″,
/// N‴ with sines and cosines, at most eight terms with binomial weights 1, 3, 3, 1: |N| ≤
/// 1.0034 a, |N′|, |N″| < 0.01 a and |N‴| < 0.02 a, so each third partial is below 1.1 a. Taylor's theorem in two variables then bounds each coordinate's error by
/// 1.1 a (|δφ| + |δλ|)³ / 6 (radians), and the distance error by √3 times that
/// (``errorBound(reach:)``). For a fix within three half-cells of a level-14 cell's centre
/// (|δφ|, |δλ| ≤ 2.9e-4 rad) that is 0.4 mm; `LocalQuadraticMapTests` compares with the exact map.
struct LocalQuadraticMap {
  let latitude: Double
  let longitude: Double
  /// First and second partial derivatives at the reference point (metres per radian, per radian²).
  let dPhi: SIMD3<Double>
  let dLambda: SIMD3<Double>
  let dPhiPhi: SIMD3<Double>
  let dPhiLambda: SIMD3<Double>
  let dLambdaLambda: SIMD3<Double>

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
    // N′ = a e² sin φ cos φ / W^(3/2); N″ = a e² (cos 2φ / W^(3/2) + (3/4) e² sin² 2φ / W^(5/2)).
    let w32 = w * w.squareRoot()
    let sin2Phi = 2 * sinPhi * cosPhi
    let cos2Phi = cosPhi * cosPhi - sinPhi * sinPhi
    let n1 = a * e2 * sinPhi * cosPhi / w32
    let n2 = a * e2 * (cos2Phi / w32 + 0.75 * e2 * sin2Phi * sin2Phi / (w32 * w))
    // g = N cos φ (X and Y), h = N (1 − e²) sin φ (Z), and their φ-derivatives.
    let g = n * cosPhi
    let g1 = n1 * cosPhi - n * sinPhi
    let g2 = n2 * cosPhi - 2 * n1 * sinPhi - n * cosPhi
    let h1 = (1 - e2) * (n1 * sinPhi + n * cosPhi)
    let h2 = (1 - e2) * (n2 * sinPhi + 2 * n1 * cosPhi - n * sinPhi)
    dPhi = SIMD3(g1 * cosLambda, g1 * sinLambda, h1)
    dLambda = SIMD3(-g * sinLambda, g * cosLambda, 0)
    dPhiPhi = SIMD3(g2 * cosLambda, g2 * sinLambda, h2)
    dPhiLambda = SIMD3(-g1 * sinLambda, g1 * cosLambda, 0)
    dLambdaLambda = SIMD3(-g * cosLambda, -g * sinLambda, 0)
  }

  /// The Earth-centred offset of (latitude, longitude) from the reference point.
  @inline(__always)
  func offset(latitude: Double, longitude: Double) -> SIMD3<Double> {
    var dLon = longitude - self.longitude
    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
    let u = (latitude - self.latitude) * (Double.pi / 180)
    let v = dLon * (Double.pi / 180)
    let linear = dPhi * u + dLambda * v
    let quadratic = dPhiPhi * (u * u) + dPhiLambda * (2 * u * v) + dLambdaLambda * (v * v)
    return linear + quadratic * 0.5
  }

  /// A bound on the distance between ``offset(latitude:longitude:)`` and the exact offset for
  /// points within `reach` degrees of the reference point in latitude and in longitude.
  static func errorBound(reach: Double, ellipsoid: Ellipsoid = .wgs84) -> Double {
    let d = 2 * reach * (Double.pi / 180)
    return 3.0.squareRoot() * 1.1 * ellipsoid.equatorialRadius * d * d * d / 6
  }
}
