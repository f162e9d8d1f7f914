import Foundation
import Geodesy
import Testing
import TrackIO
import _GeoWakeTestSupport

/// One row of `Fixtures/gpx/expected.csv`: what gpxpy 1.6.2 reports for a file.
struct GPXExpectation: CustomTestStringConvertible, Sendable {
  var file: String
  var tracks, segments, trackPoints, routes, routePoints, waypoints: Int
  var firstTime, lastTime: String
  var minLat, maxLat, minLon, maxLon: Double?
  /// Sum of GeographicLib WGS84 geodesic distances along the track segments, metres (3 decimals).
  var length2DGeodesic: Double?
  /// gpxpy's `get_duration()`, seconds; nil where gpxpy gives none (track points without time).
  var duration: Double?

  var testDescription: String { file }

  static let all: [GPXExpectation] = {
    guard let text = try? FixtureFiles.text("gpx/expected.csv") else { return [] }
    var rows = text.split(whereSeparator: \.isNewline).map(String.init)
    let header = parseCSVLine(rows.removeFirst())
    func column(_ name: String) -> Int { header.firstIndex(of: name) ?? 0 }
    return rows.map { line in
      let f = parseCSVLine(line)
      func int(_ n: String) -> Int { Int(f[column(n)]) ?? -1 }
      func double(_ n: String) -> Double? { Double(f[column(n)]) }
      return GPXExpectation(
        file: String(f[column("file")].dropFirst("gpx/".count)), tracks: int("tracks"), segments: int("segments"),
        trackPoints: int("track_points"), routes: int("routes"), routePoints: int("route_points"),
        waypoints: int("waypoints"), firstTime: f[column("first_time")], lastTime: f[column("last_time")],
        minLat: double("min_lat"), maxLat: double("max_lat"), minLon: double("min_lon"), maxLon: double("max_lon"),
        length2DGeodesic: double("length_2d_wgs84_geodesic_m"), duration: double("duration_s"))
    }
  }()

  static func parseCSVLine(_ line: String) -> [String] {
    var fields: [String] = []
    var current = ""
    var quoted = false
    for c in line {
      if c == "\"" { quoted.toggle() } else if c == "," && !quoted {
        fields.append(current)
        current = ""
      } else { current.append(c) }
    }
    fields.append(current)
    return fields
  }
}

/// ISO 8601 as gpxpy prints it ("2010-08-05T14:23:59+00:00" or without offset) → epoch seconds.
func gpxpyTime(_ text: String) -> Double? {
  let formatter = ISO8601DateFormatter()
  formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
  let normalized = text.contains("+") || text.hasSuffix("Z") ? text : text + "Z"
  if let d = formatter.date(from: normalized) { return d.timeIntervalSince1970 }
  formatter.formatOptions = [.withInternetDateTime]
  return formatter.date(from: normalized)?.timeIntervalSince1970
}

@Suite("GPX reader")
struct GPXReaderTests {
  @Test func fixtureTableIsComplete() {
    #expect(GPXExpectation.all.count == 38)
  }

  /// Every file gpxpy parses gives the same counts, bounds and first/last track-point times.
  @Test(arguments: GPXExpectation.all)
  func agreesWithGpxpy(_ expected: GPXExpectation) throws {
    var reader = try GPXReader(path: FixtureFiles.url("gpx/" + expected.file).path)
    let points = try reader.readAll()
    let s = reader.summary
    #expect(s.tracks == expected.tracks)
    #expect(s.segments == expected.segments)
    #expect(s.trackPoints == expected.trackPoints)
    #expect(s.routes == expected.routes)
    #expect(s.routePoints == expected.routePoints)
    #expect(s.waypoints == expected.waypoints)
    #expect(points.count == s.trackPoints + s.routePoints + s.waypoints)
    if let minLat = expected.minLat, let maxLat = expected.maxLat, let minLon = expected.minLon, let maxLon = expected.maxLon {
      #expect(points.map(\.coordinate.latitude).min() == minLat)
      #expect(points.map(\.coordinate.latitude).max() == maxLat)
      #expect(points.map(\.coordinate.longitude).min() == minLon)
      #expect(points.map(\.coordinate.longitude).max() == maxLon)
    }
    let times = points.filter { $0.kind == .track }.compactMap(\.time)
    if let first = gpxpyTime(expected.firstTime), let last = gpxpyTime(expected.lastTime) {
      #expect(abs((times.first ?? .nan) - first) < 1e-3, "first time")
      #expect(abs((times.last ?? .nan) - last) < 1e-3, "last time")
    } else {
      #expect(times.isEmpty)
    }
  }

  @Test func readsTheValuesOfAPoint() throws {
    var reader = try GPXReader(path: FixtureFiles.url("gpx/georust/garmin-activity.gpx").path)
    let first = try #require(try reader.next())
    #expect(first.kind == .track)
    #expect(first.heartRate != nil)
    #expect(first.elevation != nil)
    #expect(first.time != nil)
  }

  @Test(arguments: [
    ("<gpx><trk><trkseg><trkpt lat=\"91\" lon=\"0\"/></trkseg></trk></gpx>", "1:31: error: latitude 91.0 is out of range: expected a finite value in -90...90"),
    ("<gpx><wpt lon=\"1\"></wpt></gpx>", "1:6: error: <wpt> has no lat attribute: expected lat=\"degrees\""),
    ("<gpx>\n<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>noon</time></trkpt></trkseg></trk></gpx>", "2:43: error: <time> \"noon\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z"),
    ("<gpx><trk><trkseg></trk></gpx>", "1:19: error: </trk> does not match <trkseg> opened on line 1"),
    ("<gpx><trk>\n<trkseg>", "2:9: error: file ends inside <trkseg> opened on line 2: expected </trkseg>"),
    ("<kml></kml>", "1:1: error: root element is <kml>: expected <gpx>"),
    ("<gpx><wpt lat=\"x\" lon=\"1\"/></gpx>", "1:16: error: lat \"x\" is not a number: expected degrees in -90...90"),
  ])
  func badFilesAreLocated(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("bad.gpx", containing: text)
    do {
      var reader = try GPXReader(path: path)
      _ = try reader.readAll()
      Issue.record("accepted bad input")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
  }

  /// gpxpy ignores namespace-prefixed GPX elements; they are GPX all the same.
  @Test func namespacePrefixedElementsAreRead() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file(
      "prefixed.gpx",
      containing: """
        \u{FEFF}<?xml version="1.0"?><!-- a comment --><g:gpx xmlns:g="http://www.topografix.com/GPX/1/1" version="1.1">
        <g:trk><g:trkseg><g:trkpt lat="1.5" lon="2.5"><g:ele>3</g:ele><g:time>2024-05-01T07:00:00.250+02:00</g:time>
        <g:hdop>1.2</g:hdop></g:trkpt></g:trkseg></g:trk></g:gpx>
        """)
    var reader = try GPXReader(path: path)
    let points = try reader.readAll()
    #expect(points.count == 1)
    #expect(points[0].time == 1_714_539_600.25)
    #expect(points[0].fix?.horizontalAccuracy == 6)
    #expect(reader.summary.version == "1.1")
  }
}
