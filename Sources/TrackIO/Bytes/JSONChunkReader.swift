import JSONBytes

/// A JSON document read in chunks, for files larger than memory (a phone's location history runs
/// to gigabytes): the caller walks it token by token and takes whole only the small values it
/// wants (one location, one segment). Memory holds the largest such value and one chunk.
///
/// Each step runs the project's ``JSONScanner`` over the bytes read so far; a step that runs into
/// their end before the document does is run again after reading more. Errors name the line and
/// column in the whole file.
struct JSONChunkReader {
  let path: String
  private let input: InputFile
  private var buffer: [UInt8] = []
  /// Where the next step starts in `buffer`.
  private var start = 0
  private var ended = false
  /// The file offset of `buffer[0]`, and the lines and the last line start before it.
  private var dropped = 0
  private var droppedLines = 0
  private var droppedLineStart = 0
  // Lines counted up to `lineCursor` in `buffer`, carried forward as the reading goes on.
  private var lineCursor = 0
  private var linesBeforeCursor = 0
  private var lineStartBeforeCursor = 0
  static let chunk = 1 << 20
  /// The most bytes the scanner looks at past where a failing token starts (`\uXXXX` and a
  /// surrogate pair's second half, a literal, a UTF-8 sequence), with room to spare.
  static let tokenLookahead = 16
  /// The most bytes held for one step (one value taken whole).
  static let largestValue = JSONParser.largestFile
  /// Bytes read at a time.
  private let chunkSize: Int
  /// While set, a refill keeps the bytes already consumed, so that the offsets of values read
  /// since it was set stay valid (a small document's root object, kept whole).
  var keepsConsumed = false

  /// The most bytes held for one step here.
  private let valueLimit: Int

  /// Opens `path` (`-`: standard input), to be read `chunk` bytes at a time, holding at most
  /// `largestValue` bytes for one value.
  init(path: String, chunk: Int = JSONChunkReader.chunk, largestValue: Int = JSONChunkReader.largestValue)
    throws(TrackIOError)
  {
    input = try InputFile(path: path)
    self.path = input.path
    chunkSize = chunk
    valueLimit = largestValue
    try refill()
    if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
  }

  /// The file's size when it was opened, for a regular file.
  var sizeAtOpen: Int? { input.sizeAtOpen }

  /// Reads another chunk, first dropping what every step so far has consumed.
  private mutating func refill() throws(TrackIOError) {
    if start > 0 && !keepsConsumed {
      advanceLines(to: start)
      droppedLines = linesBeforeCursor
      droppedLineStart = lineStartBeforeCursor
      buffer.removeFirst(start)
      dropped += start
      lineCursor -= start
      start = 0
    }
    // A value that keeps growing (a string of gigabytes, `[` followed by a disk's worth of
    // numbers kept whole) is an error, not a reason to fill the memory.
    if buffer.count - start > valueLimit {
      throw error(
        "a JSON value larger than \(InputFile.megabytes(valueLimit)) to be taken whole: expected regions or locations of ordinary size",
        at: start)
    }
    if try input.append(upTo: chunkSize, to: &buffer) == 0 { ended = true }
  }

  /// Runs `body` over the scanner from the current position and moves past what it read; when it
  /// runs into the end of the bytes read (or ends exactly there, where a number might go on),
  /// reads more and runs it again, so `body` must do nothing but read. Its errors are located in
  /// the whole file.
  mutating func step<T>(_ body: (inout JSONScanner) throws(JSONError) -> T) throws(TrackIOError) -> T {
    try attempt(body)
  }

  /// Runs `body` from the current position; when it runs into the end of the bytes read (or ends
  /// exactly there, where a number might go on), reads more and runs it again.
  private mutating func attempt<T>(_ body: (inout JSONScanner) throws(JSONError) -> T) throws(TrackIOError) -> T {
    while true {
      let from = start
      let outcome = buffer.withUnsafeBufferPointer { bytes -> (Result<T, JSONError>, Int) in
        var scanner = JSONScanner(bytes, endName: "the end of the file")
        scanner.i = from
        do throws(JSONError) {
          let value = try body(&scanner)
          return (.success(value), scanner.i)
        } catch {
          return (.failure(error), scanner.i)
        }
      }
      // A step that ran into the end of the bytes read, or failed close to it (a literal, an
      // escape or a UTF-8 sequence cut short fails where it starts, a few bytes before the end),
      // is run again with more bytes: only then is an error certain.
      var reachedEnd = outcome.1 >= buffer.count
      if case .failure(let failure) = outcome.0, max(failure.offset, outcome.1) >= buffer.count - Self.tokenLookahead {
        reachedEnd = true
      }
      if reachedEnd && !ended {
        try refill()
        continue
      }
      switch outcome.0 {
      case .success(let value):
        start = outcome.1
        return value
      case .failure(let failure):
        throw error(failure.message, at: failure.offset)
      }
    }
  }

  /// The error `message` at `offset` in `buffer`, located in the whole file.
  func error(_ message: String, at offset: Int) -> TrackIOError {
    var line = droppedLines + 1
    var lineStart = droppedLineStart
    for k in 0..<min(offset, buffer.count) where buffer[k] == UInt8(ascii: "\n") {
      line += 1
      lineStart = dropped + k + 1
    }
    return TrackIOError(path: path, line: line, column: dropped + offset - lineStart + 1, message: message)
  }

  /// Counts the lines up to `offset` in `buffer`, on from where the last count stopped (eight
  /// bytes at a time while no newline is near).
  private mutating func advanceLines(to offset: Int) {
    var k = lineCursor
    buffer.withUnsafeBytes { raw in
      #if _endian(little)
        let ones: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        while k + 8 <= offset {
          // High bit set in exactly the bytes that are '\n'.
          let x = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
          let newlines = ~(((x & ones) &+ ones) | x | ones)
          if newlines != 0 {
            linesBeforeCursor += newlines.nonzeroBitCount
            lineStartBeforeCursor = dropped + k + (63 - newlines.leadingZeroBitCount) / 8 + 1
          }
          k += 8
        }
      #endif
      while k < offset {
        if raw[k] == UInt8(ascii: "\n") {
          linesBeforeCursor += 1
          lineStartBeforeCursor = dropped + k + 1
        }
        k += 1
      }
    }
    lineCursor = max(lineCursor, offset)
  }

  /// The 1-based line of `offset` in `buffer`; offsets asked for must not go back (the count
  /// goes on from the last one).
  mutating func line(at offset: Int) -> Int {
    if offset < lineCursor { return error("", at: offset).line }
    advanceLines(to: offset)
    return linesBeforeCursor + 1
  }

  /// The line of the current position (for the fixes read from it).
  mutating func currentLine() -> Int {
    advanceLines(to: start)
    return linesBeforeCursor + 1
  }

  /// The next significant byte, not consumed; nil at the end of the file.
  mutating func peek() throws(TrackIOError) -> UInt8? {
    try attempt { (s: inout JSONScanner) throws(JSONError) -> UInt8? in
      let next = s.peek()
      // Peeking at the end must read more before saying the file ends.
      if next == nil { s.i = s.bytes.count }
      return next
    }
  }

  /// Consumes the byte ``peek()`` returned.
  mutating func consume() { start += 1 }

  /// The offset of the current position in `buffer` (valid until the next step).
  var position: Int { start }

  /// The offset of the current position in the file.
  var fileOffset: Int { dropped + start }

  mutating func expect(_ byte: UInt8, _ what: String) throws(TrackIOError) {
    try attempt { (s: inout JSONScanner) throws(JSONError) in try s.expect(byte, "$", what) }
  }

  mutating func string() throws(TrackIOError) -> String {
    try attempt { (s: inout JSONScanner) throws(JSONError) in try s.string("$") }
  }

  /// The next value, whole (offsets in `buffer`: turn them into errors before the next step).
  mutating func value() throws(TrackIOError) -> (node: JSONNode, error: (String, Int) -> TrackIOError) {
    let node = try attempt { (s: inout JSONScanner) throws(JSONError) in try JSONParser.value(&s, depth: 1) }
    let located = self
    return (node, { message, offset in located.error(message, at: offset) })
  }

  /// Skips the next value, however large.
  mutating func skipValue() throws(TrackIOError) {
    _ = try attempt { (s: inout JSONScanner) throws(JSONError) in try s.skipValue("$") }
  }

  /// After an element of an array or a member of an object: consumes `,` (true: another follows)
  /// or `close` (false); the messages are ``JSONStream``'s.
  mutating func next(_ close: UInt8, in container: String) throws(TrackIOError) -> Bool {
    try step { (s: inout JSONScanner) throws(JSONError) -> Bool in
      let closing = Character(Unicode.Scalar(close))
      guard let next = s.peek() else {
        throw s.fail("$", "found \(s.endName) inside \(container): expected ',' or '\(closing)'")
      }
      guard next == UInt8(ascii: ",") || next == close else {
        throw s.fail("$", "found \(s.found()): expected ',' or '\(closing)' in \(container)")
      }
      s.i += 1
      return next == UInt8(ascii: ",")
    }
  }

  /// Fails unless only whitespace is left.
  mutating func expectEnd() throws(TrackIOError) {
    try step { (s: inout JSONScanner) throws(JSONError) in
      s.skipSpace()
      guard s.atEnd else { throw s.fail("$", "found \(s.found()) after the JSON value: expected \(s.endName)") }
    }
  }
}
