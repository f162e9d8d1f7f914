import Foundation

/// Where an output path leads and how to write there without destroying anything the user did not
/// ask to replace.
///
/// - A path that does not exist, or names a regular file the user asked to replace: the bytes go
///   to a temporary file beside it (`NAME.geowake-PID-N.partial`), which ``commit()`` moves into
///   place in one step. A file that did not exist is never replaced by the commit, even if one
///   appeared meanwhile; a replaced file keeps its permission bits.
/// - A symbolic link: the same, for the file it leads to; the link stays a link.
/// - A character device or FIFO (`/dev/null`, `/dev/stdout`, a named pipe): written straight to,
///   with or without `--force`, since nothing is replaced.
/// - A directory or a block device: refused.
///
/// Every temporary file is listed until it is committed or removed, so that
/// ``removeUnfinishedFiles()`` (called on SIGINT or SIGTERM) leaves none behind.
final class OutputFile {
  /// The path as the user gave it.
  let path: String
  /// The file descriptor written to.
  private(set) var descriptor: Int32
  /// The file that ``commit()`` puts in place, when writing through a temporary one.
  private let finalPath: String?
  /// The temporary file, until it is committed or removed.
  private var partialPath: String?
  /// Whether the commit may replace an existing file.
  private let replaces: Bool

  /// Opens `path` for writing; `overwrite` allows replacing an existing regular file.
  init(path: String, overwrite: Bool) throws(TrackIOError) {
    self.path = path
    func failure(_ message: String) -> TrackIOError { TrackIOError(path: path, line: 0, column: 0, message: message) }
    guard !path.isEmpty else { throw failure("cannot be created: the output path is empty") }
    let target: String
    do { target = try Self.resolvingLinks(path) } catch { throw failure("cannot be created: \(error.reason)") }
    var status = stat()
    if stat(target, &status) == 0 {
      let kind = status.st_mode & S_IFMT
      switch kind {
      case S_IFCHR, S_IFIFO, S_IFSOCK:
        let fd = open(target, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot be opened for writing: \(Self.describe(errno))") }
        descriptor = fd
        finalPath = nil
        partialPath = nil
        replaces = false
        return
      case S_IFDIR:
        throw failure("cannot be created: it is a directory")
      case S_IFBLK:
        throw failure("cannot be created: it is a block device; refusing to write to it")
      case S_IFREG:
        guard overwrite else {
          let named = target == path ? "" : " (a link to \(target))"
          throw failure("already exists\(named); refusing to overwrite it (use --force)")
        }
      default:
        throw failure("cannot be created: it is neither a regular file, a device nor a FIFO")
      }
    } else if errno != ENOENT {
      throw failure("cannot be created: \(Self.describe(errno))")
    }
    let exists = status.st_mode & S_IFMT == S_IFREG
    let mode = exists ? status.st_mode & 0o7777 : 0o666
    let (fd, partial) = try Self.createPartial(beside: target, mode: mode, path: path)
    if exists { _ = fchmod(fd, mode) }
    descriptor = fd
    finalPath = target
    partialPath = partial
    replaces = exists
  }

  deinit {
    if let partialPath { Self.discard(partialPath) }
    if descriptor >= 0 { close(descriptor) }
  }

  /// Writes all of `bytes` to `descriptor`, going on after interruptions and short writes.
  static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(TrackIOError) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let n = Foundation.write(descriptor, base + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        throw TrackIOError(path: path, line: 0, column: 0, message: "write failed: \(describe(errno))")
      }
      offset += n
    }
  }

  /// Closes the file and, when writing through a temporary file, puts it in place.
  func commit() throws(TrackIOError) {
    func failure(_ message: String) -> TrackIOError { TrackIOError(path: path, line: 0, column: 0, message: message) }
    let fd = descriptor
    descriptor = -1
    guard close(fd) == 0 || errno == EINTR else {
      let reason = Self.describe(errno)
      if let partialPath { Self.discard(partialPath) }
      partialPath = nil
      throw failure("write failed: \(reason)")
    }
    guard let partial = partialPath, let finalPath else { return }
    Self.registry.lock()
    defer { Self.registry.unlock() }
    // A signal may have removed it already; then the run is ending anyway.
    guard Self.unfinished.remove(partial) != nil else { throw failure("write failed: interrupted") }
    partialPath = nil
    if !replaces {
      // link(2) never replaces: a file that appeared since the start is kept.
      if link(partial, finalPath) == 0 {
        unlink(partial)
        return
      }
      let reason = errno
      if reason == EEXIST {
        unlink(partial)
        throw failure("already exists (it appeared during the run); refusing to overwrite it (use --force)")
      }
      // File systems without hard links: a rename, after checking again that nothing is there.
      var status = stat()
      if lstat(finalPath, &status) == 0 {
        unlink(partial)
        throw failure("already exists (it appeared during the run); refusing to overwrite it (use --force)")
      }
    }
    guard rename(partial, finalPath) == 0 else {
      let reason = Self.describe(errno)
      unlink(partial)
      throw failure("cannot be created: \(reason)")
    }
  }

  // MARK: - Temporary files

  private static let registry = NSLock()
  nonisolated(unsafe) private static var unfinished: Set<String> = []

  /// Removes every temporary output file not yet committed. Safe to call from any thread, for
  /// instance from a signal handler's queue just before the process exits.
  /// Makes the folder `path` (its parent must exist); nothing to do when it is one already. Any
  /// other file there is an error: it is never replaced.
  static func makeFolder(_ path: String) throws(TrackIOError) {
    func failure(_ message: String) -> TrackIOError { TrackIOError(path: path, line: 0, column: 0, message: message) }
    var status = stat()
    if stat(path, &status) == 0 {
      guard status.st_mode & S_IFMT == S_IFDIR else { throw failure("cannot be created: exists and is not a folder") }
      return
    }
    guard mkdir(path, 0o777) == 0 else { throw failure("cannot be created: \(describe(errno))") }
  }

  static func removeUnfinishedFiles() {
    registry.lock()
    defer { registry.unlock() }
    for path in unfinished { unlink(path) }
    unfinished.removeAll()
  }

  private static func createPartial(beside target: String, mode: mode_t, path: String) throws(TrackIOError) -> (Int32, String) {
    registry.lock()
    defer { registry.unlock() }
    var attempt = 0
    while true {
      let partial = "\(target).geowake-\(getpid())-\(attempt).partial"
      let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
      if fd >= 0 {
        unfinished.insert(partial)
        return (fd, partial)
      }
      let reason = errno
      if reason == EEXIST && attempt < 1000 {
        attempt += 1
        continue
      }
      throw TrackIOError(path: path, line: 0, column: 0, message: "cannot be created: \(describe(reason))")
    }
  }

  private static func discard(_ partial: String) {
    registry.lock()
    defer { registry.unlock() }
    if unfinished.remove(partial) != nil { unlink(partial) }
  }

  // MARK: - Paths

  struct LinkError: Error {
    var reason: String
  }

  /// Follows symbolic links from `path` to the path of what they finally name (which may not
  /// exist yet: a dangling link's target is created).
  static func resolvingLinks(_ path: String) throws(LinkError) -> String {
    var current = path
    for _ in 0..<40 {
      var status = stat()
      guard lstat(current, &status) == 0 else {
        if errno == ENOENT { return current }
        throw LinkError(reason: describe(errno))
      }
      guard status.st_mode & S_IFMT == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = readlink(current, &buffer, buffer.count - 1)
      guard n >= 0 else { throw LinkError(reason: describe(errno)) }
      let destination = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if destination.hasPrefix("/") {
        current = destination
      } else if let slash = current.lastIndex(of: "/") {
        current = String(current[...slash]) + destination
      } else {
        current = destination
      }
    }
    throw LinkError(reason: "too many levels of symbolic links")
  }

  static func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
  }
}
