/// GeoWake's one source of seeded randomness: SplitMix64 (Steele, Lea & Flood, "Fast Splittable
/// Pseudorandom Number Generators", OOPSLA 2014), with every mapping from its 64-bit outputs to
/// numbers defined here, so that the same seed gives the same values on every platform and with
/// every Swift version. (The standard library's `Double.random(in:using:)` does not promise its
/// algorithm; nothing in GeoWake's outputs depends on it.)
///
/// The mappings:
/// - ``unit()``: the top 53 bits of one output, × 2⁻⁵³, in [0, 1).
/// - ``uniform(_:)-(ClosedRange<Double>)``: k = ``next(below:)`` (2⁵³ + 1), then
///   lower + (upper − lower) · k · 2⁻⁵³, in [lower, upper].
/// - ``uniform(_:)-(Range<Double>)``: the low 53 bits of one output, k · 2⁻⁵³ · (upper − lower) +
///   lower, and the largest value below upper should rounding reach it.
/// - ``next(below:)``: Lemire's multiply-shift with rejection ("Fast Random Integer Generation in
///   an Interval", 2019), unbiased.
/// - ``hash(_:)``: the SplitMix64 finaliser alone, for draws that depend only on their inputs.
///
/// The two `uniform` mappings are those of the standard library at the time GeoWake's fixtures
/// were generated, kept so that generated data stays byte-identical.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  @usableFromInline var state: UInt64

  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  @inlinable
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return Self.hash(state)
  }

  /// SplitMix64's output function: a bijective mix of 64 bits, each output bit depending on every
  /// input bit.
  @inlinable
  public static func hash(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// The top 53 bits of `bits` as a value in [0, 1).
  @inlinable
  public static func unit(_ bits: UInt64) -> Double { Double(bits >> 11) * 0x1p-53 }

  /// A uniform value in [0, 1) with 53 random bits.
  @inlinable
  public mutating func unit() -> Double { Self.unit(next()) }

  /// A uniform integer in 0 ..< `bound` (`bound` > 0), without bias.
  public mutating func next(below bound: UInt64) -> UInt64 {
    precondition(bound > 0, "the bound must be positive")
    var product = next().multipliedFullWidth(by: bound)
    if product.low < bound {
      let threshold = (0 &- bound) % bound
      while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
    }
    return product.high
  }

  /// A uniform integer in `range`.
  public mutating func integer(in range: ClosedRange<Int>) -> Int {
    let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
    if span == 0 { return Int(truncatingIfNeeded: next()) }
    return range.lowerBound &+ Int(truncatingIfNeeded: next(below: span))
  }

  /// A uniform `Double` in the closed `range` (finite bounds).
  public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    let k = next(below: (1 << 53) + 1)
    return (range.upperBound - range.lowerBound) * (Double(k) * 0x1p-53) + range.lowerBound
  }

  /// A uniform `Double` in the half-open `range` (finite bounds, not empty).
  public mutating func uniform(_ range: Range<Double>) -> Double {
    let k = next() & ((1 << 53) - 1)
    let value = (range.upperBound - range.lowerBound) * (Double(k) * 0x1p-53) + range.lowerBound
    return value < range.upperBound ? value : range.upperBound.nextDown
  }
}

extension SeededGenerator: Codable, Hashable {
  /// Encoded as its state: a restored generator goes on with the same sequence.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(state)
  }

  public init(from decoder: any Decoder) throws {
    state = try decoder.singleValueContainer().decode(UInt64.self)
  }
}
