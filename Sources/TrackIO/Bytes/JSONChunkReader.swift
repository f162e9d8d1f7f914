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

  init(path: String) throws(TrackIOError) {
    input = try InputFile(path: path)
    self.path = input.path
    try refill()
    if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
  }

  /// Reads another chunk, first dropping what every step so far has consumed.
  private mutating func refill() throws(TrackIOError) {
    if start > 0 {
      advanceLines(to: start)
      droppedLines = linesBeforeCursor
      droppedLineStart = lineStartBeforeCursor
      buffer.removeFirst(start)
      dropped += start
      lineCursor -= start
      start = 0
    }
    if try input.append(upTo: Self.chunk, to: &buffer) == 0 { ended = true }
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
      let reachedEnd = outcome.1 >= buffer.count
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

  /// Counts the lines up to `offset` in `buffer`, on from where the last count stopped.
  private mutating func advanceLines(to offset: Int) {
    var k = lineCursor
    while k < offset {
      if buffer[k] == UInt8(ascii: "\n") {
        linesBeforeCursor += 1
        lineStartBeforeCursor = dropped + k + 1
      }
      k += 1
    }
    lineCursor = max(lineCursor, offset)
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

  /// After an element or a member: `,` (true) or `close` (false).
  mutating func next(_ close: UInt8, in container: String) throws(TrackIOError) -> Bool {
    guard let next = try peek() else {
      throw error("found the end of the file inside \(container): expected ',' or '\(Character(Unicode.Scalar(close)))'", at: buffer.count)
    }
    guard next == UInt8(ascii: ",") || next == close else {
      throw error("found '\(Character(Unicode.Scalar(next)))': expected ',' or '\(Character(Unicode.Scalar(close)))' in \(container)", at: start)
    }
    consume()
    return next == UInt8(ascii: ",")
  }

  /// Fails unless only whitespace is left.
  mutating func expectEnd() throws(TrackIOError) {
    if let next = try peek() {
      throw error("found '\(Character(Unicode.Scalar(next)))' after the JSON value: expected the end of the file", at: start)
    }
  }
}
