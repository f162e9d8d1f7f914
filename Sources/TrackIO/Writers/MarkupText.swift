/// Text for GeoWake's XHTML and SVG reports.
public enum MarkupText {
  /// `text` for XML content and attribute values: `&`, `<`, `>`, `"` and `'` escaped, the control
  /// characters XML 1.0 forbids (even escaped) replaced by U+FFFD.
  public static func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default:
        if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" {
          out += "\u{FFFD}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }
}
