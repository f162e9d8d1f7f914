import Foundation
import Geodesy
import Geofencing
import Testing
import SeededRandom
@testable import TrackIO
import _GeoWakeTestSupport

/// Input that can be read only once — a FIFO, as a shell's `<(…)` gives — read as the same file
/// would be: its head is read to learn the format and kept for the reader, so nothing is lost.
@Suite("FIFO input")
struct FIFOInputTests {
  /// A FIFO at `path` that a thread of its own fills with `data`, then closes. (A reader that
  /// stops early leaves the writer an error, not a signal.)
  static func serve(_ data: Data, at path: String) throws {
    guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
    signal(SIGPIPE, SIG_IGN)
    let writer = Thread {
      guard let handle = FileHandle(forWritingAtPath: path) else { return }
      try? handle.write(contentsOf: data)
      try? handle.close()
    }
    writer.start()
  }

  @Test func everyTrackFixtureReadsTheSameThroughAFIFO() throws {
    let folder = try TemporaryFolder()
    var compared = 0
    for (k, fixture) in CompressedInputTests.fixtures.enumerated() {
      let path = FixtureFiles.packageRoot.appendingPathComponent("Fixtures/" + fixture).path
      guard let plain = try? CompressedInputTests.fixes(path) else { continue }  // fixtures of damaged input
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      let fifo = folder.path("track-\(k)")
      try Self.serve(data, at: fifo)
      #expect(try CompressedInputTests.fixes(fifo) == plain, "\(fixture)")
      let compressed = folder.path("compressed-\(k)")
      try Self.serve(try CompressedInputTests.gzip(data), at: compressed)
      #expect(try CompressedInputTests.fixes(compressed) == plain, "\(fixture), compressed")
      compared += 1
    }
    #expect(compared >= 20, "\(compared) fixtures compared")
  }

  /// `info`'s statistics of a FIFO are those of the file, and reading them ends: nothing opens the
  /// FIFO a second time (that would wait for a writer that is gone). Should it, the test opens the
  /// FIFO for writing after a while, which lets the read end, and fails.
  @Test func statisticsOfAFIFOEnd() throws {
    let folder = try TemporaryFolder()
    let gpx = FixtureFiles.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx").path
    let expected = try TrackStatistics.read(path: gpx)
    for (k, data) in [try Data(contentsOf: URL(fileURLWithPath: gpx)), try CompressedInputTests.gzip(Data(contentsOf: URL(fileURLWithPath: gpx)))].enumerated() {
      let fifo = folder.path("info-\(k)")
      try Self.serve(data, at: fifo)
      let done = DispatchSemaphore(value: 0)
      nonisolated(unsafe) var read: TrackStatistics?
      let reader = Thread {
        read = try? TrackStatistics.read(path: fifo)
        done.signal()
      }
      reader.start()
      if done.wait(timeout: .now() + 20) == .timedOut {
        Issue.record("reading the statistics of a FIFO did not end")
        // A writer that opens and closes the FIFO lets a second opening return.
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        done.wait()
      }
      #expect(read?.trackPoints == expected.trackPoints && read?.trackPoints ?? 0 > 0, "fifo \(k)")
    }
  }

  @Test func regionFilesReadTheSameThroughAFIFO() throws {
    let folder = try TemporaryFolder()
    let files = ["demo/tokyo-regions.csv", "polygons/polygons.json"]
    var generated = RegionShortcutTests.Writer(random: SeededGenerator(seed: 7), odd: 0)
    let geojson = try folder.file("regions.geojson", containing: generated.file(count: 40))
    let paths = files.map { FixtureFiles.packageRoot.appendingPathComponent("Fixtures/" + $0).path } + [geojson]
    for (k, path) in paths.enumerated() {
      let expected = RegionShortcutTests.read(path, shortcut: true, checked: true)
      let fifo = folder.path("regions-\(k)")
      try Self.serve(try Data(contentsOf: URL(fileURLWithPath: path)), at: fifo)
      var outcome: RegionShortcutTests.Outcome
      do throws(TrackIOError) {
        let file = try RegionFileReader.read(path: fifo) { (p) throws(RegionError) in try RegionShortcutTests.check(p) }
        outcome = .init(regions: file.regions, notifications: file.notifications)
      } catch {
        // Errors name the path they were read from.
        outcome = .init(error: error.description.replacingOccurrences(of: fifo, with: path))
      }
      #expect(outcome == expected, "\(path)")
    }
  }
}
