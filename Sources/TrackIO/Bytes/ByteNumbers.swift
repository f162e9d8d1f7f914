import JSONBytes

/// Number and timestamp parsing straight from UTF-8 bytes: no `String` per field.
package enum ByteNumbers {
  /// Parses a decimal integer (`42`, `-1`, `+7`); nil for anything else or past `Int`'s range.
  package static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var i = 0
    var negative = false
    if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
      negative = first == UInt8(ascii: "-")
      i = 1
    }
    guard i < bytes.count else { return nil }
    var value = 0
    while i < bytes.count {
      let digit = Int(bytes[i]) - 48
      guard digit >= 0 && digit <= 9 else { return nil }
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
      guard !o1 && !o2 else { return nil }
      value = next
      i += 1
    }
    return value
  }

  /// Parses a decimal number (`-12.5`, `3e-4`, `+7`). Correctly rounded, the same bits as the
  /// standard library's parser on every input: at most 15 significant digits with a scale of at
  /// most 22 are exact in doubles (Clinger 1990); other normal numbers of up to 19 significant
  /// digits take the Eisel–Lemire algorithm (``eiselLemire(_:_:)``); longer ones (exports write
  /// 30-digit coordinates) are truncated to 19 digits, and when the truncated significand and
  /// the next one up round to the same double that double is the answer. What is left —
  /// subnormals, a truncation that straddles a rounding boundary — goes to the standard library.
  /// Returns nil for anything that is not a finite decimal number.
  package static func double(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    var i = 0
    let n = bytes.count
    guard n > 0 else { return nil }
    var negative = false
    if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
      negative = bytes[0] == UInt8(ascii: "-")
      i = 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var scale = 0
    var sawDigit = false
    // Whether a nonzero digit past the 19th was dropped.
    var truncated = false
    while i < n, bytes[i] >= 48, bytes[i] <= 57 {
      sawDigit = true
      if digits < 19 {
        mantissa = mantissa * 10 + UInt64(bytes[i] - 48)
        if mantissa > 0 { digits += 1 }
      } else {
        scale += 1
        if bytes[i] != 48 { truncated = true }
      }
      i += 1
    }
    if i < n, bytes[i] == UInt8(ascii: ".") {
      i += 1
      while i < n, digits < 19, bytes[i] >= 48, bytes[i] <= 57 {
        sawDigit = true
        mantissa = mantissa * 10 + UInt64(bytes[i] - 48)
        if mantissa > 0 { digits += 1 }
        scale -= 1
        i += 1
      }
      // Past 19 digits only whether one is nonzero matters.
      #if _endian(little)
        // Eight at a time: exports write the exact value of a double, 30 digits and more.
        while i + 8 <= n {
          let word = UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)
          guard isEightDigits(word) else { break }
          if word != 0x3030_3030_3030_3030 { truncated = true }
          i += 8
        }
      #endif
      while i < n, bytes[i] >= 48, bytes[i] <= 57 {
        sawDigit = true
        if bytes[i] != 48 { truncated = true }
        i += 1
      }
    }
    guard sawDigit else { return nil }
    var exponent = 0
    if i < n, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      i += 1
      var expNegative = false
      if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
        expNegative = bytes[i] == UInt8(ascii: "-")
        i += 1
      }
      var sawExponentDigit = false
      while i < n, bytes[i] >= 48, bytes[i] <= 57 {
        sawExponentDigit = true
        if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] - 48) }
        i += 1
      }
      guard sawExponentDigit else { return nil }
      if expNegative { exponent = -exponent }
    }
    guard i == n else { return nil }
    let totalScale = scale + exponent
    if let value = ExactDecimal.value(mantissa, digits: digits, scale: totalScale) { return negative ? -value : value }
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    if let value = eiselLemire(mantissa, totalScale),
      !truncated || eiselLemire(mantissa + 1, totalScale)?.bitPattern == value.bitPattern
    {
      return negative ? -value : value
    }
    guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
    return value
  }

  /// Whether the eight bytes of `word` (in memory order) are all ASCII digits.
  @inline(__always)
  static func isEightDigits(_ word: UInt64) -> Bool {
    (word & 0xF0F0_F0F0_F0F0_F0F0) | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4) == 0x3333_3333_3333_3333
  }

  /// The double nearest to `w` × 10^`q` (ties to even), for a nonzero `w`, by the Eisel–Lemire
  /// algorithm (Lemire, "Number Parsing at a Gigabyte per Second", Software: Practice and
  /// Experience 51, 2021; the round-to-even and carry rules as in the fast_float library); nil
  /// when the result is subnormal or infinite, or when the 128-bit product cannot decide the
  /// rounding — the caller then asks the standard library. A value below the smallest power in
  /// the table is 0.
  static func eiselLemire(_ w: UInt64, _ q: Int) -> Double? {
    if q < smallestPowerOfFive { return 0 }
    guard q <= largestPowerOfFive else { return nil }
    let leadingZeros = w.leadingZeroBitCount
    let normalized = w << UInt64(leadingZeros)
    let index = 2 * (q - smallestPowerOfFive)
    var (high, low) = normalized.multipliedFullWidth(by: powersOfFive[index])
    // 55 bits (the 53 of the significand, one to round, one for the product's leading bit) must
    // be exact; when the bits below them are all ones, the low word of 5^q may carry into them.
    let belowPrecision = UInt64.max >> 55
    if high & belowPrecision == belowPrecision {
      let second = normalized.multipliedFullWidth(by: powersOfFive[index + 1]).high
      let (sum, carry) = low.addingReportingOverflow(second)
      low = sum
      if carry { high &+= 1 }
    }
    // Outside the range where 5^q is exact in 128 bits, an all-ones low word leaves the
    // rounding undecided.
    if low == UInt64.max && (q < -27 || q > 55) { return nil }
    let upperBit = Int(high >> 63)
    let shift = UInt64(upperBit + 64 - 52 - 3)
    var significand = high >> shift
    // ⌊q × log2(10)⌋ + 63, as fast_float computes it, plus the bias.
    var biasedExponent = (((152_170 + 65_536) * q) >> 16) + 63 + upperBit - leadingZeros + 1023
    guard biasedExponent > 0 else { return nil }
    // Exactly halfway between two doubles (possible only for small |q|): round to even.
    if low <= 1 && q >= -4 && q <= 23 && significand & 3 == 1 && significand << shift == high {
      significand &= ~1
    }
    significand += significand & 1
    significand >>= 1
    if significand >= (2 << 52) {
      significand = 1 << 52
      biasedExponent += 1
    }
    significand &= ~(1 << 52)
    guard biasedExponent < 0x7FF else { return nil }
    return Double(bitPattern: UInt64(biasedExponent) << 52 | significand)
  }

  /// Seconds since 1970 from a number of seconds, milliseconds, microseconds or nanoseconds since
  /// 1970, told apart by magnitude: below 10¹¹ seconds (before the year 5138), below 10¹⁴
  /// milliseconds, below 10¹⁷ microseconds, then nanoseconds. Phone and server logs write epoch
  /// milliseconds as often as seconds; read as seconds they would land 50,000 years ahead.
  package static func epochSeconds(_ value: Double) -> Double {
    switch value.magnitude {
    case ..<1e11: return value
    case ..<1e14: return value / 1e3
    case ..<1e17: return value / 1e6
    default: return value / 1e9
    }
  }

  /// The times a track may hold, in seconds since 1970: from 0001-01-01 to the end of 9999, the
  /// years ISO 8601 writes with four digits. A number read as a time (``epochSeconds(_:)``) outside
  /// them is an error, not a fix (1.6e36 read as nanoseconds would be 5·10¹⁹ years from now).
  package static let epochSecondsRange: Range<Double> = -62_135_596_800 ..< 253_402_300_800

  /// Why `value`, a number whose ``epochSeconds(_:)`` is outside ``epochSecondsRange``, is no
  /// time, `column` and `text` naming it. (Callers test the range first, so a time in range costs
  /// no text.)
  package static func epochRangeMessage(_ value: Double, text: String, column: String) -> String {
    "\(column) \(text) is no time between the years 1 and 9999 (read as epoch \(epochUnitName(epochUnit(value)))): "
      + "expected seconds since 1970, or milliseconds, microseconds or nanoseconds"
  }

  /// The unit ``epochSeconds(_:)`` reads `value` in: 0 seconds, 1 milliseconds, 2 microseconds,
  /// 3 nanoseconds.
  @inline(__always)
  package static func epochUnit(_ value: Double) -> Int8 {
    switch value.magnitude {
    case ..<1e11: 0
    case ..<1e14: 1
    case ..<1e17: 2
    default: 3
    }
  }

  /// The name of an ``epochUnit(_:)``.
  package static func epochUnitName(_ unit: Int8) -> String {
    ["seconds", "milliseconds", "microseconds", "nanoseconds"][Int(min(max(unit, 0), 3))]
  }

  /// The warning for a column of numeric times whose first number, `text`, is read in `unit`
  /// (nil when that is seconds, the documented unit), or whose numbers are read in two units
  /// (`mixedWith`: the unit of the first one).
  package static func epochUnitWarning(_ text: String, column: String, unit: Int8, mixedWith first: Int8? = nil) -> String? {
    let read = "\(column) \(text) is read as epoch \(epochUnitName(unit)) (\(TimestampText.iso8601(epochSeconds(Double(text) ?? 0))))"
    if let first {
      return read + ", where the first \(column) in the file was epoch \(epochUnitName(first)): "
        + "each number is read by its size (below 10¹¹ seconds, 10¹⁴ milliseconds, 10¹⁷ microseconds, then nanoseconds), so the file mixes units"
    }
    guard unit != 0 else { return nil }
    return read + ": numbers of 10¹¹ or more are taken for milliseconds, of 10¹⁴ for microseconds, of 10¹⁷ for nanoseconds"
  }

  /// Whether an ISO 8601 date-time that ``timestamp(_:)`` reads names its zone: `Z`, or an offset
  /// (`+09:00`, `-0500`) after the time of day.
  package static func hasZone(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let last = b.last else { return false }
    if last | 0x20 == UInt8(ascii: "z") { return true }
    guard b.count > 19 else { return false }
    for k in 19..<b.count where b[k] == UInt8(ascii: "+") || b[k] == UInt8(ascii: "-") { return true }
    return false
  }

  /// The error message for a time without a zone, `what` naming the time.
  package static func zonelessMessage(_ text: String, what: String = "time") -> String {
    "\(what) \"\(text)\" has no zone: expected Z or an offset such as +09:00 (--assume-utc reads times without one as UTC)"
  }

  /// Parses an ISO 8601 / RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]`
  /// (a space may replace `T`; no offset means UTC, as in GPX). Returns seconds since the Unix
  /// epoch, or nil.
  @inline(__always)
  package static func timestamp(_ b: UnsafeBufferPointer<UInt8>) -> Double? { timestampWithOffset(b)?.seconds }

  /// The ISO 8601 time `text` names, in seconds since 1970; or the message saying why it is not
  /// one: not a date-time, or (unless `assumeUTC`) without a zone.
  package static func isoTime(_ text: String, assumeUTC: Bool) -> Result<Double, TimeProblem> {
    var text = text
    guard let (t, zoned) = text.withUTF8({ b in timestamp(b).map { ($0, hasZone(b)) } }) else {
      return .failure(TimeProblem(message: "time \"\(text)\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z"))
    }
    guard zoned || assumeUTC else { return .failure(TimeProblem(message: zonelessMessage(text))) }
    return .success(t)
  }

  /// Why a text is not a usable time.
  package struct TimeProblem: Error {
    package let message: String
  }

  /// The same, with the offset from UTC it was written with (seconds, east positive; 0 without
  /// one).
  package static func timestampWithOffset(_ b: UnsafeBufferPointer<UInt8>) -> (seconds: Double, offset: Int)? {
    func digits(_ at: Int, _ count: Int) -> Int? {
      guard at + count <= b.count else { return nil }
      var v = 0
      for k in at..<(at + count) {
        guard b[k] >= 48, b[k] <= 57 else { return nil }
        v = v * 10 + Int(b[k] - 48)
      }
      return v
    }
    guard b.count >= 19, let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2),
      b[7] == UInt8(ascii: "-"), let day = digits(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "),
      let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
      let second = digits(17, 2)
    else { return nil }
    guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59,
      second <= 60
    else { return nil }
    var i = 19
    var fraction = 0.0
    if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
      i += 1
      var scale = 0.1
      let first = i
      while i < b.count, b[i] >= 48, b[i] <= 57 {
        fraction += Double(b[i] - 48) * scale
        scale /= 10
        i += 1
      }
      guard i > first else { return nil }
    }
    var offset = 0
    if i < b.count {
      if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
        i += 1
      } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
        let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
        guard let oh = digits(i + 1, 2) else { return nil }
        var om = 0
        if i + 3 < b.count && b[i + 3] == UInt8(ascii: ":") {
          guard let m = digits(i + 4, 2) else { return nil }
          om = m
          i += 6
        } else if let m = digits(i + 3, 2) {
          om = m
          i += 5
        } else {
          i += 3
        }
        guard oh <= 23, om <= 59 else { return nil }
        offset = sign * (oh * 3600 + om * 60)
      }
    }
    guard i == b.count else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    return (Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction, offset)
  }

  package static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
  package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// (year, month, day) of a day count since 1970-01-01.
  package static func civilFromDays(_ z: Int) -> (year: Int, month: Int, day: Int) {
    let z = z + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }
}
