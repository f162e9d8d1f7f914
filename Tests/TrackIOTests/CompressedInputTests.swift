import Foundation
import Geodesy
import Testing
import TrackIO
import _GeoWakeTestSupport

/// Gzip-compressed input, inflated by the system zlib as it is read: every track fixture reads to
/// the same fixes compressed, whatever the file is called; damage is a clear error.
@Suite("Compressed input")
struct CompressedInputTests {
  /// `data` compressed by the system's gzip (an independent compressor).
  static func gzip(_ data: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-c", "-n"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let writer = Thread { input.fileHandleForWriting.write(data); try? input.fileHandleForWriting.close() }
    writer.start()
    let compressed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return compressed
  }

  static func fixes(_ path: String) throws -> [LocationFix] {
    var reader = try TrackFileReader(path: path, options: .init(lenient: false, assumeUTC: true))
    var all: [LocationFix] = []
    while let fix = try reader.next() { all.append(fix) }
    return all
  }

  /// The track fixtures small enough to compress in a test, of every format.
  static let fixtures: [String] = {
    let root = FixtureFiles.packageRoot.appendingPathComponent("Fixtures")
    let all = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    return all.filter { $0.hasSuffix(".gpx") || $0.hasSuffix(".jsonl") || ($0.hasSuffix(".csv") && ($0.hasPrefix("demo/") || $0.hasPrefix("cells/drive_logs/"))) }
      .filter { ((try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent($0).path)[.size] as? Int) ?? 0) < 2_000_000 }
      .filter { !$0.hasPrefix("push/") }
      .sorted()
  }()

  @Test func everyTrackFixtureReadsTheSameCompressed() throws {
    let folder = try TemporaryFolder()
    var compared = 0
    for fixture in Self.fixtures {
      let path = FixtureFiles.packageRoot.appendingPathComponent("Fixtures/" + fixture).path
      guard let plain = try? Self.fixes(path) else { continue }  // fixtures of damaged input
      let compressed = try Self.gzip(Data(contentsOf: URL(fileURLWithPath: path)))
      let name = fixture.replacingOccurrences(of: "/", with: "_")
      let named = folder.path(name + ".gz")
      try compressed.write(to: URL(fileURLWithPath: named))
      #expect(try Self.fixes(named) == plain, "\(fixture)")
      // Sniffed from the content when the name says nothing.
      let anonymous = folder.path(name.replacingOccurrences(of: ".", with: "-"))
      try compressed.write(to: URL(fileURLWithPath: anonymous))
      #expect(try Self.fixes(anonymous) == plain, "\(fixture), no extension")
      compared += 1
    }
    #expect(compared >= 8)
  }

  /// Several members (as `cat a.gz b.gz` makes) read as their concatenation.
  @Test func membersFollowOneAnother() throws {
    let folder = try TemporaryFolder()
    let head = "time,lat,lon\n1,35.0,139.0\n2,35.0,139.001\n"
    let tail = "3,35.0,139.002\n4,35.0,139.003\n"
    var data = try Self.gzip(Data(head.utf8))
    data.append(try Self.gzip(Data(tail.utf8)))
    let path = folder.path("two.csv.gz")
    try data.write(to: URL(fileURLWithPath: path))
    #expect(try Self.fixes(path).map(\.time) == [1, 2, 3, 4])
  }

  @Test func cutAndDamagedDataAreErrors() throws {
    let folder = try TemporaryFolder()
    let gpx = try Data(contentsOf: FixtureFiles.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx"))
    let compressed = try Self.gzip(gpx)
    let cut = folder.path("cut.gpx.gz")
    try compressed.prefix(compressed.count / 2).write(to: URL(fileURLWithPath: cut))
    #expect { try Self.fixes(cut) } throws: { ($0 as? TrackIOError)?.message.contains("cut short after") == true }
    var damaged = compressed
    damaged[damaged.count / 3] ^= 0x5A
    let bad = folder.path("bad.gpx.gz")
    try damaged.write(to: URL(fileURLWithPath: bad))
    #expect { try Self.fixes(bad) } throws: { ($0 as? TrackIOError)?.message.contains("damaged near byte") == true }
  }
}
