/// Canonical JSON text for strings and numbers, shared by the payload codec and GeoWake's
/// writers.
public enum JSONText {
  /// `s` as a JSON string literal, quotes included, with the escapes JSON requires and no others
  /// (control characters as their short form or `\u00XX`).
  public static func quoted(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
      switch u {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      default:
        if u.value < 0x20 {
          let hex = String(u.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(u)
        }
      }
    }
    return out + "\""
  }

  public static func array(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ",") + "]" }

  /// The shortest text that reads back as `v`; whole numbers without a fraction.
  public static func number(_ v: Double) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return "\(Int(v))" }
    return "\(v)"
  }
}
