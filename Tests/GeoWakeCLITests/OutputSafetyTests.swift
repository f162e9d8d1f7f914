import Dispatch
import Foundation
import Testing
import _GeoWakeTestSupport

/// `-o PATH` never destroys what the user did not ask to replace: devices and FIFOs are written to,
/// links keep being links, directories are refused, and an interrupted run leaves nothing behind.
@Suite("Output safety")
struct OutputSafetyTests {
  static let small = ["generate", "track", "--count", "300", "--seed", "4", "--format", "csv"]

  static func kind(_ path: String) -> String? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return "file"
    case S_IFLNK: return "link"
    case S_IFCHR: return "character device"
    case S_IFIFO: return "fifo"
    case S_IFDIR: return "directory"
    default: return "other"
    }
  }

  @Test func devicesAreWrittenToNeverReplaced() throws {
    let null = try CommandRunner.run(Self.small + ["-o", "/dev/null"])
    #expect(null.status == 0, "\(null.stderr)")
    #expect(null.stderr == "")
    #expect(Self.kind("/dev/null") == "character device")
    let forced = try CommandRunner.run(Self.small + ["-o", "/dev/null", "--force"])
    #expect(forced.status == 0)
    #expect(Self.kind("/dev/null") == "character device")
    if Self.kind("/dev/full") == "character device" {
      let full = try CommandRunner.run(Self.small + ["-o", "/dev/full", "--force"])
      #expect(full.status == 74)
      #expect(full.stderr.hasPrefix("/dev/full: error: write failed: "))
      #expect(Self.kind("/dev/full") == "character device")
    }
  }

  @Test func aFIFOGetsTheBytesAndStaysAFIFO() throws {
    let folder = try TemporaryFolder()
    let fifo = folder.path("pipe")
    #expect(mkfifo(fifo, 0o600) == 0)
    let received = ReceivedBytes()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      // Opening for reading waits for the writer; reading ends when it closes.
      let bytes = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
      received.set(bytes)
      done.signal()
    }
    let result = try CommandRunner.run(Self.small + ["-o", fifo])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(String(decoding: received.get(), as: UTF8.self) == (try CommandRunner.run(Self.small)).stdout)
    #expect(Self.kind(fifo) == "fifo")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["pipe"])
  }

  @Test func aLinkKeepsBeingALinkToTheNewFile() throws {
    let folder = try TemporaryFolder()
    let target = try folder.file("real.csv", containing: "kept\n")
    #expect(chmod(target, 0o640) == 0)
    let link = folder.path("link.csv")
    #expect(symlink("real.csv", link) == 0)
    let refused = try CommandRunner.run(Self.small + ["-o", link])
    #expect(refused.status == 73)
    #expect(refused.stderr.contains("already exists (a link to "))
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "kept\n")

    let replaced = try CommandRunner.run(Self.small + ["-o", link, "--force"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(Self.kind(link) == "link")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.csv")
    #expect(try String(contentsOfFile: target, encoding: .utf8) == (try CommandRunner.run(Self.small)).stdout)
    // The replaced file keeps its permissions.
    let attributes = try FileManager.default.attributesOfItem(atPath: target)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)

    // A link to nothing yet: the file it names is created.
    let dangling = folder.path("dangling.csv")
    #expect(symlink("later.csv", dangling) == 0)
    #expect(try CommandRunner.run(Self.small + ["-o", dangling]).status == 0)
    #expect(Self.kind(dangling) == "link")
    #expect(Self.kind(folder.path("later.csv")) == "file")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["dangling.csv", "later.csv", "link.csv", "real.csv"])
  }

  @Test func aDirectoryIsRefusedByName() throws {
    let folder = try TemporaryFolder()
    for extra in [[], ["--force"]] {
      let result = try CommandRunner.run(Self.small + ["-o", folder.url.path] + extra)
      #expect(result.status == 73)
      #expect(result.stderr == "\(folder.url.path): error: cannot be created: it is a directory\n")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
  }

  /// SIGINT and SIGTERM part-way through a long write: the temporary file is removed, nothing
  /// appears under the output's name, and the status is 128 + the signal.
  @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
  func anInterruptedWriteLeavesNothing(signal: Int32, status: Int32) throws {
    let folder = try TemporaryFolder()
    let process = Process()
    process.executableURL = CommandRunner.executable
    process.arguments = ["generate", "track", "--count", "50000000", "-o", folder.path("big.gpx")]
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Wait until the temporary file exists, so the signal comes during the write.
    var started = false
    for _ in 0..<600 {
      if let names = try? FileManager.default.contentsOfDirectory(atPath: folder.url.path), names.contains(where: { $0.hasSuffix(".partial") }) {
        started = true
        break
      }
      usleep(50_000)
    }
    #expect(started)
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == status)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
  }
}

/// Bytes handed from the FIFO's reader thread to the test.
final class ReceivedBytes: @unchecked Sendable {
  private let lock = NSLock()
  private var bytes = Data()
  func set(_ data: Data) { lock.withLock { bytes = data } }
  func get() -> Data { lock.withLock { bytes } }
}
