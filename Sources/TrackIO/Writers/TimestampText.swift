/// ISO 8601 text for times held as seconds since the Unix epoch.
public enum TimestampText {
  /// `seconds` as ISO 8601 UTC (`2024-05-01T12:00:00Z`), with `fractionDigits` digits of
  /// fractional seconds (0…9), rounded to nearest.
  public static func iso8601(_ seconds: Double, fractionDigits: Int = 0) -> String {
    var bytes: [UInt8] = []
    ByteSink.appendTimestamp(seconds, fractionDigits: fractionDigits, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `seconds` as ISO 8601 UTC, with milliseconds only when it has a fractional part at that
  /// precision (`…T12:00:00Z`, `…T12:00:00.994Z`).
  public static func iso8601Compact(_ seconds: Double) -> String {
    let milliseconds = (seconds * 1000).rounded()
    return iso8601(seconds, fractionDigits: milliseconds.truncatingRemainder(dividingBy: 1000) == 0 ? 0 : 3)
  }

  /// `seconds` as ISO 8601 local time on a clock `utcOffset` seconds ahead of UTC
  /// (`2024-05-06T07:45:00+02:00`; `Z` when the offset is 0).
  public static func iso8601(_ seconds: Double, utcOffset: Int) -> String {
    guard utcOffset != 0 else { return iso8601(seconds) }
    let local = iso8601(seconds + Double(utcOffset)).dropLast()
    let m = abs(utcOffset) / 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return local + (utcOffset < 0 ? "-" : "+") + two(m / 60) + ":" + two(m % 60)
  }

  /// `seconds` as ISO 8601 on a clock `utcOffset` seconds ahead of UTC, with `fractionDigits`
  /// digits of fractional seconds (`2024-05-06T07:45:00.250+02:00`; `Z` when the offset is 0).
  public static func iso8601(_ seconds: Double, fractionDigits: Int, utcOffset: Int) -> String {
    let local = iso8601(seconds + Double(utcOffset), fractionDigits: fractionDigits)
    return utcOffset == 0 ? local : String(local.dropLast()) + zoneName(utcOffset: utcOffset).dropFirst(3)
  }

  /// The zone of a clock `utcOffset` seconds ahead of UTC, for headers: `UTC`, `UTC+09:00`,
  /// `UTC-05:30`.
  public static func zoneName(utcOffset: Int) -> String {
    guard utcOffset != 0 else { return "UTC" }
    let m = abs(utcOffset) / 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "UTC" + (utcOffset < 0 ? "-" : "+") + two(m / 60) + ":" + two(m % 60)
  }

  /// Parses ISO 8601 text (as the readers do): seconds since the Unix epoch, or nil.
  public static func parse(_ text: String) -> Double? {
    Array(text.utf8).withUnsafeBufferPointer { ByteNumbers.timestamp($0) }
  }
}
