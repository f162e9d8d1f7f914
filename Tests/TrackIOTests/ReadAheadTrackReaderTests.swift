import CellHandoff
import Foundation
import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// The read-ahead reader gives what the reader it runs gives, in the same order: every fix with
/// its line and reported cell, each fix's warnings after it, an error after the fixes before it,
/// the same counts at the end.
@Suite("Track read ahead on a thread")
struct ReadAheadTrackReaderTests {
  /// Everything a caller sees, fix by fix.
  struct Outcome: Equatable {
    var fixes: [LocationFix] = []
    var lines: [Int] = []
    var cells: [CellIdentity?] = []
    /// The warnings taken after each fix (index) and at the end (-1).
    var warnings: [Int: [String]] = [:]
    var error: String?
    var pointsWithoutTime = 0
    var warningCount = 0

    /// What the reader says once it has returned its last fix.
    mutating func end(_ last: [TrackIOError], pointsWithoutTime: Int, warningCount: Int) {
      if !last.isEmpty { warnings[-1] = last.map(\.description) }
      self.pointsWithoutTime = pointsWithoutTime
      self.warningCount = warningCount
    }

    /// Takes fixes from `next` (each with its line, cell and warnings) until the end or an error.
    mutating func collect(_ next: () throws(TrackIOError) -> (LocationFix, Int, CellIdentity?, [TrackIOError])?) {
      do throws(TrackIOError) {
        while let (fix, line, cell, w) = try next() {
          fixes.append(fix)
          lines.append(line)
          cells.append(cell)
          if !w.isEmpty { warnings[fixes.count - 1] = w.map(\.description) }
        }
      } catch {
        self.error = error.description
      }
    }
  }

  static func direct(_ path: String, lenient: Bool) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      var reader = try TrackFileReader(path: path, options: .init(lenient: lenient))
      outcome.collect { () throws(TrackIOError) in
        guard let fix = try reader.next() else { return nil }
        return (fix, reader.lineNumber, reader.reportedCell, reader.takeWarnings())
      }
      outcome.end(reader.takeWarnings(), pointsWithoutTime: reader.pointsWithoutTime, warningCount: reader.warningCount)
    } catch {
      outcome.error = "open: " + error.description
    }
    return outcome
  }

  /// Read ahead, the first fix read by the reader itself before it is handed over (as the
  /// command line opens a track: the first fix tells whether it names devices) when `firstDirect`.
  static func readAhead(_ path: String, lenient: Bool, firstDirect: Bool = false) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      var direct = try TrackFileReader(path: path, options: .init(lenient: lenient))
      var first: LocationFix?
      var firstError: TrackIOError?
      if firstDirect {
        do throws(TrackIOError) { first = try direct.next() } catch { firstError = error }
      }
      let reader = ReadAheadTrackReader(direct, lenient: lenient)
      do throws(TrackIOError) {
        if let firstError { throw firstError }
        if let first {
          outcome.fixes.append(first)
          outcome.lines.append(reader.lineNumber)
          outcome.cells.append(reader.reportedCell)
          let w = reader.takeWarnings()
          if !w.isEmpty { outcome.warnings[0] = w.map(\.description) }
        }
      } catch {
        outcome.error = error.description
      }
      if outcome.error == nil {
        outcome.collect { () throws(TrackIOError) in
          guard let fix = try reader.next() else { return nil }
          return (fix, reader.lineNumber, reader.reportedCell, reader.takeWarnings())
        }
      }
      outcome.end(reader.takeWarnings(), pointsWithoutTime: reader.pointsWithoutTime, warningCount: reader.warningCount)
    } catch {
      outcome.error = "open: " + error.description
    }
    return outcome
  }

  static let gpxFixtures: [String] = {
    let root = FixtureFiles.url("gpx")
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    return files.filter { $0.pathExtension == "gpx" }.map { String($0.path.dropFirst(root.path.count + 1)) }.sorted()
  }()

  @Test(arguments: gpxFixtures)
  func gpxFixturesReadTheSame(_ file: String) {
    let path = FixtureFiles.url("gpx/" + file).path
    for lenient in [false, true] {
      let expected = Self.direct(path, lenient: lenient)
      #expect(Self.readAhead(path, lenient: lenient) == expected, "\(file), lenient \(lenient)")
      #expect(Self.readAhead(path, lenient: lenient, firstDirect: true) == expected, "\(file), lenient \(lenient), first fix read before")
    }
  }

  /// Files of many batches: a CSV track naming cells, with an error or a damaged point far into
  /// it, a file that ends exactly at a batch's end, and an empty one.
  @Test func longFilesWithErrorsPastSeveralBatches() throws {
    let folder = try TemporaryFolder()
    let batch = ReadAheadTrackReader.batchSize
    func csv(_ count: Int, badAt: Int?) -> String {
      var text = "time,lat,lon,accuracy,cell\n"
      for k in 0..<count {
        let lat = k == badAt ? "95" : String(37 + Double(k) * 1e-6)
        text += "2024-05-01T07:\(String(format: "%02d:%02d", (k / 60) % 60, k % 60))Z,\(lat),-122.4,5,LTE 310-260-\(k / 500)-\(k % 7)\n"
      }
      return text
    }
    func gpx(_ count: Int, damagedAt: Int) -> String {
      var text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
      for k in 0..<count {
        let time = k % 1_000 == 999 ? "" : "<time>2024-05-01T07:00:\(String(format: "%02d", k % 60))Z</time>"
        text += k == damagedAt ? "<trkpt lat=\"x\" lon=\"1\">\(time)</trkpt>\n" : "<trkpt lat=\"\(37 + Double(k) * 1e-6)\" lon=\"-122.4\">\(time)</trkpt>\n"
      }
      return text + "</trkseg></trk></gpx>\n"
    }
    let files = [
      try folder.file("error.csv", containing: csv(3 * batch + 17, badAt: 2 * batch + 5)),
      try folder.file("exact.csv", containing: csv(2 * batch, badAt: nil)),
      try folder.file("empty.csv", containing: "time,lat,lon\n"),
      try folder.file("damaged.gpx", containing: gpx(3 * batch, damagedAt: batch + 1)),
    ]
    for path in files {
      for lenient in [false, true] {
        let expected = Self.direct(path, lenient: lenient)
        #expect(Self.readAhead(path, lenient: lenient) == expected, "\(path), lenient \(lenient)")
        #expect(Self.readAhead(path, lenient: lenient, firstDirect: true) == expected, "\(path), lenient \(lenient), first fix read before")
      }
    }
    // The cases are what they say.
    #expect(Self.direct(files[0], lenient: false).error != nil && Self.direct(files[0], lenient: false).fixes.count == 2 * batch + 5)
    #expect(Self.direct(files[1], lenient: false).fixes.count == 2 * batch)
    #expect(Self.direct(files[3], lenient: true).warnings.count == 1 && Self.direct(files[3], lenient: true).pointsWithoutTime > 0)
  }

  /// A caller that stops early leaves the thread to stop by itself.
  @Test func droppingTheReaderEarlyIsSafe() throws {
    let folder = try TemporaryFolder()
    var text = "time,lat,lon\n"
    for k in 0..<50_000 { text += "\(1_700_000_000 + k),37,-122\n" }
    let path = try folder.file("long.csv", containing: text)
    for _ in 0..<20 {
      let reader = ReadAheadTrackReader(try TrackFileReader(path: path))
      #expect(try reader.next() != nil)
    }
  }
}
