import Foundation

/// A streaming tokenizer for XML markup, a whole tag at a time, over a file read in chunks.
///
/// ``next(trailingText:)`` returns the next piece of markup — start tag, empty-element tag, end
/// tag, CDATA section, or something to skip (comment, processing instruction, declaration) — with
/// the byte ranges of its parts and of the text before it, all valid in ``bytes`` until the
/// following call. Nothing is copied or allocated per token: ranges point into the read buffer,
/// which holds one chunk (1 MiB) plus the longest token. The buffer is compacted only between
/// tokens, so offsets never move while a token is scanned. Lines and columns are computed only
/// when asked for, by counting newlines from the last place counted.
struct MarkupScanner {
  enum Kind {
    case startTag
    case emptyElementTag
    case endTag
    case cdata
    case other
  }

  struct Token {
    var kind: Kind
    /// Offset of the '<'.
    var start: Int
    /// Text between the previous token and this one.
    var text: Range<Int>
    /// The element name (tags), or the content (CDATA).
    var name: Range<Int>
    /// Everything between the name and the closing '>' or '/>' (start tags).
    var attributes: Range<Int>
  }

  let path: String
  private let handle: FileHandle
  private(set) var bytes: [UInt8] = []
  private var position = 0
  private var atEnd = false
  private var firstChunk = true
  // Newlines counted up to `countedOffset`: the line there and the offset of the last newline.
  private var countedOffset = 0
  private var countedLine = 1
  private var lastNewline = -1

  static let chunkSize = 1 << 20

  init(path: String) throws(TrackIOError) {
    self.path = path == "-" ? "<stdin>" : path
    if path == "-" {
      handle = FileHandle.standardInput
    } else {
      guard let h = FileHandle(forReadingAtPath: path) else {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let why =
          !exists ? "no such file" : isDirectory.boolValue ? "is a directory, expected a file" : "cannot be read (permission?)"
        throw TrackIOError(path: path, line: 0, column: 0, message: why)
      }
      handle = h
    }
  }

  /// 1-based line and column of byte `offset` of ``bytes`` (at or after the last token start).
  mutating func location(of offset: Int) -> (line: Int, column: Int) {
    if offset >= countedOffset {
      bytes.withUnsafeBufferPointer { b in
        var i = countedOffset
        while i < offset {
          if b[i] == 0x0A {
            countedLine += 1
            lastNewline = i
          }
          i += 1
        }
      }
      countedOffset = offset
      return (countedLine, offset - lastNewline)
    }
    var line = countedLine
    var i = countedOffset - 1
    while i >= offset {
      if bytes[i] == 0x0A { line -= 1 }
      i -= 1
    }
    var newline = offset - 1
    while newline >= 0 && bytes[newline] != 0x0A { newline -= 1 }
    return (line, offset - newline)
  }

  /// An error located at byte `offset`.
  mutating func error(_ message: String, at offset: Int) -> TrackIOError {
    let (line, column) = location(of: offset)
    return TrackIOError(path: path, line: line, column: column, message: message)
  }

  /// Appends the next chunk; false at the end of input.
  private mutating func readMore() throws(TrackIOError) -> Bool {
    guard !atEnd else { return false }
    let data: Data?
    do { data = try handle.read(upToCount: Self.chunkSize) } catch {
      throw TrackIOError(path: path, line: 0, column: 0, message: "read failed: \(error.localizedDescription)")
    }
    guard let data, !data.isEmpty else {
      atEnd = true
      return false
    }
    bytes.append(contentsOf: data)
    if firstChunk {
      firstChunk = false
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    }
    return true
  }

  /// Drops the bytes before `position` once they are a large part of the buffer.
  private mutating func compact() {
    guard position >= Self.chunkSize / 2 || (position > 0 && position == bytes.count) else { return }
    _ = location(of: position)
    let shift = position
    bytes.removeSubrange(0..<shift)
    position = 0
    countedOffset -= shift
    lastNewline -= shift
  }

  /// Index of the first `byte` at or after `from`, reading more as needed; nil at the end.
  private mutating func find(_ byte: UInt8, from: Int) throws(TrackIOError) -> Int? {
    var from = from
    while true {
      let found: Int? = bytes.withUnsafeBufferPointer { b in
        var i = from
        while i < b.count {
          if b[i] == byte { return i }
          i += 1
        }
        return nil
      }
      if let found { return found }
      from = bytes.count
      guard try readMore() else { return nil }
    }
  }

  /// Index just past the first `terminator` at or after `from`; nil at the end.
  private mutating func find(_ terminator: StaticString, from: Int) throws(TrackIOError) -> Int? {
    let t = terminator.utf8Start
    let n = terminator.utf8CodeUnitCount
    var from = from
    while true {
      let found: Int? = bytes.withUnsafeBufferPointer { b in
        var i = from
        while i + n <= b.count {
          if b[i] == t[0] {
            var k = 1
            while k < n && b[i + k] == t[k] { k += 1 }
            if k == n { return i + n }
          }
          i += 1
        }
        return nil
      }
      if let found { return found }
      from = max(from, bytes.count - n + 1)
      guard try readMore() else { return nil }
    }
  }

  /// Whether `count` bytes from `offset` are (or can be made) available.
  @inline(__always)
  private mutating func has(_ count: Int, at offset: Int) throws(TrackIOError) -> Bool {
    while offset + count > bytes.count {
      guard try readMore() else { return false }
    }
    return true
  }

  /// The next token, or nil at the end of input, when `trailingText` holds the text after the
  /// last token.
  mutating func next(trailingText: inout Range<Int>) throws(TrackIOError) -> Token? {
    compact()
    guard let lt = try find(UInt8(ascii: "<"), from: position) else {
      trailingText = position..<bytes.count
      position = bytes.count
      return nil
    }
    let text = position..<lt
    guard try has(2, at: lt) else { throw error("file ends inside a tag", at: lt) }
    var token = Token(kind: .other, start: lt, text: text, name: 0..<0, attributes: 0..<0)
    switch bytes[lt + 1] {
    case UInt8(ascii: "!"):
      if try has(4, at: lt), bytes[lt + 2] == UInt8(ascii: "-"), bytes[lt + 3] == UInt8(ascii: "-") {
        guard let end = try find("-->", from: lt + 4) else { throw error("comment is not closed: expected -->", at: lt) }
        position = end
        return token
      }
      if try has(9, at: lt), bytes[(lt + 2)..<(lt + 9)].elementsEqual("[CDATA[".utf8) {
        guard let end = try find("]]>", from: lt + 9) else { throw error("CDATA section is not closed: expected ]]>", at: lt) }
        token.kind = .cdata
        token.name = (lt + 9)..<(end - 3)
        position = end
        return token
      }
      // A declaration such as <!DOCTYPE …>, with an internal subset in brackets.
      var depth = 0
      var i = lt + 2
      while true {
        guard try has(1, at: i) else { throw error("declaration is not closed: expected '>'", at: lt) }
        let b = bytes[i]
        i += 1
        if b == UInt8(ascii: "[") { depth += 1 }
        if b == UInt8(ascii: "]") { depth -= 1 }
        if b == UInt8(ascii: ">") && depth <= 0 { break }
      }
      position = i
      return token
    case UInt8(ascii: "?"):
      guard let end = try find("?>", from: lt + 2) else { throw error("processing instruction is not closed: expected ?>", at: lt) }
      position = end
      return token
    default:
      break
    }
    // A tag: its '>' is the first one outside quoted attribute values.
    var i = lt + 1
    var quote: UInt8 = 0
    while true {
      guard try has(1, at: i) else { throw error("file ends inside a tag", at: lt) }
      let b = bytes[i]
      if quote != 0 {
        if b == quote { quote = 0 }
      } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
        quote = b
      } else if b == UInt8(ascii: ">") {
        break
      } else if b == UInt8(ascii: "<") {
        throw error("'<' inside a tag: expected '>' to close it first", at: i)
      }
      i += 1
    }
    let close = i
    position = close + 1
    let isEnd = bytes[lt + 1] == UInt8(ascii: "/")
    let nameStart = lt + (isEnd ? 2 : 1)
    var nameEnd = nameStart
    while nameEnd < close, Self.isNameByte(bytes[nameEnd]) { nameEnd += 1 }
    token.name = nameStart..<nameEnd
    if isEnd {
      var j = nameEnd
      while j < close, Self.isSpace(bytes[j]) { j += 1 }
      guard j == close else { throw error("unexpected text in an end tag: expected '>'", at: j) }
      token.kind = .endTag
      return token
    }
    let selfClosing = close > nameEnd && bytes[close - 1] == UInt8(ascii: "/")
    token.kind = selfClosing ? .emptyElementTag : .startTag
    token.attributes = nameEnd..<(selfClosing ? close - 1 : close)
    return token
  }

  @inline(__always) static func isNameByte(_ b: UInt8) -> Bool {
    (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x3A
      || b == 0x2D || b == 0x2E || b >= 0x80
  }

  @inline(__always) static func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }
}
