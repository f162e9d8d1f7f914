/// The runtime's seeded randomness: SplitMix64 (Steele, Lea & Flood 2014), the same sequence as
/// `SyntheticData.SeededGenerator`, without depending on it.
struct SplitMix64: Sendable {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  /// A uniform draw in 0 ..< 1 with 53 random bits.
  mutating func unit() -> Double {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Double(z >> 11) * 0x1p-53
  }
}
