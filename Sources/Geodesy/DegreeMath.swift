public import RealModule

/// Angle arithmetic in degrees with exact range reduction, after GeographicLib's `Math` class
/// (C. F. F. Karney). Reducing in degrees before converting to radians keeps results such as
/// sin 30° and cos 90° exact, which the geodesic algorithms rely on.
@usableFromInline
enum DegreeMath {
  @usableFromInline static let radiansPerDegree = Double.pi / 180
  @usableFromInline static let degreesPerRadian = 180 / Double.pi

  /// Rounds tiny angles so that values below 1/2⁵⁷ degree underflow to zero (avoids near-singular
  /// cases such as 1e-200 degrees).
  @inlinable static func roundedAngle(_ x: Double) -> Double {
    let z = 1.0 / 16
    var y = abs(x)
    if y < z { y = z - (z - y) }
    return x < 0 ? -y : (x == 0 ? x : y)
  }

  /// Reduces an angle to `-180...180` (180 keeps the sign of the input).
  @inlinable static func normalized(_ x: Double) -> Double {
    guard x.isFinite else { return .nan }
    let y = x.remainder(dividingBy: 360)
    return abs(y) == 180 ? (x < 0 ? -180 : 180) : y
  }

  /// Error-free sum: returns (s, t) with s = round(u + v) and u + v = s + t exactly.
  @inlinable static func twoSum(_ u: Double, _ v: Double) -> (sum: Double, error: Double) {
    let s = u + v
    var up = s - v
    var vpp = s - up
    up -= u
    vpp -= v
    let t = s == 0 ? 0.0 : 0.0 - (up + vpp)
    return (s, t)
  }

  /// `y − x` reduced to `-180...180` accurately, with the rounding error of the result.
  @inlinable static func difference(_ x: Double, _ y: Double) -> (difference: Double, error: Double) {
    var (d, t) = twoSum((-x).remainder(dividingBy: 360), y.remainder(dividingBy: 360))
    (d, t) = twoSum(d.remainder(dividingBy: 360), t)
    if d == 0 || abs(d) == 180 {
      let sign = t == 0 ? y - x : -t
      d = sign < 0 ? -abs(d) : abs(d)
    }
    return (d, t)
  }

  /// Sine and cosine of an angle in degrees with exact quadrant reduction.
  @inlinable static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
    var r = x.isFinite ? x.truncatingRemainder(dividingBy: 360) : .nan
    let q = r.isNaN ? 0 : Int((r / 90).rounded(.toNearestOrEven))
    r -= 90 * Double(q)
    r *= radiansPerDegree
    return quadrant(q, sin: Double.sin(r), cos: Double.cos(r), signOf: x)
  }

  /// Sine and cosine of `x + t` degrees where x is in `-180...180` and t is a small correction.
  @inlinable static func sinCos(_ x: Double, plus t: Double) -> (sin: Double, cos: Double) {
    let q = x.isFinite ? Int((x / 90).rounded(.toNearestOrEven)) : 0
    let r = roundedAngle(x - 90 * Double(q) + t) * radiansPerDegree
    return quadrant(q, sin: Double.sin(r), cos: Double.cos(r), signOf: x)
  }

  @inlinable static func quadrant(_ q: Int, sin s: Double, cos c: Double, signOf x: Double)
    -> (sin: Double, cos: Double)
  {
    var (s, c) = (s, c)
    switch ((q % 4) + 4) % 4 {
    case 1: (s, c) = (c, -s)
    case 2: (s, c) = (-s, -c)
    case 3: (s, c) = (-c, s)
    default: break
    }
    c += 0.0
    if s == 0 { s = x < 0 || (x == 0 && x.sign == .minus) ? -0.0 : 0.0 }
    return (s, c)
  }

  /// atan2 in degrees, exact for the axes, result in `-180...180`.
  @inlinable static func atan2(_ y: Double, _ x: Double) -> Double {
    var (x, y) = (x, y)
    var q = 0
    if abs(y) > abs(x) {
      q = 2
      swap(&x, &y)
    }
    if x < 0 {
      q += 1
      x = -x
    }
    var angle = Double.atan2(y: y, x: x) * degreesPerRadian
    switch q {
    case 1: angle = (y < 0 || (y == 0 && y.sign == .minus) ? -180 : 180) - angle
    case 2: angle = 90 - angle
    case 3: angle = -90 + angle
    default: break
    }
    return angle
  }

  /// Normalises the 2-vector (x, y) to unit length.
  @inlinable static func normalize(_ x: Double, _ y: Double) -> (Double, Double) {
    let r = Double.hypot(x, y)
    return (x / r, y / r)
  }

  /// Real cube root.
  @inlinable static func cubeRoot(_ x: Double) -> Double {
    let r = Double.pow(abs(x), 1.0 / 3)
    return x < 0 ? -r : r
  }
}
