import RealModule

/// A distribution of a non-negative quantity (metres, seconds), drawn through its quantile
/// function: ``value(atUnit:)`` maps a uniform value in [0, 1) from a ``SeededGenerator`` to the
/// quantity, so one seed gives one value on every platform.
public enum Distribution: Hashable, Sendable, CustomStringConvertible {
  /// Always this value.
  case fixed(Double)
  /// Uniform in the range: lower + u · (upper − lower).
  case uniform(ClosedRange<Double>)
  /// Log-normal with this median and shape σ (the standard deviation of the logarithm), capped
  /// at `maximum`: min(maximum, median · exp(σ · Φ⁻¹(u))).
  case logNormal(median: Double, sigma: Double, maximum: Double)

  /// The value at quantile `u` (0 ≤ u < 1).
  public func value(atUnit u: Double) -> Double {
    switch self {
    case .fixed(let v): return v
    case .uniform(let range):
      guard range.upperBound > range.lowerBound else { return range.lowerBound }
      return range.lowerBound + u * (range.upperBound - range.lowerBound)
    case .logNormal(let median, let sigma, let maximum):
      // u = 0 is the lower tail's limit, 0: the smallest positive unit stands in for it.
      let z = StandardNormal.quantile(max(u, 0x1p-53))
      return min(maximum, median * Double.exp(sigma * z))
    }
  }

  /// The median (the value at u = 0.5).
  public var median: Double { value(atUnit: 0.5) }

  /// The smallest and largest values it can take.
  public var bounds: ClosedRange<Double> {
    switch self {
    case .fixed(let v): return v...v
    case .uniform(let range): return range
    case .logNormal(_, _, let maximum): return 0...maximum
    }
  }

  /// Whether every value is finite and not negative, and the parameters make sense (a positive
  /// median, σ ≥ 0, a cap not below the median).
  public var isNonNegativeAndFinite: Bool {
    switch self {
    case .fixed(let v): return v.isFinite && v >= 0
    case .uniform(let range): return range.lowerBound >= 0 && range.upperBound.isFinite
    case .logNormal(let median, let sigma, let maximum):
      return median > 0 && median.isFinite && sigma >= 0 && sigma.isFinite && maximum >= median && maximum.isFinite
    }
  }

  public var description: String {
    func text(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
    switch self {
    case .fixed(let v): return text(v)
    case .uniform(let range): return "uniform \(text(range.lowerBound))…\(text(range.upperBound))"
    case .logNormal(let median, let sigma, let maximum):
      return "log-normal, median \(text(median)), σ \(text(sigma)), at most \(text(maximum))"
    }
  }
}

/// The standard normal distribution's quantile function Φ⁻¹.
public enum StandardNormal {
  /// Φ⁻¹(p) for 0 < p < 1: Acklam's rational approximation (relative error under 1.2 · 10⁻⁹),
  /// refined by one Halley step on erfc, which brings it to a few ulps.
  public static func quantile(_ p: Double) -> Double {
    precondition(p > 0 && p < 1, "p must be in (0, 1)")
    let a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
             -3.066479806614716e+01, 2.506628277459239e+00)
    let b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
             -1.328068155288572e+01)
    let c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
             4.374664141464968e+00, 2.938163982698783e+00)
    let d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
    let low = 0.02425
    var x: Double
    if p < low {
      let q = Double.sqrt(-2 * Double.log(p))
      x = (((((c.0 * q + c.1) * q + c.2) * q + c.3) * q + c.4) * q + c.5) / ((((d.0 * q + d.1) * q + d.2) * q + d.3) * q + 1)
    } else if p <= 1 - low {
      let q = p - 0.5
      let r = q * q
      x = (((((a.0 * r + a.1) * r + a.2) * r + a.3) * r + a.4) * r + a.5) * q
        / (((((b.0 * r + b.1) * r + b.2) * r + b.3) * r + b.4) * r + 1)
    } else {
      let q = Double.sqrt(-2 * Double.log(onePlus: -p))
      x = -(((((c.0 * q + c.1) * q + c.2) * q + c.3) * q + c.4) * q + c.5) / ((((d.0 * q + d.1) * q + d.2) * q + d.3) * q + 1)
    }
    // Halley: e = Φ(x) − p, u = e·√(2π)·exp(x²/2), x −= u / (1 + x·u/2).
    let e = 0.5 * Double.erfc(-x / 2.0.squareRoot()) - p
    let u = e * (2 * Double.pi).squareRoot() * Double.exp(x * x / 2)
    x -= u / (1 + x * u / 2)
    return x
  }

  /// Φ(x), the cumulative distribution function.
  public static func cdf(_ x: Double) -> Double { 0.5 * Double.erfc(-x / 2.0.squareRoot()) }
}
