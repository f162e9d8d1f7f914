import Foundation
import Testing
import _GeoWakeTestSupport

@Suite("geowake info")
struct InfoCommandTests {
  @Test func jsonHasTheDocumentedKeysAndValues() throws {
    let result = try CommandRunner.run(["info", "--format", "json", "Fixtures/gpx/gpxpy/cerknicko-jezero.gpx"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    for key in ["tracks", "segments", "trackPoints", "routes", "routePoints", "waypoints", "firstTime", "lastTime",
                "minLat", "maxLat", "minLon", "maxLon", "length2D", "duration"] {
      #expect(object[key] != nil, "missing \(key)")
    }
    #expect(object["tracks"] as? Int == 8)
    #expect(object["trackPoints"] as? Int == 296)
    #expect(object["waypoints"] as? Int == 7)
    #expect(object["firstTime"] as? String == "2010-08-05T14:23:59Z")
    #expect(object["lastTime"] as? String == "2010-08-05T16:23:49Z")
    #expect(object["minLat"] as? Double == 45.735199945)
    #expect(object["length2D"] as? Double == 4576.907)
    #expect(object["duration"] as? Double == 4239)
    #expect(result.stdout.hasSuffix("}\n") && !result.stdout.dropLast().contains("\n"))
  }

  @Test func tableReadsLikeGpxinfo() throws {
    let result = try CommandRunner.run(["info", "Fixtures/gpx/gpxpy/track-with-empty-segment.gpx"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("File: Fixtures/gpx/gpxpy/track-with-empty-segment.gpx (GPX 1.1)\n"))
    #expect(result.stdout.contains("    Length 2D:      0.086 km\n"))
    #expect(result.stdout.contains("    Duration:       1 min 16 s\n"))
  }

  @Test func unknownDurationIsNullNotZero() throws {
    let result = try CommandRunner.run(["info", "--format", "json", "Fixtures/gpx/georust/strava_route_example.gpx"])
    #expect(result.status == 0)
    #expect(result.stdout.contains(#""firstTime":null,"lastTime":null"#))
    #expect(result.stdout.contains(#""duration":null"#))
  }

  @Test func damagedFileIsLocatedAndExits65() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("cut.gpx", containing: "<gpx><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2024")
    let result = try CommandRunner.run(["info", path])
    #expect(result.status == 65)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("\(path):2:"))
  }

  @Test func missingFileExits66AndBadFormatExits64() throws {
    #expect(try CommandRunner.run(["info", "no-such.gpx"]).status == 66)
    #expect(try CommandRunner.run(["info", "--format", "xml", "Fixtures/demo/tokyo-track.csv"]).status == 64)
  }
}
