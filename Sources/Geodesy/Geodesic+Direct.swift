import RealModule

/// The solution of a direct geodesic problem: where a path of given start, azimuth and length ends.
public struct GeodesicDirect: Hashable, Sendable {
  /// The end point (longitude normalised to `-180..<180`).
  public var destination: Coordinate
  /// Forward azimuth at the end point, degrees, `-180...180`.
  public var finalAzimuth: Double
  /// Arc length on the auxiliary sphere, degrees.
  public var arcLength: Double
}

extension Geodesic {
  /// Solves the direct problem: walk `distance` metres along the geodesic leaving `start` at `azimuth`.
  ///
  /// - Parameters:
  ///   - start: The start point.
  ///   - azimuth: Initial azimuth in degrees clockwise from north (any finite value).
  ///   - distance: Length in metres; negative walks backwards. Must be finite.
  /// - Returns: The destination, the azimuth there, and the spherical arc length; `nil` when
  ///   `azimuth` or `distance` is not finite.
  /// - Complexity: O(1), no iteration (the reverted series C1′ gives σ from s directly).
  public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> GeodesicDirect? {
    guard azimuth.isFinite, distance.isFinite else { return nil }
    let azi1 = DegreeMath.normalized(azimuth)
    var (salp1, calp1) = DegreeMath.sinCos(DegreeMath.roundedAngle(azi1))
    salp1 += 0.0
    calp1 += 0.0

    var (sbet1, cbet1) = DegreeMath.sinCos(DegreeMath.roundedAngle(start.latitude))
    sbet1 *= f1
    (sbet1, cbet1) = DegreeMath.normalize(sbet1, cbet1)
    cbet1 = max(Geodesic.tiny, cbet1)

    let salp0 = salp1 * cbet1
    let calp0 = Double.hypot(calp1, salp1 * sbet1)
    var ssig1 = sbet1
    let somg1 = salp0 * sbet1
    var csig1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
    let comg1 = csig1
    (ssig1, csig1) = DegreeMath.normalize(ssig1, csig1)

    let k2 = calp0 * calp0 * ep2
    let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
    let a1m1 = Geodesic.a1m1(eps)
    let c1a = Geodesic.c1(eps)
    let b11 = Geodesic.sinSeries(ssig1, csig1, c1a, count: 6)
    let s = Double.sin(b11)
    let c = Double.cos(b11)
    let stau1 = ssig1 * c + csig1 * s
    let ctau1 = csig1 * c - ssig1 * s
    let c1pa = Geodesic.c1p(eps)
    let c3a = c3(eps)
    let a3c = -f * salp0 * a3(eps)
    let b31 = Geodesic.sinSeries(ssig1, csig1, c3a, count: 5)

    let tau12 = distance / (b * (1 + a1m1))
    let st = Double.sin(tau12)
    let ct = Double.cos(tau12)
    let b12 = -Geodesic.sinSeries(stau1 * ct + ctau1 * st, ctau1 * ct - stau1 * st, c1pa, count: 6)
    let sig12 = tau12 - (b12 - b11)
    let ssig12 = Double.sin(sig12)
    let csig12 = Double.cos(sig12)

    let ssig2 = ssig1 * csig12 + csig1 * ssig12
    var csig2 = csig1 * csig12 - ssig1 * ssig12
    let sbet2 = calp0 * ssig2
    var cbet2 = Double.hypot(salp0, calp0 * csig2)
    if cbet2 == 0 {
      cbet2 = Geodesic.tiny
      csig2 = Geodesic.tiny
    }
    let salp2 = salp0
    let calp2 = calp0 * csig2

    let somg2 = salp0 * ssig2
    let comg2 = csig2
    let omg12 = Double.atan2(y: somg2 * comg1 - comg2 * somg1, x: comg2 * comg1 + somg2 * somg1)
    let lam12 = omg12 + a3c * (sig12 + (Geodesic.sinSeries(ssig2, csig2, c3a, count: 5) - b31))
    let lon12 = lam12 * DegreeMath.degreesPerRadian
    let lon2 = DegreeMath.normalized(DegreeMath.normalized(start.longitude) + DegreeMath.normalized(lon12))
    let lat2 = DegreeMath.atan2(sbet2, f1 * cbet2)
    let azi2 = DegreeMath.atan2(salp2, calp2)
    guard let destination = try? Coordinate(latitude: lat2, longitude: lon2) else { return nil }
    return GeodesicDirect(destination: destination, finalAzimuth: azi2, arcLength: sig12 * DegreeMath.degreesPerRadian)
  }
}
