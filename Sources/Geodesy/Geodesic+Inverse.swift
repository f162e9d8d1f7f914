import RealModule

/// The solution of an inverse geodesic problem: the shortest path between two points.
public struct GeodesicInverse: Hashable, Sendable {
  /// Length of the geodesic in metres.
  public var distance: Double
  /// Azimuth at the first point, degrees clockwise from north, `-180...180`.
  public var initialAzimuth: Double
  /// Azimuth at the second point (the forward direction there), degrees, `-180...180`.
  public var finalAzimuth: Double
  /// Arc length on the auxiliary sphere, degrees.
  public var arcLength: Double
}

extension Geodesic {
  /// Solves the inverse problem: the shortest path from `start` to `end`.
  ///
  /// - Parameters:
  ///   - start: The first point.
  ///   - end: The second point.
  /// - Returns: Distance, the azimuths at both ends and the spherical arc length.
  /// - Complexity: O(1); typically 2–4 Newton iterations, at most about 80 for points within a few
  ///   nanometres of the antipode.
  public func inverse(from start: Coordinate, to end: Coordinate) -> GeodesicInverse {
    inverse(latitude1: start.latitude, longitude1: start.longitude,
            latitude2: end.latitude, longitude2: end.longitude)
  }

  /// The geodesic distance in metres between two points.
  public func distance(from start: Coordinate, to end: Coordinate) -> Double {
    inverse(from: start, to: end).distance
  }

  /// Lengths along a geodesic, in units of b: distance, reduced length and the secular term m0.
  @usableFromInline
  func lengths(
    eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
    ssig2: Double, csig2: Double, dn2: Double, wantDistance: Bool, wantReduced: Bool
  ) -> (s12b: Double, m12b: Double, m0: Double) {
    var s12b = Double.nan
    var m12b = Double.nan
    var m0 = Double.nan
    var a1 = Geodesic.a1m1(eps)
    let c1a = Geodesic.c1(eps)
    var a2 = 0.0
    var c2a = SIMD8<Double>()
    var m0x = 0.0
    if wantReduced {
      a2 = Geodesic.a2m1(eps)
      c2a = Geodesic.c2(eps)
      m0x = a1 - a2
      a2 = 1 + a2
    }
    a1 = 1 + a1
    var j12 = 0.0
    if wantDistance {
      let b1 = Geodesic.sinSeries(ssig2, csig2, c1a, count: 6) - Geodesic.sinSeries(ssig1, csig1, c1a, count: 6)
      s12b = a1 * (sig12 + b1)
      if wantReduced {
        let b2 = Geodesic.sinSeries(ssig2, csig2, c2a, count: 6) - Geodesic.sinSeries(ssig1, csig1, c2a, count: 6)
        j12 = m0x * sig12 + (a1 * b1 - a2 * b2)
      }
    } else if wantReduced {
      var c = SIMD8<Double>()
      for l in 1...6 { c[l] = a1 * c1a[l] - a2 * c2a[l] }
      j12 = m0x * sig12 + (Geodesic.sinSeries(ssig2, csig2, c, count: 6) - Geodesic.sinSeries(ssig1, csig1, c, count: 6))
    }
    if wantReduced {
      m0 = m0x
      m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
    }
    return (s12b, m12b, m0)
  }

  /// Positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (Karney 2013, eq. 55).
  @usableFromInline
  static func astroid(_ x: Double, _ y: Double) -> Double {
    let p = x * x
    let q = y * y
    let r = (p + q - 1) / 6
    guard !(q == 0 && r <= 0) else { return 0 }
    let s = p * q / 4
    let r2 = r * r
    let r3 = r * r2
    let disc = s * (s + 2 * r3)
    var u = r
    if disc >= 0 {
      var t3 = s + r3
      t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()
      let t = DegreeMath.cubeRoot(t3)
      u += t + (t != 0 ? r2 / t : 0)
    } else {
      let ang = Double.atan2(y: (-disc).squareRoot(), x: -(s + r3))
      u += 2 * r * Double.cos(ang / 3)
    }
    let v = (u * u + q).squareRoot()
    let uv = u < 0 ? q / (v - u) : u + v
    let w = (uv - q) / (2 * v)
    return uv / ((uv + w * w).squareRoot() + w)
  }

  /// Starting guess for Newton's method; for short lines also the solution (sig12 ≥ 0).
  @usableFromInline
  func inverseStart(
    sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
    lam12: Double, slam12: Double, clam12: Double
  ) -> (sig12: Double, salp1: Double, calp1: Double, salp2: Double, calp2: Double, dnm: Double) {
    var sig12 = -1.0
    var salp2 = Double.nan
    var calp2 = Double.nan
    var dnm = Double.nan
    let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
    let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
    var sbet12a = sbet2 * cbet1
    sbet12a += cbet2 * sbet1
    let shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
    var somg12: Double
    var comg12: Double
    if shortline {
      var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
      sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
      dnm = (1 + ep2 * sbetm2).squareRoot()
      let omg12 = lam12 / (f1 * dnm)
      somg12 = Double.sin(omg12)
      comg12 = Double.cos(omg12)
    } else {
      somg12 = slam12
      comg12 = clam12
    }
    var salp1 = cbet2 * somg12
    var calp1 =
      comg12 >= 0
      ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
      : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
    let ssig12 = Double.hypot(salp1, calp1)
    let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

    if shortline && ssig12 < etol2 {
      salp2 = cbet1 * somg12
      calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
      (salp2, calp2) = DegreeMath.normalize(salp2, calp2)
      sig12 = Double.atan2(y: ssig12, x: csig12)
    } else if abs(n) >= 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * Double.pi * cbet1 * cbet1 {
      // Zeroth-order spherical approximation is good enough.
    } else {
      // Near-antipodal: scale to the astroid problem (f ≥ 0 only; GeoWake rejects prolate ellipsoids).
      let lam12x = Double.atan2(y: -slam12, x: -clam12)
      let k2 = sbet1 * sbet1 * ep2
      let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
      let lamscale = f * cbet1 * a3(eps) * Double.pi
      let betscale = lamscale * cbet1
      let x = lam12x / lamscale
      let y = sbet12a / betscale
      if y > -Geodesic.tol1 && x > -1 - Geodesic.xthresh {
        salp1 = min(1.0, -x)
        calp1 = -(1 - salp1 * salp1).squareRoot()
      } else {
        let k = Geodesic.astroid(x, y)
        let omg12a = lamscale * (-x * k / (1 + k))
        somg12 = Double.sin(omg12a)
        comg12 = -Double.cos(omg12a)
        salp1 = cbet2 * somg12
        calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
      }
    }
    if !(salp1 <= 0) {
      (salp1, calp1) = DegreeMath.normalize(salp1, calp1)
    } else {
      salp1 = 1
      calp1 = 0
    }
    return (sig12, salp1, calp1, salp2, calp2, dnm)
  }

  @usableFromInline
  struct Lambda12Result {
    var lam12, salp2, calp2, sig12, ssig1, csig1, ssig2, csig2, eps, domg12, dlam12: Double
  }

  /// λ12 as a function of α1 and its derivative (the hybrid problem, Karney 2013 §4).
  @usableFromInline
  func lambda12(
    sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
    salp1: Double, calp1: Double, slam120: Double, clam120: Double, diffp: Bool
  ) -> Lambda12Result {
    var calp1 = calp1
    if sbet1 == 0 && calp1 == 0 { calp1 = -Geodesic.tiny }
    let salp0 = salp1 * cbet1
    let calp0 = Double.hypot(calp1, salp1 * sbet1)
    var ssig1 = sbet1
    let somg1 = salp0 * sbet1
    var csig1 = calp1 * cbet1
    let comg1 = csig1
    (ssig1, csig1) = DegreeMath.normalize(ssig1, csig1)

    let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
    let calp2: Double
    if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
      let term = cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)
      calp2 = ((calp1 * cbet1) * (calp1 * cbet1) + term).squareRoot() / cbet2
    } else {
      calp2 = abs(calp1)
    }
    var ssig2 = sbet2
    let somg2 = salp0 * sbet2
    var csig2 = calp2 * cbet2
    let comg2 = csig2
    (ssig2, csig2) = DegreeMath.normalize(ssig2, csig2)

    let sig12 = Double.atan2(y: max(0.0, csig1 * ssig2 - ssig1 * csig2) + 0.0, x: csig1 * csig2 + ssig1 * ssig2)
    let somg12 = max(0.0, comg1 * somg2 - somg1 * comg2) + 0.0
    let comg12 = comg1 * comg2 + somg1 * somg2
    let eta = Double.atan2(y: somg12 * clam120 - comg12 * slam120, x: comg12 * clam120 + somg12 * slam120)

    let k2 = calp0 * calp0 * ep2
    let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
    let c3a = c3(eps)
    let b312 = Geodesic.sinSeries(ssig2, csig2, c3a, count: 5) - Geodesic.sinSeries(ssig1, csig1, c3a, count: 5)
    let domg12 = -f * a3(eps) * salp0 * (sig12 + b312)
    let lam12 = eta + domg12

    var dlam12 = Double.nan
    if diffp {
      if calp2 == 0 {
        dlam12 = -2 * f1 * dn1 / sbet1
      } else {
        let m12b = lengths(
          eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
          ssig2: ssig2, csig2: csig2, dn2: dn2, wantDistance: false, wantReduced: true
        ).m12b
        dlam12 = m12b * f1 / (calp2 * cbet2)
      }
    }
    return Lambda12Result(
      lam12: lam12, salp2: salp2, calp2: calp2, sig12: sig12, ssig1: ssig1, csig1: csig1,
      ssig2: ssig2, csig2: csig2, eps: eps, domg12: domg12, dlam12: dlam12)
  }

  /// The inverse problem on raw degrees (latitudes in `-90...90`, any longitudes).
  @usableFromInline
  func inverse(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> GeodesicInverse {
    var (lon12, lon12s) = DegreeMath.difference(longitude1, longitude2)
    var lonsign: Double = lon12.sign == .minus ? -1 : 1
    lon12 *= lonsign
    lon12s *= lonsign
    let lam12 = lon12 * DegreeMath.radiansPerDegree
    let (slam12, clam12) = DegreeMath.sinCos(lon12, plus: lon12s)
    lon12s = (180 - lon12) - lon12s

    var lat1 = DegreeMath.roundedAngle(latitude1)
    var lat2 = DegreeMath.roundedAngle(latitude2)
    let swapp: Double = abs(lat1) < abs(lat2) || lat2.isNaN ? -1 : 1
    if swapp < 0 {
      lonsign *= -1
      swap(&lat1, &lat2)
    }
    let latsign: Double = lat1 > 0 || (lat1 == 0 && lat1.sign == .plus) ? -1 : 1
    lat1 *= latsign
    lat2 *= latsign

    var (sbet1, cbet1) = DegreeMath.sinCos(lat1)
    sbet1 *= f1
    (sbet1, cbet1) = DegreeMath.normalize(sbet1, cbet1)
    cbet1 = max(Geodesic.tiny, cbet1)
    var (sbet2, cbet2) = DegreeMath.sinCos(lat2)
    sbet2 *= f1
    (sbet2, cbet2) = DegreeMath.normalize(sbet2, cbet2)
    cbet2 = max(Geodesic.tiny, cbet2)

    if cbet1 < -sbet1 {
      if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: sbet1) }
    } else {
      if abs(sbet2) == -sbet1 { cbet2 = cbet1 }
    }
    let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
    let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

    var a12 = Double.nan
    var sig12 = 0.0
    var s12x = Double.nan
    var salp1 = 0.0
    var calp1 = 0.0
    var salp2 = 0.0
    var calp2 = 0.0
    var meridian = lat1 == -90 || slam12 == 0

    if meridian {
      calp1 = clam12
      salp1 = slam12
      calp2 = 1
      salp2 = 0
      let ssig1 = sbet1
      let csig1 = calp1 * cbet1
      let ssig2 = sbet2
      let csig2 = calp2 * cbet2
      sig12 = Double.atan2(y: max(0.0, csig1 * ssig2 - ssig1 * csig2) + 0.0, x: csig1 * csig2 + ssig1 * ssig2)
      var (sx, mx, _) = lengths(
        eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
        ssig2: ssig2, csig2: csig2, dn2: dn2, wantDistance: true, wantReduced: true)
      if sig12 < Geodesic.tol2 || mx >= 0 {
        if sig12 < 3 * Geodesic.tiny || (sig12 < Geodesic.tol0 && (sx < 0 || mx < 0)) {
          sig12 = 0
          mx = 0
          sx = 0
        }
        s12x = sx * b
        a12 = sig12 * DegreeMath.degreesPerRadian
      } else {
        meridian = false
      }
    }

    if !meridian && sbet1 == 0 && (f <= 0 || lon12s >= f * 180) {
      // Along the equator.
      calp1 = 0
      calp2 = 0
      salp1 = 1
      salp2 = 1
      s12x = a * lam12
      sig12 = lam12 / f1
      a12 = lon12 / f1
    } else if !meridian {
      let start = inverseStart(
        sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
        lam12: lam12, slam12: slam12, clam12: clam12)
      sig12 = start.sig12
      salp1 = start.salp1
      calp1 = start.calp1
      if sig12 >= 0 {
        salp2 = start.salp2
        calp2 = start.calp2
        s12x = sig12 * b * start.dnm
        a12 = sig12 * DegreeMath.degreesPerRadian
      } else {
        var numit = 0
        var tripn = false
        var tripb = false
        var salp1a = Geodesic.tiny
        var calp1a = 1.0
        var salp1b = Geodesic.tiny
        var calp1b = -1.0
        var r: Lambda12Result
        while true {
          r = lambda12(
            sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
            salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12, diffp: numit < Geodesic.maxit1)
          let v = r.lam12
          if tripb || !(abs(v) >= (tripn ? 8 : 1) * Geodesic.tol0) || numit == Geodesic.maxit2 { break }
          if v > 0 && (numit > Geodesic.maxit1 || calp1 / salp1 > calp1b / salp1b) {
            salp1b = salp1
            calp1b = calp1
          } else if v < 0 && (numit > Geodesic.maxit1 || calp1 / salp1 < calp1a / salp1a) {
            salp1a = salp1
            calp1a = calp1
          }
          numit += 1
          if numit < Geodesic.maxit1 && r.dlam12 > 0 {
            let dalp1 = -v / r.dlam12
            if abs(dalp1) < Double.pi {
              let sdalp1 = Double.sin(dalp1)
              let cdalp1 = Double.cos(dalp1)
              let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
              if nsalp1 > 0 {
                calp1 = calp1 * cdalp1 - salp1 * sdalp1
                salp1 = nsalp1
                (salp1, calp1) = DegreeMath.normalize(salp1, calp1)
                tripn = abs(v) <= 16 * Geodesic.tol0
                continue
              }
            }
          }
          salp1 = (salp1a + salp1b) / 2
          calp1 = (calp1a + calp1b) / 2
          (salp1, calp1) = DegreeMath.normalize(salp1, calp1)
          tripn = false
          tripb =
            abs(salp1a - salp1) + (calp1a - calp1) < Geodesic.tolb
            || abs(salp1 - salp1b) + (calp1 - calp1b) < Geodesic.tolb
        }
        salp2 = r.salp2
        calp2 = r.calp2
        sig12 = r.sig12
        let s12b = lengths(
          eps: r.eps, sig12: r.sig12, ssig1: r.ssig1, csig1: r.csig1, dn1: dn1,
          ssig2: r.ssig2, csig2: r.csig2, dn2: dn2, wantDistance: true, wantReduced: false
        ).s12b
        s12x = s12b * b
        a12 = sig12 * DegreeMath.degreesPerRadian
      }
    }

    if swapp < 0 {
      swap(&salp1, &salp2)
      swap(&calp1, &calp2)
    }
    salp1 *= swapp * lonsign
    calp1 *= swapp * latsign
    salp2 *= swapp * lonsign
    calp2 *= swapp * latsign
    return GeodesicInverse(
      distance: 0.0 + s12x,
      initialAzimuth: DegreeMath.atan2(salp1, calp1),
      finalAzimuth: DegreeMath.atan2(salp2, calp2),
      arcLength: a12)
  }
}
