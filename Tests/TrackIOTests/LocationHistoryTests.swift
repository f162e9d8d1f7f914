import Foundation
import Geodesy
import SeededRandom
import Testing
import TrackIO
import _GeoWakeTestSupport

/// Google location history — Takeout's Records.json and the on-device Timeline export — read in
/// chunks to the fixes of the CSV of the same positions and times, across chunk boundaries; its
/// problems located in the whole file.
@Suite("Location history")
struct LocationHistoryTests {
  static func fixes(_ path: String) throws -> [LocationFix] {
    var reader = try TrackFileReader(path: path)
    var all: [LocationFix] = []
    while let fix = try reader.next() { all.append(fix) }
    return all
  }

  /// A walk of `count` fixes: E7 integers, millisecond times.
  static func walk(_ rng: inout SeededGenerator, count: Int) -> [(ms: Int, lat: Int, lon: Int, accuracy: Int)] {
    var (lat, lon) = (Int(rng.uniform(-60...60) * 1e7), Int(rng.uniform(-170...170) * 1e7))
    var ms = 1_600_000_000_000 + Int(rng.next() % 100_000_000_000)
    return (0..<count).map { _ in
      lat += Int(rng.next() % 20_001) - 10_000
      lon += Int(rng.next() % 20_001) - 10_000
      ms += 1_000 + Int(rng.next() % 60_000)
      return (ms, lat, lon, 3 + Int(rng.next() % 60))
    }
  }

  static func iso(_ ms: Int) -> String { TimestampText.iso8601(Double(ms) / 1_000, fractionDigits: 3) }
  static func degrees(_ e7: Int) -> String { String(format: "%.7f", Double(e7) / 1e7) }

  static func csv(_ rows: [(ms: Int, lat: Int, lon: Int, accuracy: Int)], accuracy: Bool = true) -> String {
    "time,lat,lon,accuracy\n" + rows.map { "\(iso($0.ms)),\(degrees($0.lat)),\(degrees($0.lon)),\(accuracy ? String($0.accuracy) : "")\n" }.joined()
  }

  /// Positions and times as a CSV would give them.
  static func same(_ a: [LocationFix], _ b: [LocationFix]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy {
      abs($0.time - $1.time) < 1e-6 && abs($0.coordinate.latitude - $1.coordinate.latitude) < 1e-9
        && abs($0.coordinate.longitude - $1.coordinate.longitude) < 1e-9 && $0.horizontalAccuracy == $1.horizontalAccuracy
    }
  }

  @Test(arguments: [(UInt64(1), 40), (2, 3_000), (3, 40_000)])
  func takeoutRecordsGiveTheFixesOfTheCSV(seed: UInt64, count: Int) throws {
    var rng = SeededGenerator(seed: seed)
    let rows = Self.walk(&rng, count: count)
    let folder = try TemporaryFolder()
    let expected = try Self.fixes(try folder.file("walk.csv", containing: Self.csv(rows)))
    // Pretty-printed as Takeout writes it, half with the older timestampMs, with keys this reader
    // does not use (long enough to cross chunks).
    var text = "{\n  \"locations\": [{\n"
    for (k, r) in rows.enumerated() {
      if k > 0 { text += ", {\n" }
      let time = k % 2 == 0 ? "\"timestamp\": \"\(Self.iso(r.ms))\"" : "\"timestampMs\": \"\(r.ms)\""
      text += "    \"latitudeE7\": \(r.lat),\n    \"longitudeE7\": \(r.lon),\n    \"accuracy\": \(r.accuracy),\n"
      text += "    \"activity\": [{\"timestamp\": \"\(Self.iso(r.ms))\", \"activity\": [{\"type\": \"STILL\", \"confidence\": 100}]}],\n"
      text += "    \"source\": \"WIFI\",\n    \(time)\n  }"
    }
    text += "]\n}\n"
    let records = try folder.file("Records.json", containing: text)
    #expect(Self.same(try Self.fixes(records), expected))
    // Minified, with a top-level key to skip before the locations.
    let minified = text.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "  ", with: "")
    let other = try folder.file("history.json", containing: "{\"settings\":{\"deviceSettings\":[{\"x\":[1,2,3]}]}," + minified.dropFirst())
    #expect(Self.same(try Self.fixes(other), expected))
  }

  @Test func timelineExportMergesItsTwoListsInTimeOrder() throws {
    var rng = SeededGenerator(seed: 9)
    let rows = Self.walk(&rng, count: 2_000)
    let folder = try TemporaryFolder()
    // Even rows as raw signals (with accuracy), odd rows as timeline paths in segments of 50.
    let raw = rows.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    let path = rows.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    let rawSignals = raw.map {
      "{\"position\":{\"LatLng\":\"\(Self.degrees($0.lat))°, \(Self.degrees($0.lon))°\",\"accuracyMeters\":\($0.accuracy),\"source\":\"WIFI\",\"timestamp\":\"\(Self.iso($0.ms))\"}}"
    } + ["{\"wifiScan\":{\"deliveryTime\":\"2024-01-01T00:00:00.000Z\",\"devicesRecords\":[]}}"]
    var segments: [String] = []
    for start in stride(from: 0, to: path.count, by: 50) {
      let part = path[start..<min(start + 50, path.count)]
      let points = part.map { "{\"point\":\"\(Self.degrees($0.lat))°, \(Self.degrees($0.lon))°\",\"time\":\"\(Self.iso($0.ms))\"}" }
      segments.append("{\"startTime\":\"\(Self.iso(part.first!.ms))\",\"endTime\":\"\(Self.iso(part.last!.ms))\",\"timelinePath\":[\(points.joined(separator: ","))]}")
    }
    segments.append("{\"startTime\":\"2024-01-01T00:00:00.000Z\",\"endTime\":\"2024-01-01T01:00:00.000Z\",\"visit\":{\"probability\":0.9}}")
    let document = "{\"semanticSegments\":[\(segments.joined(separator: ",\n"))],\n\"rawSignals\":[\(rawSignals.joined(separator: ",\n"))],\n\"userLocationProfile\":{\"frequentPlaces\":[]}}"
    let timeline = try folder.file("Timeline.json", containing: document)
    let expectedRows = rows.enumerated().map { k, r in (r, k % 2 == 0) }
    let csv = "time,lat,lon,accuracy\n" + expectedRows.map { "\(Self.iso($0.0.ms)),\(Self.degrees($0.0.lat)),\(Self.degrees($0.0.lon)),\($0.1 ? String($0.0.accuracy) : "")\n" }.joined()
    let expected = try Self.fixes(try folder.file("expected.csv", containing: csv))
    #expect(Self.same(try Self.fixes(timeline), expected))
  }

  /// A bad value deep in a large file is located on its line, past many chunks.
  @Test func problemsAreLocatedInTheWholeFile() throws {
    var rng = SeededGenerator(seed: 4)
    let rows = Self.walk(&rng, count: 60_000)
    let folder = try TemporaryFolder()
    var lines = ["{", "\"locations\": ["]
    for (k, r) in rows.enumerated() {
      let lat = k == 50_000 ? "\"north\"" : String(r.lat)
      lines.append("{\"latitudeE7\": \(lat), \"longitudeE7\": \(r.lon), \"timestamp\": \"\(Self.iso(r.ms))\"}" + (k + 1 < rows.count ? "," : ""))
    }
    lines += ["]", "}"]
    let path = try folder.file("Records.json", containing: lines.joined(separator: "\n") + "\n")
    do {
      _ = try Self.fixes(path)
      Issue.record("accepted a latitude that is a string")
    } catch {
      #expect("\(error)" == "\(path):50003:16: error: \"latitudeE7\" is a string: expected an integer, degrees × 10⁷")
    }
    let cut = try folder.file("cut.json", containing: String(lines.joined(separator: "\n").prefix(3_000_000)))
    #expect(throws: TrackIOError.self) { try Self.fixes(cut) }
    let empty = try folder.file("other.json", containing: "{\"timelineObjects\": []}")
    #expect(throws: TrackIOError.self) { try Self.fixes(empty) }
  }
}
