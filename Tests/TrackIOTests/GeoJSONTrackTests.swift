import Foundation
import Geodesy
import SeededRandom
import Testing
import TrackIO
import _GeoWakeTestSupport

/// GeoJSON tracks (togeojson's `coordTimes`, or `times`): the same fixes as the CSV of the same
/// positions and times, however the document is laid out; every problem located.
@Suite("GeoJSON tracks")
struct GeoJSONTrackTests {
  static func fixes(_ path: String, assumeUTC: Bool = false) throws -> [LocationFix] {
    var reader = try TrackFileReader(path: path, options: .init(assumeUTC: assumeUTC))
    var all: [LocationFix] = []
    while let fix = try reader.next() { all.append(fix) }
    return all
  }

  /// A random walk as (time, lat, lon) rows.
  static func walk(_ rng: inout SeededGenerator, count: Int) -> [(String, Double, Double)] {
    var (lat, lon) = (rng.uniform(-60...60), rng.uniform(-170...170))
    var t = 1_700_000_000 + Int(rng.next() % 1_000_000)
    return (0..<count).map { _ in
      lat += rng.uniform(-0.0005...0.0005)
      lon += rng.uniform(-0.0005...0.0005)
      t += 1 + Int(rng.next() % 30)
      let iso = TimestampText.iso8601(Double(t))
      return (iso, (lat * 1e7).rounded() / 1e7, (lon * 1e7).rounded() / 1e7)
    }
  }

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func layoutsGiveTheFixesOfTheCSV(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let rows = Self.walk(&rng, count: 50 + Int(rng.next() % 200))
    let folder = try TemporaryFolder()
    let csv = try folder.file("walk.csv", containing: "time,lat,lon\n" + rows.map { "\($0.0),\($0.1),\($0.2)\n" }.joined())
    let expected = try Self.fixes(csv)
    func positions(_ part: ArraySlice<(String, Double, Double)>) -> String { "[" + part.map { "[\($0.2),\($0.1),12.5]" }.joined(separator: ",") + "]" }
    func times(_ part: ArraySlice<(String, Double, Double)>) -> String { "[" + part.map { "\"\($0.0)\"" }.joined(separator: ",") + "]" }
    let cut = rows.count / 3
    let (a, b, c) = (rows[..<cut], rows[cut..<(2 * cut)], rows[(2 * cut)...])
    let line = "{\"type\":\"Feature\",\"properties\":{\"name\":\"walk\",\"coordTimes\":\(times(a))},\"geometry\":{\"type\":\"LineString\",\"coordinates\":\(positions(a))}}"
    let multi = "{\"type\":\"Feature\",\"geometry\":{\"coordinates\":[\(positions(b)),\(positions(c))],\"type\":\"MultiLineString\"},\"properties\":{\"times\":[\(times(b)),\(times(c))]}}"
    let flat = "{\"type\":\"Feature\",\"geometry\":{\"coordinates\":[\(positions(b)),\(positions(c))],\"type\":\"MultiLineString\"},\"properties\":{\"coordTimes\":\(times(b[...] + c[...]))}}"
    let waypoint = "{\"type\":\"Feature\",\"properties\":{\"name\":\"café\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}"
    let polygon = "{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}}"
    for (k, features) in [[line, multi], [line, waypoint, flat, polygon]].enumerated() {
      let documents = [
        "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}",
        "{\n  \"features\": [\n    " + features.joined(separator: ",\n    ") + "\n  ],\n  \"type\": \"FeatureCollection\"\n}\n",
      ]
      for (d, document) in documents.enumerated() {
        #expect(try Self.fixes(try folder.file("t\(k)\(d).geojson", containing: document)) == expected, "layout \(k) \(d)")
        #expect(try Self.fixes(try folder.file("t\(k)\(d)", containing: document)) == expected, "layout \(k) \(d), sniffed")
      }
    }
    // A single Feature, and points with a time each.
    let single = try folder.file("one.json", containing: "{\"type\":\"Feature\",\"properties\":{\"coordTimes\":\(times(rows[...]))},\"geometry\":{\"type\":\"LineString\",\"coordinates\":\(positions(rows[...]))}}")
    #expect(try Self.fixes(single) == expected)
    let points = rows.map { "{\"type\":\"Feature\",\"properties\":{\"time\":\"\($0.0)\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\($0.2),\($0.1)]}}" }
    #expect(try Self.fixes(try folder.file("points.geojson", containing: "{\"type\":\"FeatureCollection\",\"features\":[" + points.joined(separator: ",\n") + "]}")) == expected)
  }

  @Test(arguments: [
    ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"properties\":{\"coordTimes\":[\"2024-05-01T07:00:00Z\"]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[1,3]]}}]}",
     "2:46: error: 1 times for 2 positions: expected one time per position"),
    ("{\"type\":\"Feature\",\"properties\":{\"coordTimes\":[\"2024-05-01T07:00:00Z\",\"noon\"]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[1,3]]}}",
     "1:70: error: time \"noon\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z"),
    ("{\"type\":\"Feature\",\"properties\":{\"coordTimes\":[1,2]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[1,93]]}}",
     "1:109: error: latitude 93.0 is out of range: expected a finite value in -90...90"),
    ("{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[1,3]]}}",
     "1:46: error: LineString without \"coordTimes\" or \"times\" in its properties: expected a time per position"),
    ("{\"type\":\"Feature\",\"properties\":{\"times\":[\"2024-05-01T07:00:00\"]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2]]}}",
     "1:42: error: time \"2024-05-01T07:00:00\" has no zone"),
  ])
  func problemsAreLocated(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("bad.geojson", containing: text)
    do {
      _ = try Self.fixes(path)
      Issue.record("accepted bad input")
    } catch {
      #expect("\(error)".hasPrefix("\(path):\(expected)"), "\(error)")
    }
  }
}
