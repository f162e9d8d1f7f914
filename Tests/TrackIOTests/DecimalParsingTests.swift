import Foundation
import JSONBytes
import SeededRandom
import Testing
@testable import TrackIO

/// The fast decimal parser every reader uses (CSV fields, JSON numbers, GPX values) gives the same
/// bits as the standard library's on every input: random decimals of every length and scale,
/// the exact decimal expansions exporters write, values halfway between two doubles and just
/// off them, the whole exponent range, and the classic hard cases.
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

  /// A random decimal: 1 to 24 random digits with the point anywhere (or nowhere), negative one
  /// time in two, an exponent from −30 to 29 one time in three.
  static func randomDecimal(_ rng: inout SeededGenerator) -> String {
    let digits = 1 + Int(rng.next() % 24)
    var mantissa = String((0..<digits).map { _ in Character(Unicode.Scalar(UInt8(48 + rng.next() % 10))) })
    let point = Int(rng.next() % UInt64(digits + 1))
    if point < digits { mantissa.insert(".", at: mantissa.index(mantissa.startIndex, offsetBy: point)) }
    if mantissa.hasPrefix(".") { mantissa = "0" + mantissa }
    var text = (rng.next() % 2 == 0 ? "-" : "") + mantissa
    if rng.next() % 3 == 0 { text += "e" + String(Int(rng.next() % 60) - 30) }
    return text
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func randomDecimalsGiveTheStandardLibrarysBits(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    for _ in 0..<200_000 {
      let text = Self.randomDecimal(&rng)
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

  /// Random JSON numbers scanned one at a time (``JSONScanner/number(_:converting:)``, which
  /// computes the usual ones from the digits it scans), with and without the fast parser behind
  /// it: the same bits. Up to 24 digits, leading zeros after the point, exponents.
  @Test(arguments: [UInt64(4), 5])
  func scannedJSONNumbersGiveTheStandardLibrarysBits(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var checked = 0
    for _ in 0..<100_000 {
      let decimal = Self.randomDecimal(&rng)
      // JSON allows no leading zero before another digit, and writes an exponent with e or E.
      let sign = decimal.hasPrefix("-") ? "-" : ""
      var body = decimal.dropFirst(sign.count)
      while body.count > 1, body.hasPrefix("0"), let next = body.dropFirst().first, next.isNumber {
        body = body.dropFirst()
      }
      let text = sign + (rng.next() % 2 == 0 ? String(body) : body.replacingOccurrences(of: "e", with: "E"))
      guard let reference = Double(text), reference.isFinite else { continue }
      for convert in [nil, ByteNumbers.double] as [((UnsafeBufferPointer<UInt8>) -> Double?)?] {
        var bytes = Array(text.utf8)
        let value = try bytes.withUnsafeMutableBufferPointer { buffer in
          var scanner = JSONScanner(UnsafeBufferPointer(buffer))
          return try scanner.number("$", converting: convert).value
        }
        #expect(value.bitPattern == reference.bitPattern, "\(text)")
      }
      checked += 1
    }
    #expect(checked > 90_000)
  }

  /// Every length up to 40 digits, every exponent a double can reach (and past it).
  @Test(arguments: [UInt64(11), 12])
  func decimalsOfEveryLengthAndExponentGiveTheStandardLibrarysBits(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    for _ in 0..<200_000 {
      let digits = 1 + Int(rng.next() % 40)
      var text = rng.next() % 2 == 0 ? "-" : ""
      text += String((0..<digits).map { _ in Character(Unicode.Scalar(UInt8(48 + rng.next() % 10))) })
      if rng.next() % 2 == 0 {
        let point = Int(rng.next() % UInt64(digits))
        text.insert(".", at: text.index(text.endIndex, offsetBy: -point - 1))
        if text.hasPrefix(".") || text.hasPrefix("-.") { text = text.replacingOccurrences(of: ".", with: "0.") }
      }
      text += "e" + String(Int(rng.next() % 700) - 350)
      let reference = Double(text)
      let parsed = Self.parse(text)
      if let reference, reference.isFinite {
        #expect(parsed?.bitPattern == reference.bitPattern, "\(text)")
      } else {
        #expect(parsed == nil, "\(text)")
      }
    }
  }

  /// The exact decimal value of random doubles and floats (Garmin Connect writes coordinates
  /// this way, 30 digits and more), and the shortest text of random bit patterns.
  @Test func exactExpansionsAndShortestTextsGiveTheStandardLibrarysBits() {
    var rng = SeededGenerator(seed: 21)
    for k in 0..<6_000 {
      let value: Double
      switch k % 3 {
      case 0: value = rng.uniform(-180...180)
      case 1: value = Double(Float(rng.uniform(-90...90)))
      default: value = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)
      }
      guard value.isFinite, value != 0 else { continue }
      for text in [Self.exactDecimal(value), "\(value)"] {
        #expect(Self.parse(text)?.bitPattern == value.bitPattern, "\(text)")
      }
    }
  }

  /// Exactly halfway between two adjacent doubles (ties to even), and the same digits with the
  /// last one nudged down or up: the hardest inputs for a truncating parser.
  @Test func halfwayValuesGiveTheStandardLibrarysBits() {
    var rng = SeededGenerator(seed: 31)
    for k in 0..<3_000 {
      let low: Double
      switch k % 3 {
      case 0: low = rng.uniform(-180...180).magnitude
      case 1: low = Double(rng.next() >> 11)
      default: low = Double(bitPattern: (rng.next() & 0x7FEF_FFFF_FFFF_FFFF) | 0x0010_0000_0000_0000)
      }
      guard low.isFinite, low > 0, low.nextUp.isFinite else { continue }
      let halfway = Self.exactHalfway(low)
      var texts = [halfway]
      if halfway.count > 1, let last = halfway.last, last != ".", last != "0" {
        texts.append(String(halfway.dropLast()) + String(Character(Unicode.Scalar(last.asciiValue! - 1))))
        texts.append(halfway + (halfway.contains(".") ? "" : ".") + "000000000000000000000001")
      }
      for text in texts {
        #expect(Self.parse(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
      }
    }
  }

  /// The exact decimal value of a finite double, written out in full.
  static func exactDecimal(_ value: Double) -> String {
    let sign = value < 0 ? "-" : ""
    let magnitude = value.magnitude
    let exponent = Int(magnitude.exponent) - 52
    let significand = magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0)
    let adjusted = magnitude.isNormal ? exponent : -1074
    return sign + decimal(significand: significand, binaryExponent: adjusted)
  }

  /// The exact decimal value halfway between `low` (positive, normal) and the next double up.
  static func exactHalfway(_ low: Double) -> String {
    let exponent = Int(low.exponent) - 52
    let significand = low.significandBitPattern | 1 << 52
    return decimal(significand: 2 * significand + 1, binaryExponent: exponent - 1)
  }

  /// `significand` × 2^`binaryExponent` in decimal, exactly: digits as a little-endian array of
  /// base-10 digits multiplied out (with 2^-e = 5^e / 10^e).
  static func decimal(significand: UInt64, binaryExponent: Int) -> String {
    var digits: [UInt8] = String(significand).utf8.reversed().map { $0 - 48 }
    func multiply(by factor: UInt8) {
      var carry = 0
      for i in digits.indices {
        let product = Int(digits[i]) * Int(factor) + carry
        digits[i] = UInt8(product % 10)
        carry = product / 10
      }
      while carry > 0 {
        digits.append(UInt8(carry % 10))
        carry /= 10
      }
    }
    let fractionDigits = max(0, -binaryExponent)
    for _ in 0..<abs(binaryExponent) { multiply(by: binaryExponent > 0 ? 2 : 5) }
    while digits.count <= fractionDigits { digits.append(0) }
    let text = String(decoding: digits.reversed().map { $0 + 48 }, as: UTF8.self)
    guard fractionDigits > 0 else { return text }
    let split = text.index(text.endIndex, offsetBy: -fractionDigits)
    return String(text[..<split]) + "." + String(text[split...])
  }
}
