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
}
