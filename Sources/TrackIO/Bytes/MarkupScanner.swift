import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A streaming tokenizer for XML markup, a whole tag at a time, over a file read in chunks.
///
/// ``next(trailingText:)`` returns the next piece of markup — start tag, empty-element tag, end
/// tag, CDATA section, or something to skip (comment, processing instruction, declaration) — with
/// the byte ranges of its parts and of the text before it, all valid in ``bytes`` until the
/// following call. Nothing is copied or allocated per token: the file is read with `read(2)`
/// straight into one buffer (1 MiB chunks, about 10 MiB in all), ranges point into it, and the
/// unread tail is moved to the front only between tokens, so offsets never move while a token is
/// scanned.
/// Searches use `memchr`. Lines and columns are computed only when asked for, by counting
/// newlines from the last place counted.
///
/// **Lenient mode** (``isLenient``): instead of throwing, markup it cannot tokenize is recovered
/// from and each recovery is appended to ``recoveries`` (the error, with what was done): input
/// that ends inside a tag, comment, CDATA section, declaration or processing instruction ends the
/// input there; a tag with a '<' inside it is skipped up to that '<'; text after the name in an
/// end tag is ignored.
/// - Important: Not `Sendable`; owned by one reader.
package final class MarkupScanner {
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
  private let input: InputFile
  private var storage: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Bytes asked of each read: a chunk, or less for a small file.
  private let readSize: Int
  /// Bytes read from the file so far (after a byte-order mark), for progress reports.
  /// Bytes of the file read so far, as stored (compressed input counts its compressed bytes).
  var bytesRead: Int { input.storedBytesRead }
  private var count = 0
  private var position = 0
  /// The offset in the file as stored of ``bytes``' first byte (a regular, uncompressed file).
  private var bufferFileOffset = 0
  private var atEnd = false
  private var firstChunk = true
  // Newlines counted up to `countedOffset`: the line there and the offset of the last newline.
  private var countedOffset = 0
  private var countedLine = 1
  private var lastNewline = -1

  static let chunkSize = 1 << 20

  /// A place remembered for a later error message, located only if it is needed.
  enum Pin {
    case none
    /// An offset in ``bytes``.
    case offset(Int)
    /// Its location, computed when the bytes it was in were dropped.
    case location((line: Int, column: Int))
  }

  /// A place the reader may need to report (the start of a value); cheaper than locating every
  /// one up front, since most are never reported.
  var pin = Pin.none

  /// The line and column of ``pin`` (1, 1 when none is set).
  func pinnedLocation() -> (line: Int, column: Int) {
    switch pin {
    case .none: return (1, 1)
    case .offset(let offset): return location(of: offset)
    case .location(let location): return location
    }
  }

  /// Whether damaged markup is recovered from instead of thrown (see the type's documentation).
  var isLenient = false
  /// Recoveries made in lenient mode, each an error with what was done; the reader takes them.
  var recoveries: [TrackIOError] = []

  /// In lenient mode records `problem` and what was done about it; otherwise throws it.
  private func recover(_ problem: TrackIOError, _ done: String) throws(TrackIOError) {
    guard isLenient else { throw problem }
    recoveries.append(TrackIOError(path: problem.path, line: problem.line, column: problem.column, message: problem.message + "; recovered: " + done))
  }

  /// Ends the input at `offset` after a recovery. Stopped at ``limit``, it leaves the token
  /// unread instead (``straddlesLimit``): the input has not ended.
  private func endInput(_ problem: TrackIOError) throws(TrackIOError) -> Token? {
    if isStoppedAtLimit {
      straddlesLimit = true
      return nil
    }
    try recover(problem, "ignored the rest of the file")
    position = count
    atEnd = true
    return nil
  }

  /// Opens `path`; with `offset`, a regular file read from that byte on (no byte-order mark
  /// looked for there), its lines and columns counted from there.
  init(path: String, from offset: Int = 0) throws(TrackIOError) {
    input = try InputFile(path: path)
    if offset > 0 {
      try input.seek(to: offset)
      firstChunk = false
      bufferFileOffset = offset
    }
    self.path = input.path
    readSize = input.readSize(Self.chunkSize)
    // A file of a chunk or more gets at once the room it grows to (the bytes before the current
    // position are dropped past two chunks, and a read appends at most one): no bytes are copied
    // to a bigger buffer, and the buffer is not made again by whichever thread reads the file (a
    // reader on a thread of its own would take it from that thread's own memory arena).
    capacity = readSize < Self.chunkSize ? 2 * readSize : 4 * Self.chunkSize
    storage = .allocate(capacity: capacity)
  }

  deinit {
    storage.deallocate()
  }

  /// The bytes read so far and not yet dropped; token ranges index into it.
  var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

  /// 1-based line and column of byte `offset` of ``bytes``.
  func location(of offset: Int) -> (line: Int, column: Int) {
    if offset >= countedOffset {
      // Newlines counted eight bytes at a time while they come often (pretty-printed files have
      // a line every 20–40 bytes, too short for a memchr call per line to pay); after 32 bytes
      // without one, memchr jumps to the next (a point per line, or long text).
      var i = countedOffset
      #if _endian(little)
        let ones: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        while i + 32 <= offset {
          var sawNewline = false
          for _ in 0..<4 {
            // High bit set in exactly the bytes that are '\n' (no false positives: each byte's
            // test stays in its byte).
            let x = UnsafeRawPointer(storage + i).loadUnaligned(as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
            let newlines = ~(((x & ones) &+ ones) | x | ones)
            if newlines != 0 {
              countedLine += newlines.nonzeroBitCount
              lastNewline = i + (63 - newlines.leadingZeroBitCount) / 8
              sawNewline = true
            }
            i += 8
          }
          if sawNewline { continue }
          guard let hit = memchr(storage + i, 0x0A, offset - i) else {
            i = offset
            break
          }
          let newline = storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
          countedLine += 1
          lastNewline = newline
          i = newline + 1
        }
      #endif
      while i < offset {
        if storage[i] == 0x0A {
          countedLine += 1
          lastNewline = i
        }
        i += 1
      }
      countedOffset = offset
      return (countedLine, offset - lastNewline)
    }
    var line = countedLine
    var i = countedOffset - 1
    while i >= offset {
      if storage[i] == 0x0A { line -= 1 }
      i -= 1
    }
    var newline = offset - 1
    while newline >= 0 && storage[newline] != 0x0A { newline -= 1 }
    return (line, offset - newline)
  }

  /// An error located at byte `offset`.
  func error(_ message: String, at offset: Int) -> TrackIOError {
    let (line, column) = location(of: offset)
    return TrackIOError(path: path, line: line, column: column, message: message)
  }

  /// The file's size, when it is a regular file read as stored (not compressed, not a pipe).
  var regularFileSize: Int? { input.isCompressed ? nil : input.sizeAtOpen }

  /// Where reading stops for now: an offset in the file as stored (a regular, uncompressed file),
  /// or nil to read to the end. Reaching it, the scanner reports the end of its tokens
  /// (``isStoppedAtLimit``) without any end-of-file error, and leaves a token that runs past it
  /// unread (``straddlesLimit``); ``readPastLimit()`` goes on from there.
  private(set) var limit: Int?
  /// Whether reading stopped at ``limit``.
  private(set) var isStoppedAtLimit = false
  /// Whether a token runs past ``limit``: the bytes before it do not end between tokens.
  private(set) var straddlesLimit = false

  /// The offset in the file as stored of the first byte not yet consumed (a regular,
  /// uncompressed file).
  var unreadFileOffset: Int { bufferFileOffset + position }

  /// Stops reading at file offset `offset` (see ``limit``), at or past ``unreadFileOffset``: bytes
  /// already read past it are dropped, and read again after ``readPastLimit()``.
  func stop(at offset: Int) throws(TrackIOError) {
    precondition(offset >= unreadFileOffset && regularFileSize != nil)
    if offset < bufferFileOffset + count {
      try input.seek(to: offset)
      count = offset - bufferFileOffset
      atEnd = false
    }
    limit = offset
  }

  /// Lifts ``limit``: the next token is read as if it had never been set.
  func readPastLimit() {
    limit = nil
    if isStoppedAtLimit { atEnd = false }
    isStoppedAtLimit = false
    straddlesLimit = false
  }

  /// Appends the next chunk (growing the buffer if needed; offsets stay valid); false at the end.
  private func readMore() throws(TrackIOError) -> Bool {
    guard !atEnd else { return false }
    var wanted = readSize
    if let limit {
      wanted = min(wanted, limit - input.storedBytesRead)
      guard wanted > 0 else {
        isStoppedAtLimit = true
        atEnd = true
        return false
      }
    }
    if count + readSize > capacity {
      let newCapacity = max(2 * capacity, count + readSize)
      let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
      bigger.update(from: storage, count: count)
      storage.deallocate()
      storage = bigger
      capacity = newCapacity
    }
    var got = try input.read(into: storage + count, count: wanted)
    guard got > 0 else {
      atEnd = true
      return false
    }
    if firstChunk && count == 0 && got >= 3 && storage[0] == 0xEF && storage[1] == 0xBB && storage[2] == 0xBF {
      storage.update(from: storage + 3, count: got - 3)
      got -= 3
      bufferFileOffset = 3
    }
    firstChunk = false
    count += got
    return true
  }

  /// Whether the next call to ``next(trailingText:)`` drops the bytes before the current
  /// position (offsets into ``bytes`` from before it stop being valid).
  var willCompact: Bool { position >= 2 * Self.chunkSize }

  /// Offset in ``bytes`` of the first byte not yet consumed.
  var unreadOffset: Int { position }

  /// Reads ahead until at least `needed` unread bytes are in ``bytes`` or the input has ended
  /// (offsets stay valid).
  func prefetch(_ needed: Int) throws(TrackIOError) {
    while count - position < needed {
      guard try readMore() else { return }
    }
  }

  /// Marks the bytes before `offset` (at or after ``unreadOffset``, within ``bytes``) consumed, for a
  /// caller that has parsed them itself.
  func consume(upTo offset: Int) {
    assert(offset >= position && offset <= count)
    position = offset
  }

  /// Moves the unread bytes to the front once two chunks have been consumed (between tokens only,
  /// so that token offsets never move): the tail moved is what is left of the last chunk read, at
  /// most a chunk; so the buffer usually stays within four chunks. ``next(trailingText:)`` calls it; a caller consuming bytes itself calls it too.
  func compact() {
    guard willCompact else { return }
    if case .offset(let offset) = pin { pin = .location(location(of: offset)) }
    _ = location(of: position)
    let shift = position
    storage.update(from: storage + shift, count: count - shift)
    count -= shift
    position = 0
    bufferFileOffset += shift
    countedOffset -= shift
    lastNewline -= shift
  }

  /// Index of the first `byte` at or after `from`, reading more as needed; nil at the end.
  private func find(_ byte: UInt8, from: Int) throws(TrackIOError) -> Int? {
    var from = from
    while true {
      if from < count, let hit = memchr(storage + from, Int32(byte), count - from) {
        return storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
      }
      from = count
      guard try readMore() else { return nil }
    }
  }

  /// Index just past the first `terminator` at or after `from`; nil at the end.
  private func find(_ terminator: StaticString, from: Int) throws(TrackIOError) -> Int? {
    let t = terminator.utf8Start
    let n = terminator.utf8CodeUnitCount
    var from = from
    while let hit = try find(t[0], from: from) {
      guard try has(n, at: hit) else { return nil }
      var k = 1
      while k < n && storage[hit + k] == t[k] { k += 1 }
      if k == n { return hit + n }
      from = hit + 1
    }
    return nil
  }

  /// Whether `needed` bytes from `offset` are (or can be made) available.
  @inline(__always)
  private func has(_ needed: Int, at offset: Int) throws(TrackIOError) -> Bool {
    while offset + needed > count {
      guard try readMore() else { return false }
    }
    return true
  }

  /// The next token, or nil at the end of input, when `trailingText` holds the text after the
  /// last token.
  func next(trailingText: inout Range<Int>) throws(TrackIOError) -> Token? {
    compact()
    guard let lt = try find(UInt8(ascii: "<"), from: position) else {
      trailingText = position..<count
      position = count
      return nil
    }
    guard try has(2, at: lt) else { return try endInput(error("file ends inside a tag", at: lt)) }
    var token = Token(kind: .other, start: lt, text: position..<lt, name: 0..<0, attributes: 0..<0)
    switch storage[lt + 1] {
    case UInt8(ascii: "!"):
      if try has(4, at: lt), storage[lt + 2] == UInt8(ascii: "-"), storage[lt + 3] == UInt8(ascii: "-") {
        guard let end = try find("-->", from: lt + 4) else { return try endInput(error("comment is not closed: expected -->", at: lt)) }
        position = end
        return token
      }
      if try has(9, at: lt), UnsafeBufferPointer(start: storage + lt + 2, count: 7).elementsEqual("[CDATA[".utf8) {
        guard let end = try find("]]>", from: lt + 9) else {
          return try endInput(error("CDATA section is not closed: expected ]]>", at: lt))
        }
        token.kind = .cdata
        token.name = (lt + 9)..<(end - 3)
        position = end
        return token
      }
      // A declaration such as <!DOCTYPE …>, with an internal subset in brackets.
      var depth = 0
      var i = lt + 2
      while true {
        guard try has(1, at: i) else { return try endInput(error("declaration is not closed: expected '>'", at: lt)) }
        let b = storage[i]
        i += 1
        if b == UInt8(ascii: "[") { depth += 1 }
        if b == UInt8(ascii: "]") { depth -= 1 }
        if b == UInt8(ascii: ">") && depth <= 0 { break }
      }
      position = i
      return token
    case UInt8(ascii: "?"):
      guard let end = try find("?>", from: lt + 2) else {
        return try endInput(error("processing instruction is not closed: expected ?>", at: lt))
      }
      position = end
      return token
    default:
      break
    }
    // A tag: its '>' is the first one outside quotes. One pass: ordinary bytes are told from the
    // four that matter ('"', '\'', '<', '>', all below 64) with a bit mask; a quoted value is
    // skipped with memchr.
    let specials: UInt64 = (1 << 0x22) | (1 << 0x27) | (1 << 0x3C) | (1 << 0x3E)
    var i = lt + 1
    var close = 0
    scan: while true {
      if i >= count {
        guard try readMore() else { return try endInput(error("file ends inside a tag", at: lt)) }
        continue
      }
      let b = storage[i]
      if b < 64 && (specials >> UInt64(b)) & 1 != 0 {
        switch b {
        case UInt8(ascii: ">"):
          close = i
          break scan
        case UInt8(ascii: "<"):
          try recover(error("'<' inside a tag: expected '>' to close it first", at: i), "skipped the unclosed tag")
          position = i
          return token
        default:
          guard let end = try find(b, from: i + 1) else { return try endInput(error("file ends inside a tag", at: lt)) }
          i = end
        }
      }
      i += 1
    }
    position = close + 1
    let isEnd = storage[lt + 1] == UInt8(ascii: "/")
    let nameStart = lt + (isEnd ? 2 : 1)
    var nameEnd = nameStart
    while nameEnd < close, Self.isNameByte(storage[nameEnd]) { nameEnd += 1 }
    token.name = nameStart..<nameEnd
    if isEnd {
      var j = nameEnd
      while j < close, Self.isSpace(storage[j]) { j += 1 }
      if j != close { try recover(error("unexpected text in an end tag: expected '>'", at: j), "ignored the text") }
      token.kind = .endTag
      return token
    }
    let selfClosing = close > nameEnd && storage[close - 1] == UInt8(ascii: "/")
    token.kind = selfClosing ? .emptyElementTag : .startTag
    token.attributes = nameEnd..<(selfClosing ? close - 1 : close)
    return token
  }

  @inline(__always) static func isNameByte(_ b: UInt8) -> Bool {
    (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x3A
      || b == 0x2D || b == 0x2E || b >= 0x80
  }

  @inline(__always) package static func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }
}
