/// A problem in JSON text: where (byte offset from the text's start, and the key path to the
/// value concerned, `$.aps.alert.title`), and what was expected.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
  /// 0-based byte offset in the text.
  public var offset: Int
  public var keyPath: String
  public var message: String

  public init(offset: Int, keyPath: String, message: String) {
    self.offset = offset
    self.keyPath = keyPath
    self.message = message
  }

  public var description: String { "byte \(offset), \(keyPath): \(message)" }
}

/// A strict RFC 8259 scanner over bytes: validates as it goes (structure, numbers, escapes,
/// UTF-8), decodes strings and numbers on request, and skips whole values without building
/// them. No Foundation, no allocation except for decoded strings. The project's one JSON
/// scanner: APNs payloads and push schedules, GeoJSON and region files, JSON Lines tracks and
/// scenarios are all read through it.
package struct JSONScanner {
  package let bytes: UnsafeBufferPointer<UInt8>
  package var i = 0
  /// How messages name the end of the text ("the end of the payload", "the end of the file").
  package let endName: String
  /// When false, strings and raw values are validated but not built (``string(_:)`` returns "",
  /// ``raw(_:)`` an empty text): a check that allocates next to nothing.
  package var materialize = true
  /// Nesting deeper than this is refused rather than risking the stack.
  package static let maximumDepth = 64

  package init(_ bytes: UnsafeBufferPointer<UInt8>, endName: String = "the end of the payload") {
    self.bytes = bytes
    self.endName = endName
  }

  package var atEnd: Bool { i >= bytes.count }

  package func fail(_ path: @autoclosure () -> String, _ message: String, at offset: Int? = nil) -> JSONError {
    JSONError(offset: offset ?? i, keyPath: path(), message: message)
  }

  /// What is at the cursor, for messages.
  package func found() -> String {
    guard i < bytes.count else { return endName }
    let b = bytes[i]
    switch b {
    case UInt8(ascii: "\""): return "a string"
    case UInt8(ascii: "{"): return "an object"
    case UInt8(ascii: "["): return "an array"
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
    case UInt8(ascii: "n"): return "null"
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
    default: return b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
    }
  }

  @inline(__always) package mutating func skipSpace() {
    while i < bytes.count {
      let b = bytes[i]
      guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
      i += 1
    }
  }

  /// Consumes `byte` (after whitespace) or fails.
  package mutating func expect(_ byte: UInt8, _ path: @autoclosure () -> String, _ what: String) throws(JSONError) {
    skipSpace()
    guard i < bytes.count, bytes[i] == byte else { throw fail(path(), "found \(found()): expected \(what)") }
    i += 1
  }

  /// Peeks the next significant byte.
  package mutating func peek() -> UInt8? {
    skipSpace()
    return i < bytes.count ? bytes[i] : nil
  }

  // MARK: Strings

  /// The raw bytes of a string (between the quotes) and whether it has escapes; validates it.
  package mutating func scanString(_ path: @autoclosure () -> String) throws(JSONError) -> (range: Range<Int>, escaped: Bool) {
    skipSpace()
    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail(path(), "found \(found()): expected a string") }
    let start = i + 1
    i = start
    var escaped = false
    while i < bytes.count {
      let b = bytes[i]
      if b == UInt8(ascii: "\"") {
        i += 1
        return (start..<(i - 1), escaped)
      }
      if b == UInt8(ascii: "\\") {
        escaped = true
        guard i + 1 < bytes.count else { break }
        switch bytes[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
          UInt8(ascii: "r"), UInt8(ascii: "t"):
          i += 2
        case UInt8(ascii: "u"):
          guard i + 6 <= bytes.count, (2..<6).allSatisfy({ Self.hex(bytes[i + $0]) != nil }) else {
            throw fail(path(), "bad \\u escape: expected four hexadecimal digits")
          }
          i += 6
        default: throw fail(path(), "bad escape \\\(Character(Unicode.Scalar(bytes[i + 1]))): expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
        continue
      }
      if b < 0x20 { throw fail(path(), "control character 0x\(String(b, radix: 16)) in a string: expected it escaped") }
      if b >= 0x80 {
        guard let next = Self.skipUTF8(bytes, at: i) else { throw fail(path(), "invalid UTF-8 in a string") }
        i = next
        continue
      }
      i += 1
    }
    throw fail(path(), "unterminated string: expected a closing quote", at: start - 1)
  }

  /// The index after the UTF-8 sequence starting at `k` (a byte ≥ 0x80), or nil when invalid
  /// (overlong forms, surrogates and values past U+10FFFF included).
  package static func skipUTF8(_ b: UnsafeBufferPointer<UInt8>, at k: Int) -> Int? {
    let lead = b[k]
    var length: Int
    var lo: UInt8 = 0x80
    var hi: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0: length = 3; lo = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED: length = 3; hi = 0x9F
    case 0xF0: length = 4; lo = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4: length = 4; hi = 0x8F
    default: return nil
    }
    guard k + length <= b.count else { return nil }
    guard b[k + 1] >= lo, b[k + 1] <= hi else { return nil }
    for j in 2..<length where b[k + j] & 0xC0 != 0x80 { return nil }
    return k + length
  }

  package static func hex(_ b: UInt8) -> UInt32? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - 48)
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - 87)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - 55)
    default: return nil
    }
  }

  /// The exact text of `range` (empty when not materializing).
  package func rawText(_ range: Range<Int>) -> String {
    materialize ? String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) : ""
  }

  /// A string, decoded.
  package mutating func string(_ path: @autoclosure () -> String) throws(JSONError) -> String {
    let (range, escaped) = try scanString(path())
    guard materialize else { return "" }
    let raw = UnsafeBufferPointer(rebasing: bytes[range])
    guard escaped else { return String(decoding: raw, as: UTF8.self) }
    var scalars = String.UnicodeScalarView()
    var k = range.lowerBound
    var pendingHigh: UInt32?
    func flushHigh() { if pendingHigh != nil { scalars.append("\u{FFFD}"); pendingHigh = nil } }
    while k < range.upperBound {
      let b = bytes[k]
      if b == UInt8(ascii: "\\") {
        let e = bytes[k + 1]
        if e == UInt8(ascii: "u") {
          var v: UInt32 = 0
          for j in 2..<6 { v = v << 4 | Self.hex(bytes[k + j])! }
          k += 6
          if (0xD800...0xDBFF).contains(v) {
            flushHigh()
            pendingHigh = v
          } else if (0xDC00...0xDFFF).contains(v), let high = pendingHigh {
            scalars.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00))!)
            pendingHigh = nil
          } else {
            flushHigh()
            scalars.append(Unicode.Scalar(v) ?? "\u{FFFD}")
          }
          continue
        }
        flushHigh()
        switch e {
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        default: scalars.append(Unicode.Scalar(e))
        }
        k += 2
        continue
      }
      flushHigh()
      // A run of plain bytes, decoded at once.
      var end = k
      while end < range.upperBound, bytes[end] != UInt8(ascii: "\\") { end += 1 }
      scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[k..<end]), as: UTF8.self).unicodeScalars)
      k = end
    }
    flushHigh()
    return String(scalars)
  }

  /// Whether the string at the cursor equals `key` (compared on raw bytes; an escaped key is
  /// decoded first). Consumes it.
  package mutating func key(_ path: @autoclosure () -> String) throws(JSONError) -> (raw: Range<Int>, decoded: String?) {
    let start = i
    let (range, escaped) = try scanString(path())
    guard escaped else { return (range, nil) }
    i = start
    let saved = materialize
    materialize = true  // keys are always decoded: they are matched and checked for duplicates
    defer { materialize = saved }
    let decoded = try string(path())
    return (range, decoded)
  }

  // MARK: Numbers

  /// A number: its value, whether it is written as an integer, and its text.
  package mutating func number(_ path: @autoclosure () -> String) throws(JSONError) -> (value: Double, integer: Bool, range: Range<Int>) {
    try number(path(), converting: nil)
  }

  /// A number, correctly rounded: computed from the digits as they are scanned when it has at
  /// most 15 significant digits, a scale of at most 22 and no exponent (``ExactDecimal``, the
  /// usual coordinate or integer); otherwise by `convert` from its text (a faster correctly
  /// rounded parser), or the standard library's when `convert` is nil or gives nil.
  package mutating func number(
    _ path: @autoclosure () -> String, converting convert: ((UnsafeBufferPointer<UInt8>) -> Double?)?
  ) throws(JSONError) -> (value: Double, integer: Bool, range: Range<Int>) {
    skipSpace()
    let start = i
    if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
    guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else {
      i = start
      throw fail(path(), "found \(found()): expected a number")
    }
    var integer = true
    // The first 19 significant digits, and the power of ten that scales them to the number: the
    // usual number (at most 15 digits, no exponent) is computed from them without a second scan.
    var mantissa: UInt64 = 0
    var digits = 0
    var scale = 0
    // A digit past the 19th significant one, or an exponent: the value is left to `convert`.
    var exact = true
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
      if i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { throw fail(path(), "leading zero in a number", at: start) }
    } else {
      while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
        if digits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48)
          digits += 1
        } else {
          scale += 1
          exact = false
        }
        i += 1
      }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      integer = false
      i += 1
      let first = i
      while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
        if digits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48)
          if mantissa > 0 { digits += 1 }
          scale -= 1
        } else {
          exact = false
        }
        i += 1
      }
      guard i > first else { throw fail(path(), "no digit after the decimal point") }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      integer = false
      exact = false
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      let first = i
      while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
      guard i > first else { throw fail(path(), "no digit in the exponent") }
    }
    let negative = bytes[start] == UInt8(ascii: "-")
    if exact, let v = ExactDecimal.value(mantissa, digits: digits, scale: scale) {
      return (negative ? -v : v, integer, start..<i)
    }
    if let convert, let v = convert(UnsafeBufferPointer(rebasing: bytes[start..<i])), v.isFinite { return (v, integer, start..<i) }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    guard let v = Double(text), v.isFinite else { throw fail(path(), "number \(text) is out of range", at: start) }
    return (v, integer, start..<i)
  }

  // MARK: Any value

  /// Validates and skips one value; returns its byte range.
  package mutating func skipValue(_ path: @autoclosure () -> String, depth: Int = 0) throws(JSONError) -> Range<Int> {
    skipSpace()
    let start = i
    guard i < bytes.count else { throw fail(path(), "found \(endName): expected a value") }
    switch bytes[i] {
    case UInt8(ascii: "\""): _ = try scanString(path())
    case UInt8(ascii: "{"):
      guard depth < Self.maximumDepth else { throw fail(path(), "nested deeper than \(Self.maximumDepth) levels") }
      i += 1
      if peek() == UInt8(ascii: "}") {
        i += 1
        return start..<i
      }
      while true {
        let (raw, decoded) = try key(path())
        let all = bytes
        func name() -> String { decoded ?? String(decoding: UnsafeBufferPointer(rebasing: all[raw]), as: UTF8.self) }
        try expect(UInt8(ascii: ":"), "\(path()).\(name())", "':' after the key")
        _ = try skipValue("\(path()).\(name())", depth: depth + 1)
        guard let next = peek() else { throw fail(path(), "found \(endName): expected ',' or '}'") }
        i += 1
        if next == UInt8(ascii: "}") { break }
        guard next == UInt8(ascii: ",") else {
          i -= 1
          throw fail(path(), "found \(found()): expected ',' or '}'")
        }
      }
    case UInt8(ascii: "["):
      guard depth < Self.maximumDepth else { throw fail(path(), "nested deeper than \(Self.maximumDepth) levels") }
      i += 1
      if peek() == UInt8(ascii: "]") {
        i += 1
        return start..<i
      }
      var k = 0
      while true {
        _ = try skipValue("\(path())[\(k)]", depth: depth + 1)
        k += 1
        guard let next = peek() else { throw fail(path(), "found \(endName): expected ',' or ']'") }
        i += 1
        if next == UInt8(ascii: "]") { break }
        guard next == UInt8(ascii: ",") else {
          i -= 1
          throw fail(path(), "found \(found()): expected ',' or ']'")
        }
      }
    case UInt8(ascii: "t"): try literal("true", path())
    case UInt8(ascii: "f"): try literal("false", path())
    case UInt8(ascii: "n"): try literal("null", path())
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number(path())
    default: throw fail(path(), "found \(found()): expected a value")
    }
    return start..<i
  }

  package mutating func literal(_ word: StaticString, _ path: @autoclosure () -> String) throws(JSONError) {
    let n = word.utf8CodeUnitCount
    let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
    guard i + n <= bytes.count, (0..<n).allSatisfy({ bytes[i + $0] == w[$0] }) else { throw fail(path(), "found \(found()): expected a value") }
    i += n
  }

  /// Whether the raw bytes in `range` spell `key` (eight bytes at a time).
  @inline(__always)
  package func equals(_ range: Range<Int>, _ key: StaticString) -> Bool {
    let n = key.utf8CodeUnitCount
    guard range.count == n else { return false }
    let a = UnsafeRawPointer(bytes.baseAddress! + range.lowerBound)
    let b = UnsafeRawPointer(key.utf8Start)
    var k = 0
    while k + 8 <= n {
      guard a.loadUnaligned(fromByteOffset: k, as: UInt64.self) == b.loadUnaligned(fromByteOffset: k, as: UInt64.self) else { return false }
      k += 8
    }
    while k < n {
      guard a.load(fromByteOffset: k, as: UInt8.self) == b.load(fromByteOffset: k, as: UInt8.self) else { return false }
      k += 1
    }
    return true
  }

  /// Whether two ranges of the payload hold the same bytes.
  package func equal(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
    guard a.count == b.count else { return false }
    for k in 0..<a.count where bytes[a.lowerBound + k] != bytes[b.lowerBound + k] { return false }
    return true
  }
}
