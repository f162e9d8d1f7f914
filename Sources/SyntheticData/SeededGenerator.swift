@_exported public import SeededRandom
import RealModule

/// Seeded draws for synthetic data, on GeoWake's one generator (``SeededGenerator``, from the
/// SeededRandom module, re-exported here).
extension SeededGenerator {
  /// A latitude in `range`, drawn uniformly over the sphere's area (not uniformly in degrees).
  public mutating func latitude(in range: ClosedRange<Double> = -90...90) -> Double {
    let lo = Double.sin(range.lowerBound * .pi / 180)
    let hi = Double.sin(range.upperBound * .pi / 180)
    return min(range.upperBound, max(range.lowerBound, Double.asin(uniform(lo...hi)) * 180 / .pi))
  }

  /// A longitude uniform in `-180..<180`.
  public mutating func longitude() -> Double {
    uniform(-180..<180)
  }
}

extension SeededGenerator {
  /// A standard normal deviate (Box–Muller, one value per call; deterministic).
  public mutating func normal() -> Double {
    let u1 = max(uniform(0...1), 1e-300)
    let u2 = uniform(0...1)
    return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * Double.pi * u2)
  }
}
