/// The fast step of decimal-to-double conversion that needs no rounding argument: a significand
/// of at most 15 digits and a power of ten of at most 22 are both exact in a `Double`, so one
/// IEEE multiplication or division of the two is the correctly rounded value (Clinger, "How to
/// Read Floating Point Numbers Accurately", 1990). Shared by the JSON scanner and the CSV, GPX
/// and timestamp number parser (`ByteNumbers` in TrackIO).
package enum ExactDecimal {
  /// 10⁰ … 10²², every one exact in a `Double`; literals, so that the table is initialised
  /// statically (no lazy-initialisation check on the hot path).
  private static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
  ]

  /// `significand` × 10^`scale`, correctly rounded, when `digits` (the significand's decimal
  /// digits, leading zeros not counted) is at most 15 and |`scale`| at most 22; nil otherwise.
  @inline(__always)
  package static func value(_ significand: UInt64, digits: Int, scale: Int) -> Double? {
    guard digits <= 15, scale >= -22, scale <= 22 else { return nil }
    let value = Double(significand)
    return scale < 0 ? value / powersOfTen[-scale] : value * powersOfTen[scale]
  }
}
