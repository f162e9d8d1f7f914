import Foundation
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// The GPX read-ahead gives what the GPX reader it runs gives, in the same order: every point,
/// each point's warnings after it, an error after the points before it, the same summary and
/// counts at the end.
@Suite("GPX read ahead on a thread")
struct ReadAheadGPXReaderTests {
  /// Everything a caller sees, point by point.
  struct Outcome: Equatable {
    var points: [GPXPoint] = []
    /// The warnings taken after each point (index) and at the end (-1).
    var warnings: [Int: [String]] = [:]
    var error: String?
    var summary = GPXSummary()
    var warningCount = 0

    /// Takes points from `next` (each with its warnings) until the end or an error.
    mutating func collect(_ next: () throws(TrackIOError) -> (GPXPoint, [TrackIOError])?) {
      do throws(TrackIOError) {
        while let (point, w) = try next() {
          points.append(point)
          if !w.isEmpty { warnings[points.count - 1] = w.map(\.description) }
        }
      } catch {
        self.error = error.description
      }
    }

    mutating func end(_ last: [TrackIOError], summary: GPXSummary, warningCount: Int) {
      if !last.isEmpty { warnings[-1] = last.map(\.description) }
      self.summary = summary
      self.warningCount = warningCount
    }
  }

  static func direct(_ path: String, lenient: Bool) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      var reader = try GPXReader(path: path, lenient: lenient)
      outcome.collect { () throws(TrackIOError) in
        guard let point = try reader.next() else { return nil }
        return (point, reader.takeWarnings())
      }
      outcome.end(reader.takeWarnings(), summary: reader.summary, warningCount: reader.warningCount)
    } catch {
      outcome.error = "open: " + error.description
    }
    return outcome
  }

  static func readAhead(_ path: String, lenient: Bool) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      let reader = ReadAheadGPXReader(try GPXReader(path: path, lenient: lenient))
      outcome.collect { () throws(TrackIOError) in
        guard let point = try reader.next() else { return nil }
        return (point, reader.takeWarnings())
      }
      outcome.end(reader.takeWarnings(), summary: reader.summary, warningCount: reader.warningCount)
    } catch {
      outcome.error = "open: " + error.description
    }
    return outcome
  }

  @Test(arguments: ReadAheadTrackReaderTests.gpxFixtures)
  func gpxFixturesReadTheSame(_ file: String) {
    let path = FixtureFiles.url("gpx/" + file).path
    for lenient in [false, true] {
      #expect(Self.readAhead(path, lenient: lenient) == Self.direct(path, lenient: lenient), "\(file), lenient \(lenient)")
    }
  }

  /// Files of many batches: a damaged point far into a file (an error, or a warning when
  /// lenient), routes and waypoints after the track, a file that ends exactly at a batch's end,
  /// and one without points.
  @Test func longFilesPastSeveralBatches() throws {
    let folder = try TemporaryFolder()
    let batch = ReadAheadGPXReader.batchSize
    func gpx(_ count: Int, damagedAt: Int?, extras: Bool) -> String {
      var text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
      for k in 0..<count {
        let time = k % 1_000 == 999 ? "" : "<time>2024-05-01T07:00:\(String(format: "%02d", k % 60))Z</time>"
        text +=
          k == damagedAt
          ? "<trkpt lat=\"x\" lon=\"1\">\(time)</trkpt>\n"
          : "<trkpt lat=\"\(37 + Double(k) * 1e-6)\" lon=\"-122.4\"><ele>\(k % 90)</ele>\(time)</trkpt>\n"
        if k == count / 2 { text += "</trkseg><trkseg>\n" }
      }
      text += "</trkseg></trk>\n"
      if extras {
        text += "<rte><rtept lat=\"37\" lon=\"-122\"/><rtept lat=\"37.1\" lon=\"-122\"/></rte>\n"
        text += "<wpt lat=\"37.2\" lon=\"-122.1\"><name>end</name></wpt>\n"
      }
      return text + "</gpx>\n"
    }
    let files = [
      try folder.file("damaged.gpx", containing: gpx(3 * batch + 17, damagedAt: 2 * batch + 5, extras: true)),
      try folder.file("exact.gpx", containing: gpx(2 * batch, damagedAt: nil, extras: false)),
      try folder.file("extras.gpx", containing: gpx(batch + 1, damagedAt: nil, extras: true)),
      try folder.file("empty.gpx", containing: "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"></gpx>\n"),
    ]
    for path in files {
      for lenient in [false, true] {
        #expect(Self.readAhead(path, lenient: lenient) == Self.direct(path, lenient: lenient), "\(path), lenient \(lenient)")
      }
    }
    // The cases are what they say.
    let strict = Self.direct(files[0], lenient: false)
    #expect(strict.error != nil && strict.points.count == 2 * batch + 5)
    let lenient = Self.direct(files[0], lenient: true)
    #expect(lenient.error == nil && lenient.warningCount == 1 && lenient.summary.waypoints == 1)
    #expect(Self.direct(files[1], lenient: false).points.count == 2 * batch)
    #expect(Self.direct(files[3], lenient: false).points.isEmpty)
  }

  /// A caller that stops early leaves the thread to stop by itself.
  @Test func droppingTheReaderEarlyIsSafe() throws {
    let folder = try TemporaryFolder()
    var text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
    for k in 0..<50_000 { text += "<trkpt lat=\"37\" lon=\"\(-122 + Double(k) * 1e-6)\"/>\n" }
    let path = try folder.file("long.gpx", containing: text + "</trkseg></trk></gpx>\n")
    for _ in 0..<20 {
      let reader = ReadAheadGPXReader(try GPXReader(path: path))
      #expect(try reader.next() != nil)
    }
  }
}
