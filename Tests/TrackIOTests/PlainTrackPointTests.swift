import Foundation
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// The plain-track-point shortcut changes speed, never results: every file reads to the same
/// points, summary and error (message, line, column) with and without it.
@Suite("GPX plain track point shortcut")
struct PlainTrackPointTests {
  /// Everything a read gives: the points, the summary and the error or warnings.
  struct Outcome: Equatable {
    var points: [GPXPoint] = []
    var summary = ""
    var error: String?
    var warnings: [String] = []
  }

  static func read(_ path: String, shortcut: Bool, lenient: Bool = false) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      var reader = try GPXReader(path: path, lenient: lenient, plainShortcut: shortcut)
      while let p = try reader.next() { outcome.points.append(p) }
      outcome.summary = "\(reader.summary)"
      outcome.warnings = reader.takeWarnings().map(\.description)
    } catch {
      outcome.error = error.description
    }
    return outcome
  }

  static let fixtures: [String] = {
    let root = FixtureFiles.url("gpx")
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    return files.filter { $0.pathExtension == "gpx" }.map { String($0.path.dropFirst(root.path.count + 1)) }.sorted()
  }()

  @Test func everyFixtureIsCovered() {
    #expect(Self.fixtures.count >= 38)
  }

  @Test(arguments: fixtures)
  func fixtureReadsTheSameBothWays(_ file: String) {
    let path = FixtureFiles.url("gpx/" + file).path
    #expect(Self.read(path, shortcut: true) == Self.read(path, shortcut: false))
    #expect(Self.read(path, shortcut: true, lenient: true) == Self.read(path, shortcut: false, lenient: true))
  }

  static func document(_ points: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
      <trk><trkseg>
    \(points)
      </trkseg></trk>
    </gpx>

    """
  }

  /// Plain points, points the shortcut leaves to the general path, and damaged points: the same
  /// outcome both ways, strict and lenient.
  @Test(arguments: [
    // Plain, with every child it takes, either quote, either attribute order, spacing, new dates.
    #"<trkpt lat="1.5" lon="2.5"><ele>3</ele><time>2024-05-01T07:00:00Z</time><hdop>1.0</hdop></trkpt>"#,
    #"<trkpt lon='2.5'  lat='1.5' >  <time>2024-02-29T23:59:60.25Z</time>\#n<sat>7</sat><vdop>2</vdop><pdop>3</pdop><speed>4</speed><course>5</course></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-05-01T07:00:00Z</time></trkpt><trkpt lat="1" lon="2"><time>2024-05-02T00:00:00.5Z</time></trkpt><trkpt lat="1" lon="2"><time>1969-12-31T23:59:59Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time> 2024-05-01T07:00:00+02:00 </time><ele></ele><ele> 7 </ele></trkpt>"#,
    #"<trkpt lat="1" lon="200"><time>2024-05-01 07:00:00Z</time></trkpt>"#,
    // Left to the general path.
    #"<trkpt lat="1" lon="2"/><trkpt lat="1" lon="2"><name>x</name></trkpt>"#,
    #"<trkpt lat="1" lon="2"><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>120</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>"#,
    #"<trkpt lat="1" lon="2" extra="x"><ele>1<!-- c -->2</ele><time><![CDATA[2024-05-01T07:00:00Z]]></time></trkpt>"#,
    #"<trkpt lat = "1" lon="2"><ele >1</ele ><gpx:ele>2</gpx:ele></trkpt>"#,
    // Damaged: errors (strict) and recoveries (lenient) located the same way.
    #"<trkpt lat="91" lon="2"><time>2024-05-01T07:00:00Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-13-01T07:00:00Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-05-01T24:00:00Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-05-01T07:00:00.Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><ele>high</ele><sat>2.5</sat></trkpt>"#,
    #"<trkpt lat="x" lon="2"></trkpt><trkpt lat="1" lat="1" lon="2"></trkpt><trkpt lon="2"></trkpt>"#,
    #"<trkpt lat="1" lon="2"><ele>1</elevation></trkpt>"#,
    #"<trkpt lat="1" lon="2"><ele>1</ele>"#,
  ])
  func craftedPointsReadTheSameBothWays(_ points: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("t.gpx", containing: Self.document(points))
    let strict = Self.read(path, shortcut: true)
    #expect(strict == Self.read(path, shortcut: false))
    #expect(Self.read(path, shortcut: true, lenient: true) == Self.read(path, shortcut: false, lenient: true))
  }

  /// A long file: the shortcut crosses read-ahead chunks and buffer compaction (points cut by a
  /// chunk boundary are finished the general way) and still reads every point the same.
  @Test func longFileReadsTheSameBothWays() throws {
    var text = ""
    for k in 0..<30_000 {
      let second = k % 60
      let minute = (k / 60) % 60
      let hour = k / 3600
      let time = "2024-05-01T\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):\(second < 10 ? "0" : "")\(second)Z"
      text += "    <trkpt lat=\"\(Double(k % 9_000) / 100)\" lon=\"-\(Double(k) / 1000)\"><ele>\(k % 500)</ele>"
      text += "<time>\(time)</time><hdop>\(Double(k % 20) / 10)</hdop></trkpt>\n"
    }
    let folder = try TemporaryFolder()
    let path = try folder.file("long.gpx", containing: Self.document(text))
    let fast = Self.read(path, shortcut: true)
    #expect(fast.points.count == 30_000 && fast.error == nil)
    #expect(fast == Self.read(path, shortcut: false))
  }
}
