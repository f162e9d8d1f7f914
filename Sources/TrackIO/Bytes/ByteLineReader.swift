import Foundation

/// Reads a file (or standard input) line by line as bytes, in bounded memory.
///
/// Lines end at `\n`; a `\r` before it is dropped; a UTF-8 byte-order mark at the start is skipped.
/// The reader holds one chunk (1 MiB) plus the longest line.
package struct ByteLineReader {
  package let path: String
  private let input: InputFile
  /// Bytes read from the file so far, for progress reports.
  /// Bytes of the file read so far, as stored (compressed input counts its compressed bytes).
  var bytesRead: Int { input.storedBytesRead }
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false
  /// Bytes after `start` known to hold no line end.
  private var searched = 0
  private var firstChunk = true
  /// 1-based number of the line last returned.
  package private(set) var lineNumber = 0
  /// Whether the line last returned is the input's last and has no line end: a file cut short
  /// ends this way (so does a file whose writer left out the final newline).
  private(set) var lineIsUnterminated = false
  /// Where the line last returned lies in `buffer` (kept across refills, so that a reader can
  /// look at it again), and the line returned before it, while it is still in `buffer`.
  private var lastLine = 0..<0
  private var lineBefore: Range<Int>?
  /// The bytes still to be read (a range of the file), or nil: to the end.
  private var remaining: Int?
  /// The file offset of `buffer[0]` (a byte-order mark skipped counts).
  private var bufferOffset = 0

  package static let chunkSize = 1 << 20

  /// The longest line read: a longer one is an error (a binary file, `/dev/zero`), not a reason
  /// to fill the memory.
  package static let longestLine = 64_000_000

  /// Opens `path`; `-` means standard input.
  package init(path: String) throws(TrackIOError) {
    input = try InputFile(path: path)
    self.path = input.path
  }

  /// Reads only the bytes `range` of the regular, uncompressed file `path`, as lines numbered
  /// from 1 at `range.lowerBound` (which should start a line).
  package init(path: String, range: Range<Int>) throws(TrackIOError) {
    input = try InputFile(path: path, inflating: false)
    self.path = input.path
    try input.seek(to: range.lowerBound)
    remaining = range.count
    bufferOffset = range.lowerBound
    firstChunk = range.lowerBound == 0
  }

  /// The file offset of the byte after the line last returned (and its line end).
  package var offset: Int { bufferOffset + start }

  /// The next line (without its terminator), or nil at the end of input.
  package mutating func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(TrackIOError) -> R) throws(TrackIOError) -> R? {
    var none: Void = ()
    return try nextLine(with: &none) { line, _ throws(TrackIOError) in try body(line) }
  }

  /// The next line (without its terminator) with `state` handed to `body` in place, or nil at the
  /// end of input: a reader keeps what a row changes in `state` instead of in variables the
  /// closure captures (which would be boxed, and every access checked at run time).
  package mutating func nextLine<R, State>(
    with state: inout State, _ body: (UnsafeBufferPointer<UInt8>, inout State) throws(TrackIOError) -> R
  ) throws(TrackIOError) -> R? {
    while true {
      if let newline = nextNewline() {
        var end = newline
        if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let lineStart = start
        start = newline + 1
        lineNumber += 1
        lineBefore = lastLine
        lastLine = lineStart..<end
        return try buffer.withUnsafeBufferPointer { all throws(TrackIOError) in
          try body(UnsafeBufferPointer(rebasing: all[lineStart..<end]), &state)
        }
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        var end = buffer.count
        if buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let lineStart = start
        start = buffer.count
        lineNumber += 1
        lineIsUnterminated = true
        lineBefore = lastLine
        lastLine = lineStart..<end
        return try buffer.withUnsafeBufferPointer { all throws(TrackIOError) in
          try body(UnsafeBufferPointer(rebasing: all[lineStart..<end]), &state)
        }
      }
      // The bytes after `start` have no line end: the search goes on after them.
      searched = buffer.count - start
      try refill()
    }
  }

  /// The index of the first `\n` at or after `start`, looking only at bytes not searched yet.
  private mutating func nextNewline() -> Int? {
    let from = start + searched
    let found = buffer.withUnsafeBytes { all -> Int? in
      guard from < all.count, let base = all.baseAddress,
        let hit = memchr(base + from, Int32(UInt8(ascii: "\n")), all.count - from)
      else { return nil }
      return base.distance(to: UnsafeRawPointer(hit))
    }
    if found != nil { searched = 0 }
    return found
  }

  /// The line last returned and the line before it (nil at the first line): for a check of the
  /// last line of the input against the one before, made only once, at the end.
  package func withLastTwoLines<R>(_ body: (_ last: UnsafeBufferPointer<UInt8>, _ before: UnsafeBufferPointer<UInt8>?) throws(TrackIOError) -> R) throws(TrackIOError) -> R {
    try buffer.withUnsafeBufferPointer { all throws(TrackIOError) in
      try body(UnsafeBufferPointer(rebasing: all[lastLine]), lineBefore.map { UnsafeBufferPointer(rebasing: all[$0]) })
    }
  }

  private mutating func refill() throws(TrackIOError) {
    // The line last returned stays (it is at most one line more to hold); the one before it goes.
    let keep = min(start, lastLine.lowerBound)
    if keep > 0 {
      buffer.removeSubrange(0..<keep)
      bufferOffset += keep
      start -= keep
      lastLine = (lastLine.lowerBound - keep)..<(lastLine.upperBound - keep)
    }
    lineBefore = nil
    if buffer.count - start > Self.longestLine {
      throw TrackIOError(
        path: path, line: lineNumber + 1, column: 0,
        message: "line longer than \(InputFile.megabytes(Self.longestLine)); expected a text file of lines")
    }
    let n: Int
    let wanted = min(Self.chunkSize, remaining ?? Self.chunkSize)
    do { n = wanted == 0 ? 0 : try input.append(upTo: wanted, to: &buffer) } catch {
      throw TrackIOError(path: path, line: 0, column: 0, message: "\(error.message) (after line \(lineNumber))")
    }
    if let r = remaining { remaining = r - n }
    guard n > 0 else {
      atEnd = true
      return
    }
    if firstChunk {
      firstChunk = false
      if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
        buffer.removeFirst(3)
        bufferOffset += 3
      }
    }
  }
}
