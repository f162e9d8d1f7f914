import Foundation

/// An input opened for reading (a file, a FIFO, or standard input for `-`), closed when released;
/// the one place that says why a path cannot be read.
final class InputFile {
  /// The path as the user named it, or `<stdin>`.
  let path: String
  let descriptor: Int32
  private let ownsDescriptor: Bool

  /// Opens `path` (`-`: standard input).
  /// - Throws: ``TrackIOError`` naming the path: no such file, is a directory (expected a file),
  ///   cannot be read (with the system's reason).
  init(path: String) throws(TrackIOError) {
    if path == "-" {
      self.path = "<stdin>"
      descriptor = STDIN_FILENO
      ownsDescriptor = false
      return
    }
    self.path = path
    func failure(_ message: String) -> TrackIOError { TrackIOError(path: path, line: 0, column: 0, message: message) }
    var fd: Int32
    repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
    guard fd >= 0 else {
      switch errno {
      case ENOENT: throw failure("no such file")
      case EACCES: throw failure("cannot be read: permission denied")
      default: throw failure("cannot be read: \(String(cString: strerror(errno)))")
      }
    }
    var status = stat()
    if fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
      close(fd)
      throw failure("is a directory, expected a file")
    }
    if status.st_mode & S_IFMT == S_IFREG { sizeAtOpen = Int(status.st_size) }
    descriptor = fd
    ownsDescriptor = true
  }

  /// Whether the input is a regular file (not a FIFO, a device or a terminal), which can be read
  /// twice: a format can be sniffed from its first bytes without losing them.
  var isRegularFile: Bool {
    var status = stat()
    return fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }

  deinit {
    scratch?.deallocate()
    if ownsDescriptor { close(descriptor) }
  }

  /// A regular file's size when it was opened: no read needs more than this and one byte.
  private var sizeAtOpen: Int?

  /// Bytes worth asking of one read, at most `chunk`: a small file needs a small buffer, but
  /// never below 64 KiB, so that a file that was empty when opened and grows (a live log) is not
  /// read a byte at a time.
  func readSize(_ chunk: Int) -> Int {
    min(chunk, max((sizeAtOpen ?? chunk) + 1, 1 << 16))
  }

  /// Where ``append(upTo:to:)`` reads before copying.
  private var scratch: UnsafeMutableRawPointer?
  private var scratchSize = 0

  /// Reads up to `count` bytes and appends them to `bytes`; returns how many (0 at the end).
  func append(upTo wanted: Int, to bytes: inout [UInt8]) throws(TrackIOError) -> Int {
    let count = readSize(wanted)
    if scratchSize < count {
      scratch?.deallocate()
      scratch = .allocate(byteCount: count, alignment: 16)
      scratchSize = count
    }
    guard let scratch else { return 0 }
    let n = try read(into: scratch, count: count)
    bytes.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: n))
    return n
  }

  /// Reads up to `count` bytes into `buffer`; 0 at the end.
  func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TrackIOError) -> Int {
    if !ownsDescriptor && descriptor == STDIN_FILENO {
      let given = StandardInputPushback.take(into: buffer, count: count)
      if given > 0 { return given }
    }
    var got: Int
    repeat { got = Foundation.read(descriptor, buffer, count) } while got < 0 && errno == EINTR
    guard got >= 0 else {
      throw TrackIOError(path: path, line: 0, column: 0, message: "read failed: \(String(cString: strerror(errno)))")
    }
    return got
  }

  /// Everything left in the input, refusing more than `limit` bytes.
  /// - Throws: ``TrackIOError`` past `limit`, saying what `what` is limited to.
  func readAll(limit: Int, what: String) throws(TrackIOError) -> [UInt8] {
    var bytes: [UInt8] = []
    var status = stat()
    if fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG {
      let size = Int(status.st_size)
      guard size <= limit else {
        throw TrackIOError(path: path, line: 0, column: 0, message: "is \(Self.megabytes(size)); \(what) are read whole, up to \(Self.megabytes(limit))")
      }
      bytes.reserveCapacity(size)
    }
    let chunk = 1 << 20
    while true {
      let before = bytes.count
      guard before < limit + 1 else {
        throw TrackIOError(path: path, line: 0, column: 0, message: "is more than \(Self.megabytes(limit)); \(what) are read whole, up to that much")
      }
      let n = try append(upTo: min(chunk, limit + 1 - before), to: &bytes)
      if n == 0 { return bytes }
    }
  }

  static func megabytes(_ bytes: Int) -> String {
    let mb = Double(bytes) / 1_000_000
    return mb >= 10 ? "\(Int(mb.rounded())) MB" : "\((mb * 10).rounded() / 10) MB"
  }
}

/// Bytes read from standard input to learn its format (``TrackFileReader/format(path:)``), given
/// back to whoever reads standard input next, so that sniffing loses nothing.
enum StandardInputPushback {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var bytes: [UInt8] = []

  /// Puts `head` back in front of what standard input has left.
  static func giveBack(_ head: [UInt8]) {
    lock.withLock { bytes = head + bytes }
  }

  /// Moves up to `count` given-back bytes into `buffer`; how many.
  static func take(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
    lock.withLock {
      let n = min(count, bytes.count)
      guard n > 0 else { return 0 }
      bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
      bytes.removeFirst(n)
      return n
    }
  }

  /// Standard input's first byte after a byte-order mark and spaces (nil when it ends first),
  /// read and given back.
  static func firstCharacter() -> UInt8? {
    guard let input = try? InputFile(path: "-") else { return nil }
    var head: [UInt8] = []
    var found: UInt8?
    while found == nil && head.count < 1 << 16 {
      guard let n = try? input.append(upTo: 4_096, to: &head), n > 0 else { break }
      let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
      found = head[min(bom, head.count)...].first { !MarkupScanner.isSpace($0) }
    }
    giveBack(head)
    return found
  }
}
