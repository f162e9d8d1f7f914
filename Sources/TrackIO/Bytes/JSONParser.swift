import Foundation
package import JSONBytes

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

extension JSONNode {
  /// The time this value gives: seconds since 1970 (milliseconds, microseconds, nanoseconds told
  /// apart by magnitude) or an ISO 8601 string with its zone (or without, with `assumeUTC`);
  /// otherwise why not, naming the value as `what`.
  package func time(assumeUTC: Bool, what: String) -> Result<Double, ByteNumbers.TimeProblem> {
    switch value {
    case .number(let v):
      let seconds = ByteNumbers.epochSeconds(v)
      guard ByteNumbers.epochSecondsRange.contains(seconds) else {
        return .failure(ByteNumbers.TimeProblem(message: ByteNumbers.epochRangeMessage(v, text: JSONText.number(v), column: what)))
      }
      return .success(seconds)
    case .string(let s): return ByteNumbers.isoTime(s, assumeUTC: assumeUTC)
    default: return .failure(ByteNumbers.TimeProblem(message: "\(what) is \(kind): expected seconds since 1970 or an ISO 8601 string"))
    }
  }
}

/// A strict RFC 8259 JSON parser over bytes, for documents small enough to hold whole (app
/// scenarios, energy models, a GeoJSON track); region files and location histories are read a
/// chunk at a time (``JSONChunkReader``) with the same value parser.
///
/// Errors are ``TrackIOError``s with the line and column of the offending byte. Nesting deeper
/// than ``maximumDepth`` is refused rather than risking the stack.
package struct JSONParser {
  package static let maximumDepth = 256

  package let path: String
  package let bytes: [UInt8]
  /// How messages name the end of the text: the file's, or the line's for one line of JSON Lines.
  private let endName: String
  private var i = 0

  /// The largest file read whole: larger is an error, not a reason to fill the memory
  /// (`/dev/zero` given as a region file).
  package static let largestFile = 1_000_000_000

  /// Reads the whole file at `path` (`-`: standard input), up to ``largestFile`` bytes.
  package init(path: String) throws(TrackIOError) {
    let input = try InputFile(path: path)
    self.path = input.path
    endName = "the end of the file"
    bytes = try input.readAll(limit: Self.largestFile, what: "JSON files")
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
  }

  /// Parses `bytes` (one line of a JSON Lines file, say); errors name line 1 of them.
  package init(path: String, bytes: [UInt8]) {
    self.path = path
    self.bytes = bytes
    endName = "the end of the line"
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

  /// Parses the document: one value, then nothing but whitespace. The tokens are
  /// ``JSONScanner``'s, the project's one JSON scanner; this builds the tree over them.
  package mutating func parseDocument() throws(TrackIOError) -> JSONNode {
    let start = i
    let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONNode, JSONError> in
      var scanner = JSONScanner(buffer, endName: endName)
      scanner.i = start
      do throws(JSONError) {
        let node = try Self.value(&scanner, depth: 0)
        scanner.skipSpace()
        guard scanner.atEnd else { throw scanner.fail("$", "found \(scanner.found()) after the JSON value: expected \(scanner.endName)") }
        return .success(node)
      } catch {
        return .failure(error)
      }
    }
    switch result {
    case .success(let node):
      i = bytes.count
      return node
    case .failure(let failure):
      throw error(failure.message, at: failure.offset)
    }
  }

  /// Reads the document through `body` in one pass: `body` walks it with a ``JSONStream`` and
  /// takes whole only the parts it wants whole (a feature, a region), so no tree of the whole
  /// document is built.
  package func stream<T>(_ body: (inout JSONStream) throws(TrackIOError) -> T) throws(TrackIOError) -> T {
    let start = i
    let result = bytes.withUnsafeBufferPointer { buffer -> Result<T, TrackIOError> in
      var stream = JSONStream(scanner: JSONScanner(buffer, endName: endName), parser: self)
      stream.scanner.i = start
      do throws(TrackIOError) { return .success(try body(&stream)) } catch { return .failure(error) }
    }
    return try result.get()
  }

  static func value(_ s: inout JSONScanner, depth: Int) throws(JSONError) -> JSONNode {
    guard let first = s.peek() else { throw s.fail("$", "found \(s.endName): expected a JSON value") }
    guard depth < maximumDepth else { throw s.fail("$", "nested deeper than \(maximumDepth) levels") }
    var node = JSONNode(value: .null, offset: s.i)
    switch first {
    case UInt8(ascii: "{"):
      s.i += 1
      var members: [(key: String, value: JSONNode)] = []
      if s.peek() == UInt8(ascii: "}") {
        s.i += 1
      } else {
        while true {
          guard s.peek() == UInt8(ascii: "\"") else { throw s.fail("$", "found \(s.found()): expected a member name in double quotes") }
          let key = try s.string("$")
          try s.expect(UInt8(ascii: ":"), "$", "':' after the member name")
          members.append((key, try value(&s, depth: depth + 1)))
          guard let next = s.peek() else { throw s.fail("$", "found \(s.endName) inside an object: expected ',' or '}'") }
          guard next == UInt8(ascii: ",") || next == UInt8(ascii: "}") else { throw s.fail("$", "found \(s.found()): expected ',' or '}' in an object") }
          s.i += 1
          if next == UInt8(ascii: "}") { break }
        }
      }
      node.value = .object(members)
    case UInt8(ascii: "["):
      s.i += 1
      var elements: [JSONNode] = []
      if s.peek() == UInt8(ascii: "]") {
        s.i += 1
      } else {
        while true {
          elements.append(try value(&s, depth: depth + 1))
          guard let next = s.peek() else { throw s.fail("$", "found \(s.endName) inside an array: expected ',' or ']'") }
          guard next == UInt8(ascii: ",") || next == UInt8(ascii: "]") else { throw s.fail("$", "found \(s.found()): expected ',' or ']' in an array") }
          s.i += 1
          if next == UInt8(ascii: "]") { break }
        }
      }
      node.value = .array(elements)
    case UInt8(ascii: "\""): node.value = .string(try s.string("$"))
    case UInt8(ascii: "t"):
      try s.literal("true", "$")
      node.value = .bool(true)
    case UInt8(ascii: "f"):
      try s.literal("false", "$")
      node.value = .bool(false)
    case UInt8(ascii: "n"): try s.literal("null", "$")
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): node.value = .number(try s.number("$", converting: ByteNumbers.double).value)
    default: throw s.fail("$", "found \(s.found()): expected a JSON value")
    }
    node.end = s.i
    return node
  }
}

/// A document being read in one pass (``JSONParser/stream(_:)``): the scanner's tokens, whole
/// values where wanted, and errors located at their line and column.
package struct JSONStream {
  package var scanner: JSONScanner
  let parser: JSONParser

  /// The next significant byte, not consumed.
  package mutating func peek() -> UInt8? { scanner.peek() }
  /// The byte offset of the cursor.
  package var offset: Int { scanner.i }
  /// Consumes the byte ``peek()`` returned.
  package mutating func consume() { scanner.i += 1 }
  /// What is at the cursor, for messages.
  package func found() -> String { scanner.found() }

  package func error(_ message: String, at offset: Int) -> TrackIOError { parser.error(message, at: offset) }

  /// Consumes `byte` (after whitespace) or fails, naming `what` was expected.
  package mutating func expect(_ byte: UInt8, _ what: String) throws(TrackIOError) {
    try located { (s: inout JSONScanner) throws(JSONError) in try s.expect(byte, "$", what) }
  }

  /// A string, decoded.
  package mutating func string() throws(TrackIOError) -> String {
    try located { (s: inout JSONScanner) throws(JSONError) in try s.string("$") }
  }

  /// The next value, whole.
  package mutating func value() throws(TrackIOError) -> JSONNode {
    try located { (s: inout JSONScanner) throws(JSONError) in try JSONParser.value(&s, depth: 1) }
  }

  /// Reads a GeoJSON object at the cursor (after its `{` is seen), handing the stream to
  /// `feature` at each element of its `features` array (`feature` reads that one element),
  /// whatever the order of the members, as long as `collection` says the members before it may
  /// make a FeatureCollection; every other member is kept whole. Returns the object with those
  /// members, and whether `features` was handed out.
  package mutating func geoJSONObject(
    collection: ([(key: String, value: JSONNode)]) -> Bool, feature: (inout JSONStream) throws(TrackIOError) -> Void
  ) throws(TrackIOError) -> (object: JSONNode, streamedFeatures: Bool) {
    let objectOffset = offset
    consume()
    var members: [(key: String, value: JSONNode)] = []
    var streamed = false
    if peek() == UInt8(ascii: "}") {
      consume()
    } else {
      repeat {
        guard peek() == UInt8(ascii: "\"") else { throw error("found \(found()): expected a member name in double quotes", at: offset) }
        let key = try string()
        try expect(UInt8(ascii: ":"), "':' after the member name")
        if key == "features", !streamed, peek() == UInt8(ascii: "["), collection(members) {
          streamed = true
          consume()
          if peek() == UInt8(ascii: "]") {
            consume()
          } else {
            repeat { try feature(&self) } while try next(UInt8(ascii: "]"), in: "an array")
          }
        } else {
          members.append((key, try value()))
        }
      } while try next(UInt8(ascii: "}"), in: "an object")
    }
    return (JSONNode(value: .object(members), offset: objectOffset), streamed)
  }

  /// Fails unless only whitespace is left.
  package mutating func expectEnd() throws(TrackIOError) {
    scanner.skipSpace()
    guard scanner.atEnd else { throw error("found \(found()) after the JSON value: expected \(scanner.endName)", at: offset) }
  }

  /// After an element of an array or a member of an object: consumes `,` (true: another follows)
  /// or `close` (false).
  package mutating func next(_ close: UInt8, in container: String) throws(TrackIOError) -> Bool {
    guard let next = peek() else {
      throw error("found \(scanner.endName) inside \(container): expected ',' or '\(Character(Unicode.Scalar(close)))'", at: offset)
    }
    guard next == UInt8(ascii: ",") || next == close else {
      throw error("found \(found()): expected ',' or '\(Character(Unicode.Scalar(close)))' in \(container)", at: offset)
    }
    consume()
    return next == UInt8(ascii: ",")
  }

  private mutating func located<T>(_ body: (inout JSONScanner) throws(JSONError) -> T) throws(TrackIOError) -> T {
    do throws(JSONError) { return try body(&scanner) } catch { throw parser.error(error.message, at: error.offset) }
  }
}
