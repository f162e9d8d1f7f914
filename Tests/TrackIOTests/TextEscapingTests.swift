import Foundation
import JSONBytes
import SeededRandom
import Testing
import TrackIO
import _GeoWakeTestSupport

/// JSON string literals and CSV fields written as bytes, against the plain definitions: the
/// escapes JSON requires and RFC 4180's quoting, a Unicode scalar at a time.
@Suite struct TextEscapingTests {
  /// JSON's escapes, one Unicode scalar at a time.
  static func quotedByScalars(_ s: String) -> String {
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

  /// RFC 4180 quoting, one Unicode scalar at a time: quoted when a comma, a quote, a space or a
  /// line break is in it (a comma with a combining mark on it too).
  static func csvFieldByCharacters(_ text: String) -> String {
    let special = text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == " " || $0 == "\n" || $0 == "\r" }
    guard special else { return text }
    return "\"" + text.unicodeScalars.map { $0 == "\"" ? "\"\"" : String($0) }.joined() + "\""
  }

  /// Random text from every kind of character the escapes care about.
  static func texts(seed: UInt64) -> [String] {
    var random = SeededGenerator(seed: seed)
    let pieces: [String] = [
      "a", "Z", " ", ",", "\"", "\\", "\n", "\r", "\r\n", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "\u{7F}", "é", "日本",
      "🏳️‍🌈", ",\u{301}", "\u{2028}", "/", "0",
    ]
    var out = ["", "plain", "\"", "\\\\"]
    for _ in 0..<3_000 {
      out.append((0..<Int(random.next() % 12)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined())
    }
    return out
  }

  @Test(arguments: [UInt64(1), 2])
  func jsonStringsMatchTheScalarDefinitionAndReadBack(seed: UInt64) throws {
    let sink = ByteSink.inMemory()
    var expected = ""
    for text in Self.texts(seed: seed) {
      let quoted = JSONText.quoted(text)
      #expect(quoted == Self.quotedByScalars(text), "\(text.debugDescription)")
      let decoded = try JSONDecoder().decode(String.self, from: Data(quoted.utf8))
      #expect(decoded == text)
      try sink.writeJSONString(text)
      expected += quoted
    }
    #expect(String(decoding: sink.takeBytes(), as: UTF8.self) == expected)
  }

  @Test(arguments: [UInt64(1), 2])
  func csvFieldsMatchTheCharacterDefinition(seed: UInt64) throws {
    let sink = ByteSink.inMemory()
    var expected = ""
    for text in Self.texts(seed: seed) {
      try sink.writeCSVField(text)
      expected += Self.csvFieldByCharacters(text)
      #expect(RegionWriter.csvField(text) == Self.csvFieldByCharacters(text), "\(text.debugDescription)")
    }
    #expect(String(decoding: sink.takeBytes(), as: UTF8.self) == expected)
  }
}
