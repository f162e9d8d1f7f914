/// Canonical JSON text for strings and numbers, shared by the payload codec and GeoWake's
/// writers.
public enum JSONText {
  /// `s` as a JSON string literal, quotes included, with the escapes JSON requires and no others
  /// (control characters as their short form or `\u00XX`).
  public static func quoted(_ s: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(s.utf8.count + 2)
    appendQuoted(s, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// ``quoted(_:)`` appended to `out` as UTF-8, without making a string: the bytes of `s` as they
  /// are, but for `"`, `\` and the control characters below U+0020, escaped.
  public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var s = s
    s.withUTF8 { bytes in
      var start = 0
      for (i, b) in bytes.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        start = i + 1
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        default:
          let hex = Array("0123456789abcdef".utf8)
          out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
        }
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    }
    out.append(UInt8(ascii: "\""))
  }

  public static func array(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ",") + "]" }

  /// The shortest text that reads back as `v`; whole numbers without a fraction.
  public static func number(_ v: Double) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return "\(Int(v))" }
    return "\(v)"
  }
}
