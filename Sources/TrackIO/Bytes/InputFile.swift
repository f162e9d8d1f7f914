import CZlib
import Foundation

/// An input opened for reading (a file, a FIFO, or standard input for `-`), closed when released;
/// the one place that says why a path cannot be read. Gzip-compressed input (it starts with the
/// gzip magic bytes, whatever its name) is inflated as it is read, by the system zlib: every
/// reader sees the uncompressed bytes.
final class InputFile {
  /// The path as the user named it, or `<stdin>`.
  let path: String
  let descriptor: Int32
  private var ownsDescriptor: Bool
  /// Bytes read from the input before it was opened here (a FIFO's head, read to learn its
  /// format), given back first.
  private var pushback: [UInt8] = []
  private var pushbackTaken = 0

  /// Opens `path` (`-`: standard input).
  /// - Throws: ``TrackIOError`` naming the path: no such file, is a directory (expected a file),
  ///   cannot be read (with the system's reason).
  /// - Parameter inflating: whether compressed input is inflated (false: its bytes as stored).
  init(path: String, inflating: Bool = true) throws(TrackIOError) {
    if path == "-" {
      self.path = "<stdin>"
      descriptor = STDIN_FILENO
      ownsDescriptor = false
      if inflating { try startInflatingIfCompressed() }
      return
    }
    self.path = path
    if let kept = SniffedInputs.take(path) {
      // A FIFO whose head was read to learn its format: the same descriptor, its head first.
      descriptor = kept.descriptor
      ownsDescriptor = true
      pushback = kept.head
      if inflating { try startInflatingIfCompressed() }
      return
    }
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
    if inflating { try startInflatingIfCompressed() }
  }

  /// Moves a regular, uncompressed file's reading to byte `offset`, counted as read.
  func seek(to offset: Int) throws(TrackIOError) {
    guard sizeAtOpen != nil, inflater == nil, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
      throw TrackIOError(path: path, line: 0, column: 0, message: "cannot be read from byte \(offset): not a regular, uncompressed file")
    }
    storedBytesRead = offset
  }

  /// Bytes of the input as stored read so far (for compressed input, fewer than the reader sees):
  /// progress against the file's size.
  private(set) var storedBytesRead = 0

  /// The gzip stream being inflated, when the input is compressed.
  private var inflater: Inflater?

  /// Whether the input is gzip-compressed (and read inflated).
  var isCompressed: Bool { inflater != nil }

  /// Looks at the first two bytes (a regular file: without consuming them; standard input: given
  /// back) and starts inflating when they are gzip's magic bytes.
  private func startInflatingIfCompressed() throws(TrackIOError) {
    var head = [UInt8](repeating: 0, count: 2)
    let got: Int
    if sizeAtOpen != nil {
      got = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 2, 0) }
    } else if !ownsDescriptor && descriptor == STDIN_FILENO {
      let scratch = UnsafeMutableRawPointer.allocate(byteCount: 2, alignment: 1)
      defer { scratch.deallocate() }
      var taken = 0
      while taken < 2 {
        let n = try rawRead(into: scratch + taken, count: 2 - taken)
        guard n > 0 else { break }
        taken += n
      }
      for k in 0..<taken { head[k] = scratch.load(fromByteOffset: k, as: UInt8.self) }
      StandardInputPushback.giveBack(Array(head.prefix(taken)))
      got = taken
    } else if pushback.count >= 2 {
      head = Array(pushback.prefix(2))
      got = 2
    } else {
      return  // a FIFO or a device not looked at before: its bytes cannot be looked at twice
    }
    guard got == 2, head[0] == 0x1F, head[1] == 0x8B else { return }
    inflater = try Inflater(path: path)
    sizeAtOpen = nil
  }

  /// Whether `path` names a regular file, looked at without opening it (opening a FIFO to look
  /// would take a reader's place).
  static func isRegularFile(path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }

  /// The size of the regular file `path`, or nil.
  static func size(path: String) -> Int? {
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(status.st_size)
  }

  /// Leaves the descriptor open for the next ``InputFile`` on the same path, which reads `head`
  /// (every byte read here, as stored, the given-back ones included) first.
  func keep(head: [UInt8]) {
    guard ownsDescriptor else { return }
    ownsDescriptor = false
    SniffedInputs.keep(path, descriptor: descriptor, head: head)
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
  private(set) var sizeAtOpen: Int?

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

  /// Reads up to `count` bytes into `buffer` (inflated, for compressed input); 0 at the end.
  func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TrackIOError) -> Int {
    guard let inflater else { return try rawRead(into: buffer, count: count) }
    return try inflater.inflate(into: buffer, count: count) { (b, n) throws(TrackIOError) in try rawRead(into: b, count: n) }
  }

  /// Reads up to `count` bytes of the input as stored; 0 at the end.
  private func rawRead(into buffer: UnsafeMutableRawPointer, count: Int) throws(TrackIOError) -> Int {
    let n = try storedRead(into: buffer, count: count)
    storedBytesRead += n
    return n
  }

  private func storedRead(into buffer: UnsafeMutableRawPointer, count: Int) throws(TrackIOError) -> Int {
    if pushbackTaken < pushback.count {
      let n = min(count, pushback.count - pushbackTaken)
      pushback.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + pushbackTaken, byteCount: n) }
      pushbackTaken += n
      return n
    }
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

/// Inputs that can be read only once (a FIFO, such as a shell's `<(…)`, or a device) whose head
/// was read to learn their format: the descriptor is kept open with the bytes read, and the next
/// ``InputFile`` opened on the same path takes both, so that sniffing loses nothing.
enum SniffedInputs {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var inputs: [String: (descriptor: Int32, head: [UInt8])] = [:]

  /// The head (at most 4 KB; inflated when compressed) of the input at `path`, which is not a
  /// regular file: read, and kept for the next opening of `path`.
  static func head(_ path: String) -> [UInt8] {
    guard let input = try? InputFile(path: path, inflating: false) else { return [] }
    let (raw, head) = StandardInputPushback.sniff(input)
    input.keep(head: raw)
    return head
  }

  static func keep(_ path: String, descriptor: Int32, head: [UInt8]) {
    lock.withLock {
      if let old = inputs.updateValue((descriptor, head), forKey: path), old.descriptor != descriptor { close(old.descriptor) }
    }
  }

  static func take(_ path: String) -> (descriptor: Int32, head: [UInt8])? {
    lock.withLock { inputs.removeValue(forKey: path) }
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
  static func firstCharacter() -> UInt8? { firstNonSpace(head()) }

  /// Standard input's first 4 KB (inflated, when compressed), read and given back as stored.
  static func head() -> [UInt8] {
    // The bytes as stored are given back; a compressed head is inflated on the side to look at.
    guard let input = try? InputFile(path: "-", inflating: false) else { return [] }
    let (raw, head) = sniff(input)
    giveBack(raw)
    return head
  }

  /// Reads `input` until its format can be told (``decided(_:)``), 4 KB of it is seen or 64 KB
  /// of compressed bytes are read: the bytes as stored (`raw`, for whoever reads next) and at
  /// most 4 KB of what they hold (`head`, inflated when they are gzip).
  static func sniff(_ input: InputFile) -> (raw: [UInt8], head: [UInt8]) {
    var raw: [UInt8] = []
    var head: [UInt8] = []
    while head.count < 4_096 && raw.count < 1 << 16 && !decided(head) {
      guard let n = try? input.append(upTo: 4_096, to: &raw), n > 0 else { break }
      head = raw.starts(with: [0x1F, 0x8B]) ? inflatedHead(raw) : raw
    }
    return (raw, Array(head.prefix(4_096)))
  }

  /// Whether `head` is enough to tell the format, so that a slow stream (a live feed of JSON
  /// Lines) is not waited on for more: a first character other than `{`, or a first line with
  /// a member in it.
  static func decided(_ head: [UInt8]) -> Bool {
    guard let first = firstNonSpace(head) else { return false }
    guard first == UInt8(ascii: "{"), let start = head.firstIndex(of: first) else { return true }
    guard let end = head[start...].firstIndex(of: UInt8(ascii: "\n")) else { return false }
    return head[start..<end].contains(UInt8(ascii: "\""))
  }

  /// The first byte after a byte-order mark and spaces.
  static func firstNonSpace(_ bytes: [UInt8]) -> UInt8? {
    let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    return bytes[min(bom, bytes.count)...].first { !MarkupScanner.isSpace($0) }
  }

  /// What the start of a gzip stream inflates to, as far as `compressed` goes.
  static func inflatedHead(_ compressed: [UInt8]) -> [UInt8] {
    guard let inflater = try? Inflater(path: "<stdin>") else { return [] }
    var offset = 0
    let out = UnsafeMutableRawPointer.allocate(byteCount: 4_096, alignment: 1)
    defer { out.deallocate() }
    let produced = (try? inflater.inflate(into: out, count: 4_096) { (buffer, count) throws(TrackIOError) -> Int in
      let n = min(count, compressed.count - offset)
      compressed.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
      offset += n
      return n
    }) ?? 0
    return Array(UnsafeRawBufferPointer(start: out, count: produced))
  }
}

/// A gzip stream (one or more members, RFC 1952) inflated by the system zlib.
final class Inflater {
  private let path: String
  private let stream: UnsafeMutablePointer<z_stream>
  private let input: UnsafeMutablePointer<UInt8>
  private static let inputSize = 1 << 16
  private var inputEnded = false
  /// Whether the last member ended with its end marker (and nothing has followed it yet).
  private var memberEnded = false

  init(path: String) throws(TrackIOError) {
    self.path = path
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    input = .allocate(capacity: Self.inputSize)
    // 15 + 16: a 32 KiB window, gzip header and trailer (checked: length and CRC-32).
    guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw TrackIOError(path: path, line: 0, column: 0, message: "cannot start inflating: zlib could not be initialised")
    }
  }

  deinit {
    inflateEnd(stream)
    stream.deallocate()
    input.deallocate()
  }

  /// Inflates up to `count` bytes into `buffer`, reading the compressed input with `read`; 0 at
  /// the end of the last member.
  func inflate(
    into buffer: UnsafeMutableRawPointer, count: Int, read: (UnsafeMutableRawPointer, Int) throws(TrackIOError) -> Int
  ) throws(TrackIOError) -> Int {
    guard count > 0 else { return 0 }
    while true {
      if stream.pointee.avail_in == 0 && !inputEnded {
        let n = try read(input, Self.inputSize)
        if n == 0 {
          inputEnded = true
        } else {
          stream.pointee.next_in = input
          stream.pointee.avail_in = UInt32(n)
        }
      }
      if stream.pointee.avail_in == 0 && inputEnded {
        guard memberEnded else {
          throw TrackIOError(
            path: path, line: 0, column: 0,
            message: "the gzip-compressed data is cut short after \(stream.pointee.total_in) bytes: it ends before its end marker")
        }
        return 0
      }
      if memberEnded {
        // More bytes after a member: another member (as `cat a.gz b.gz` makes).
        guard inflateReset(stream) == Z_OK else { throw failure("cannot inflate the next gzip member") }
        memberEnded = false
      }
      stream.pointee.next_out = buffer.assumingMemoryBound(to: UInt8.self)
      stream.pointee.avail_out = UInt32(min(count, Int(UInt32.max)))
      let status = CZlib.inflate(stream, Z_NO_FLUSH)
      let produced = count - Int(stream.pointee.avail_out)
      switch status {
      case Z_OK, Z_BUF_ERROR: break
      case Z_STREAM_END: memberEnded = true
      default: throw failure("the gzip-compressed data is damaged near byte \(stream.pointee.total_in)")
      }
      if produced > 0 { return produced }
    }
  }

  private func failure(_ message: String) -> TrackIOError {
    let detail = stream.pointee.msg.map { String(cString: $0) }
    return TrackIOError(path: path, line: 0, column: 0, message: message + (detail.map { " (zlib: \($0))" } ?? ""))
  }
}
