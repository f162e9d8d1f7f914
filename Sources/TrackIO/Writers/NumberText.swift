/// Number text shared by GeoWake's writers: locale-free and deterministic.
public enum NumberText {
  /// `value` with exactly `decimals` digits after the point (rounded half away from zero).
  public static func fixed(_ value: Double, decimals: Int) -> String {
    var bytes: [UInt8] = []
    ByteSink.appendFixed(value, decimals: decimals, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A duration rounded to the second: `42 s`, `3 min 5 s`, `2 h 10 min`.
  public static func duration(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    return s >= 3600 ? "\(s / 3600) h \(s / 60 % 60) min" : s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s"
  }
}
