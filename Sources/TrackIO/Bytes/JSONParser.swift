import Foundation

/// A parsed JSON value with the byte offset where it starts, so that errors about it can name a
/// line and column.
package struct JSONNode {
  package enum Value {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    /// Members in document order (duplicates kept; lookups take the first).
    case object([(key: String, value: JSONNode)])
  }

  package var value: Value
  package var offset: Int
  /// The byte offset just past the value.
  package var end = 0

  package init(value: Value, offset: Int) {
    self.value = value
    self.offset = offset
  }

  package subscript(key: String) -> JSONNode? {
    guard case .object(let members) = value else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// What kind of value this is, for messages ("a string", "an object").
  package var kind: String {
    switch value {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

/// A strict RFC 8259 JSON parser over bytes (for region files: small enough to hold whole).
///
/// Errors are ``TrackIOError``s with the line and column of the offending byte. Nesting deeper
/// than ``maximumDepth`` is refused rather than risking the stack.
package struct JSONParser {
  package static let maximumDepth = 256

  package let path: String
  package let bytes: [UInt8]
  private var i = 0

  /// The largest file read whole: larger is an error, not a reason to fill the memory
  /// (`/dev/zero` given as a region file).
  package static let largestFile = 1_000_000_000

  /// Reads the whole file at `path` (`-`: standard input), up to ``largestFile`` bytes.
  package init(path: String) throws(TrackIOError) {
    let input = try InputFile(path: path)
    self.path = input.path
    bytes = try input.readAll(limit: Self.largestFile, what: "JSON files")
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
  }

  /// Parses `bytes` (one line of a JSON Lines file, say); errors name line 1 of them.
  package init(path: String, bytes: [UInt8]) {
    self.path = path
    self.bytes = bytes
  }

  /// 1-based line and byte column of `offset`.
  package func location(of offset: Int) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    for k in 0..<min(offset, bytes.count) where bytes[k] == UInt8(ascii: "\n") {
      line += 1
      lineStart = k + 1
    }
    return (line, offset - lineStart + 1)
  }

  package func error(_ message: String, at offset: Int) -> TrackIOError {
    let (line, column) = location(of: offset)
    return TrackIOError(path: path, line: line, column: column, message: message)
  }

  /// Parses the document: one value, then nothing but whitespace.
  package mutating func parseDocument() throws(TrackIOError) -> JSONNode {
    skipSpace()
    let node = try parseValue(depth: 0)
    skipSpace()
    guard i == bytes.count else { throw error("unexpected \(found()) after the JSON value: expected the end of the file", at: i) }
    return node
  }

  private mutating func skipSpace() {
    while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
  }

  private func found() -> String {
    guard i < bytes.count else { return "end of file" }
    let b = bytes[i]
    return b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
  }

  private mutating func parseValue(depth: Int) throws(TrackIOError) -> JSONNode {
    var node = try parseValueBody(depth: depth)
    node.end = i
    return node
  }

  private mutating func parseValueBody(depth: Int) throws(TrackIOError) -> JSONNode {
    guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels", at: i) }
    let start = i
    guard i < bytes.count else { throw error("file ends where a value was expected", at: i) }
    switch bytes[i] {
    case UInt8(ascii: "{"):
      i += 1
      var members: [(key: String, value: JSONNode)] = []
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
        i += 1
        return JSONNode(value: .object(members), offset: start)
      }
      while true {
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("\(found()): expected a member name in double quotes", at: i) }
        let key = try parseString()
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("\(found()): expected ':' after the member name", at: i) }
        i += 1
        skipSpace()
        members.append((key, try parseValue(depth: depth + 1)))
        skipSpace()
        guard i < bytes.count else { throw error("file ends inside an object: expected ',' or '}'", at: i) }
        if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
        guard bytes[i] == UInt8(ascii: "}") else { throw error("\(found()): expected ',' or '}' in an object", at: i) }
        i += 1
        return JSONNode(value: .object(members), offset: start)
      }
    case UInt8(ascii: "["):
      i += 1
      var elements: [JSONNode] = []
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
        i += 1
        return JSONNode(value: .array(elements), offset: start)
      }
      while true {
        skipSpace()
        elements.append(try parseValue(depth: depth + 1))
        skipSpace()
        guard i < bytes.count else { throw error("file ends inside an array: expected ',' or ']'", at: i) }
        if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
        guard bytes[i] == UInt8(ascii: "]") else { throw error("\(found()): expected ',' or ']' in an array", at: i) }
        i += 1
        return JSONNode(value: .array(elements), offset: start)
      }
    case UInt8(ascii: "\""):
      return JSONNode(value: .string(try parseString()), offset: start)
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return try parseNumber()
    default:
      throw error("\(found()): expected a JSON value", at: i)
    }
  }

  private mutating func literal(_ word: StaticString, _ value: JSONNode.Value) throws(TrackIOError) -> JSONNode {
    let start = i
    let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    guard i + text.count <= bytes.count, bytes[i..<(i + text.count)].elementsEqual(text) else {
      throw error("\(found()): expected a JSON value", at: i)
    }
    i += text.count
    return JSONNode(value: value, offset: start)
  }

  /// RFC 8259 number grammar, then a correctly rounded conversion.
  private mutating func parseNumber() throws(TrackIOError) -> JSONNode {
    let start = i
    func digits() -> Int {
      let s = i
      while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
      return i - s
    }
    if bytes[i] == UInt8(ascii: "-") { i += 1 }
    let intStart = i
    let intDigits = digits()
    guard intDigits > 0 else { throw error("\(found()): expected a digit in a number", at: i) }
    guard intDigits == 1 || bytes[intStart] != 48 else { throw error("number with a leading zero", at: start) }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      guard digits() > 0 else { throw error("\(found()): expected a digit after the decimal point", at: i) }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      guard digits() > 0 else { throw error("\(found()): expected a digit in the exponent", at: i) }
    }
    let end = i
    let value = bytes.withUnsafeBufferPointer { ByteNumbers.double(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    guard let value else { throw error("number out of range: expected a finite number", at: start) }
    return JSONNode(value: .number(value), offset: start)
  }

  private mutating func parseString() throws(TrackIOError) -> String {
    let open = i
    i += 1
    var out: [UInt8] = []
    while true {
      guard i < bytes.count else { throw error("string is not closed: expected '\"'", at: open) }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") {
        i += 1
        break
      }
      guard b >= 0x20 else { throw error("control character in a string: expected it escaped", at: i) }
      guard b == UInt8(ascii: "\\") else {
        out.append(b)
        i += 1
        continue
      }
      guard i + 1 < bytes.count else { throw error("string is not closed: expected '\"'", at: open) }
      let e = bytes[i + 1]
      i += 2
      switch e {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4(at: i - 2)
        if (0xD800..<0xDC00).contains(scalar), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
          i += 2
          let low = try hex4(at: i - 2)
          guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape", at: i - 8) }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let s = Unicode.Scalar(scalar) else { throw error("unpaired surrogate in \\u escape", at: i - 6) }
        out.append(contentsOf: Array(String(Character(s)).utf8))
      default:
        throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: i - 2)
      }
    }
    guard let text = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8", at: open) }
    return text
  }

  private mutating func hex4(at escape: Int) throws(TrackIOError) -> UInt32 {
    guard i + 4 <= bytes.count else { throw error("\\u escape needs four hex digits", at: escape) }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[i]
      let d: UInt32
      switch b {
      case 48...57: d = UInt32(b - 48)
      case 65...70: d = UInt32(b - 55)
      case 97...102: d = UInt32(b - 87)
      default: throw error("\\u escape needs four hex digits", at: escape)
      }
      v = v * 16 + d
      i += 1
    }
    return v
  }
}
