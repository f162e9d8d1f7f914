import RealModule

/// A deterministic random number generator (SplitMix64) for reproducible property tests.
///
/// Same seed, same sequence, on every platform and Swift version — unlike
/// `SystemRandomNumberGenerator`.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform `Double` in `range`.
  public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    Double.random(in: range, using: &self)
  }

  /// A latitude in `range`, drawn uniformly over the sphere's area (not uniformly in degrees).
  public mutating func latitude(in range: ClosedRange<Double> = -90...90) -> Double {
    let lo = Double.sin(range.lowerBound * .pi / 180)
    let hi = Double.sin(range.upperBound * .pi / 180)
    return min(range.upperBound, max(range.lowerBound, Double.asin(uniform(lo...hi)) * 180 / .pi))
  }

  /// A longitude uniform in `-180..<180`.
  public mutating func longitude() -> Double {
    Double.random(in: -180..<180, using: &self)
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
