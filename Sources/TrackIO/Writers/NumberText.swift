/// Number text shared by GeoWake's writers: locale-free and deterministic.
public enum NumberText {
  /// `value` with exactly `decimals` digits after the point (rounded half away from zero).
  public static func fixed(_ value: Double, decimals: Int) -> String {
    var bytes: [UInt8] = []
    ByteSink.appendFixed(value, decimals: decimals, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
