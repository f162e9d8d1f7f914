import Foundation

/// Reads a file (or standard input) line by line as bytes, in bounded memory.
///
/// Lines end at `\n`; a `\r` before it is dropped; a UTF-8 byte-order mark at the start is skipped.
/// The reader holds one chunk (1 MiB) plus the longest line.
struct ByteLineReader {
  let path: String
  private let handle: FileHandle
  /// Bytes read from the file so far, for progress reports.
  private(set) var bytesRead = 0
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false
  private var firstChunk = true
  /// 1-based number of the line last returned.
  private(set) var lineNumber = 0

  static let chunkSize = 1 << 20

  /// Opens `path`; `-` means standard input.
  init(path: String) throws(TrackIOError) {
    self.path = path == "-" ? "<stdin>" : path
    if path == "-" {
      handle = FileHandle.standardInput
    } else {
      guard let h = FileHandle(forReadingAtPath: path) else {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let why = !exists ? "no such file" : isDirectory.boolValue ? "is a directory, expected a file" : "cannot be read (permission?)"
        throw TrackIOError(path: path, line: 0, column: 0, message: why)
      }
      handle = h
    }
  }

  /// The next line (without its terminator), or nil at the end of input.
  mutating func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(TrackIOError) -> R) throws(TrackIOError) -> R? {
    while true {
      if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
        var end = newline
        if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let lineStart = start
        start = newline + 1
        lineNumber += 1
        return try buffer.withUnsafeBufferPointer { all throws(TrackIOError) in
          try body(UnsafeBufferPointer(rebasing: all[lineStart..<end]))
        }
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        var end = buffer.count
        if buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let lineStart = start
        start = buffer.count
        lineNumber += 1
        return try buffer.withUnsafeBufferPointer { all throws(TrackIOError) in
          try body(UnsafeBufferPointer(rebasing: all[lineStart..<end]))
        }
      }
      try refill()
    }
  }

  private mutating func refill() throws(TrackIOError) {
    if start > 0 {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    let data: Data?
    do { data = try handle.read(upToCount: Self.chunkSize) } catch {
      throw TrackIOError(path: path, line: lineNumber, column: 0, message: "read failed: \(error.localizedDescription)")
    }
    guard let data, !data.isEmpty else {
      atEnd = true
      return
    }
    buffer.append(contentsOf: data)
    bytesRead += data.count
    if firstChunk {
      firstChunk = false
      if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { buffer.removeFirst(3) }
    }
  }
}
