import Foundation
import SeededRandom
import Testing
@testable import TrackIO

/// The fast decimal parser every reader uses (CSV fields, JSON numbers) gives the same bits as the
/// standard library's on every input: random decimals of every length and scale, and the
/// classic hard cases.
@Suite("Decimal parsing")
struct DecimalParsingTests {
  static func parse(_ text: String) -> Double? {
    var text = text
    return text.withUTF8 { ByteNumbers.double($0) }
  }

  static let hardCases = [
    "0", "-0", "0.1", "0.2", "0.3", "1e22", "1e23", "9007199254740992", "9007199254740993", "9007199254740994",
    "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9e-324", "2.4703282292062327e-324", "1.7976931348623157e308",
    "179.99999999999997", "-122.41945281", "35.65858339", "123456789012345678901234567890", "0.000000000000000000001",
    "7.038531e-26", "8.5e-5", "1.00000000000000011102230246251565404236316680908203125",
  ]

  @Test func hardCasesGiveTheStandardLibrarysBits() {
    for text in Self.hardCases {
      #expect(Self.parse(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
    }
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func randomDecimalsGiveTheStandardLibrarysBits(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    for _ in 0..<200_000 {
      let digits = 1 + Int(rng.next() % 24)
      var mantissa = String((0..<digits).map { _ in Character(Unicode.Scalar(UInt8(48 + rng.next() % 10))) })
      let point = Int(rng.next() % UInt64(digits + 1))
      if point < digits { mantissa.insert(".", at: mantissa.index(mantissa.startIndex, offsetBy: point)) }
      if mantissa.hasPrefix(".") { mantissa = "0" + mantissa }
      var text = (rng.next() % 2 == 0 ? "-" : "") + mantissa
      if rng.next() % 3 == 0 { text += "e" + String(Int(rng.next() % 60) - 30) }
      guard let reference = Double(text), reference.isFinite else { continue }
      #expect(Self.parse(text)?.bitPattern == reference.bitPattern, "\(text)")
    }
  }

  /// JSON numbers through the shared scanner: the same bits.
  @Test func jsonNumbersGiveTheStandardLibrarysBits() throws {
    var rng = SeededGenerator(seed: 7)
    let texts = (0..<2_000).map { _ in String(format: "%.\(rng.next() % 17)f", rng.uniform(-180...180)) } + Self.hardCases
    var parser = JSONParser(path: "numbers", bytes: Array(("[" + texts.joined(separator: ",") + "]").utf8))
    guard case .array(let nodes) = try parser.parseDocument().value else { Issue.record("not an array"); return }
    for (node, text) in zip(nodes, texts) {
      guard case .number(let v) = node.value else { Issue.record("\(text) not a number"); continue }
      #expect(v.bitPattern == Double(text)?.bitPattern, "\(text)")
    }
  }
}
