/// FNV-1a over bytes: a hash that is the same in every process and on every platform, unlike
/// Swift's `Hasher`, which is seeded per process. For draws keyed by a value (a region's
/// identifier) and for fingerprints that are saved and compared later.
public struct StableHash: Sendable {
  /// The FNV-1a state so far.
  public var value: UInt64 { state }
  @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

  public init() {}

  /// Adds bytes.
  @inlinable
  public mutating func combine(_ bytes: some Sequence<UInt8>) {
    var h = state
    for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
    state = h
  }

  /// Adds a string's UTF-8 bytes.
  @inlinable
  public mutating func combine(_ text: String) { combine(text.utf8) }

  /// Adds the eight bytes of a word, least significant first.
  @inlinable
  public mutating func combine(_ word: UInt64) {
    var h = state
    var w = word
    for _ in 0..<8 {
      h = (h ^ (w & 0xff)) &* 0x100_0000_01b3
      w >>= 8
    }
    state = h
  }

  /// A fingerprint of every stored field of a value (its `String(reflecting:)` text, hashed), the
  /// same in every process: for settings saved with a snapshot and compared on restore. Values
  /// holding dictionaries print them in a per-process order and must not be fingerprinted so.
  public static func fingerprint(reflecting value: Any) -> UInt64 {
    var hash = StableHash()
    hash.combine(String(reflecting: value))
    return hash.finalized
  }

  /// The state through SplitMix64's finaliser (``SeededGenerator/hash(_:)``): every bit depends
  /// on every byte.
  @inlinable
  public var finalized: UInt64 { SeededGenerator.hash(value) }
}
