import Foundation
import Geodesy
import SeededRandom
import Testing
import TrackIO
import _GeoWakeTestSupport

/// One walk written as people have it — GPX, gzip-compressed GPX, Takeout's Records.json, the
/// on-device Timeline export, a GeoJSON LineString with togeojson's `coordTimes` — reads to the
/// GPX file's positions and times in every format.
@Suite("One walk in every track format")
struct SameWalkEveryFormatTests {
  @Test(arguments: [UInt64(5), 6, 7])
  func everyFormatReadsToTheGPXFixes(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let rows = LocationHistoryTests.walk(&rng, count: 1_500)
    let iso = LocationHistoryTests.iso
    let degrees = LocationHistoryTests.degrees
    let folder = try TemporaryFolder()

    let points = rows.map { "<trkpt lat=\"\(degrees($0.lat))\" lon=\"\(degrees($0.lon))\"><time>\(iso($0.ms))</time></trkpt>" }
    let gpxText = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n" + points.joined(separator: "\n") + "\n</trkseg></trk></gpx>\n"
    let gpx = try folder.file("walk.gpx", containing: gpxText)
    let expected = try LocationHistoryTests.fixes(gpx)
    #expect(expected.count == rows.count)

    let compressed = folder.path("walk.gpx.gz")
    try CompressedInputTests.gzip(Data(gpxText.utf8)).write(to: URL(fileURLWithPath: compressed))

    let records = try folder.file(
      "Records.json",
      containing: "{\"locations\":[" + rows.map { "{\"latitudeE7\":\($0.lat),\"longitudeE7\":\($0.lon),\"timestamp\":\"\(iso($0.ms))\"}" }.joined(separator: ",") + "]}")

    let timeline = try folder.file(
      "Timeline.json",
      containing: "{\"semanticSegments\":[{\"startTime\":\"\(iso(rows[0].ms))\",\"endTime\":\"\(iso(rows[rows.count - 1].ms))\",\"timelinePath\":["
        + rows.map { "{\"point\":\"\(degrees($0.lat))°, \(degrees($0.lon))°\",\"time\":\"\(iso($0.ms))\"}" }.joined(separator: ",") + "]}]}")

    let geojson = try folder.file(
      "walk.geojson",
      containing: "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"name\":\"walk\",\"coordTimes\":["
        + rows.map { "\"\(iso($0.ms))\"" }.joined(separator: ",") + "]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":["
        + rows.map { "[\(degrees($0.lon)),\(degrees($0.lat))]" }.joined(separator: ",") + "]}}]}")

    for path in [compressed, records, timeline, geojson] {
      let read = try LocationHistoryTests.fixes(path)
      let same = read.count == expected.count && zip(read, expected).allSatisfy {
        abs($0.time - $1.time) < 1e-6 && abs($0.coordinate.latitude - $1.coordinate.latitude) < 1e-9
          && abs($0.coordinate.longitude - $1.coordinate.longitude) < 1e-9
      }
      #expect(same, "\(path): \(read.count) fixes")
    }
  }
}
