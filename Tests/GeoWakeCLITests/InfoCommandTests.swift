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

  /// Sensor values from every exporter's extensions: range, mean and points carrying each, in
  /// the table and in JSON; a sensor no point gives is absent from the table and null in JSON.
  @Test func sensorReadingsAreSummarised() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("ride.gpx", containing: """
      <gpx version="1.1" creator="t" xmlns:ns3="urn:tpx" xmlns:gpxdata="urn:data" xmlns:pwr="urn:pwr"><trk><trkseg>
      <trkpt lat="1" lon="2"><time>2024-05-01T07:00:00Z</time><extensions><ns3:TrackPointExtension><ns3:hr>100</ns3:hr><ns3:atemp>20.5</ns3:atemp></ns3:TrackPointExtension><power>200</power></extensions></trkpt>
      <trkpt lat="1.0001" lon="2"><time>2024-05-01T07:00:01Z</time><extensions><gpxdata:hr>110</gpxdata:hr><gpxdata:temp>21.5</gpxdata:temp></extensions></trkpt>
      <trkpt lat="1.0002" lon="2"><time>2024-05-01T07:00:02Z</time><extensions><pwr:PowerInWatts>301</pwr:PowerInWatts><ns3:TrackPointExtension><ns3:hr>121</ns3:hr></ns3:TrackPointExtension></extensions></trkpt>
      </trkseg></trk></gpx>
      """)
    let table = try CommandRunner.run(["info", path])
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("    Heart rate:     100 … 121 bpm, mean 110.3 (3 points)\n"))
    #expect(table.stdout.contains("    Power:          200 … 301 W, mean 250.5 (2 points)\n"))
    #expect(table.stdout.contains("    Temperature:    20.5 … 21.5 °C, mean 21.0 (2 points)\n"))
    #expect(!table.stdout.contains("Cadence"))
    let json = try CommandRunner.run(["info", "--format", "json", path])
    #expect(json.stdout.contains(#""heartRate":{"points":3,"min":100.0,"max":121.0,"mean":110.333333}"#))
    #expect(json.stdout.contains(#""cadence":null"#))
    #expect(json.stdout.contains(#""power":{"points":2,"min":200.0,"max":301.0,"mean":250.5}"#))
  }

  /// A file of many devices is never one merged track: info gives each device its line (and a
  /// track in the JSON); compare, which follows one track, refuses it with the device count.
  @Test func aFleetFileIsPerDeviceOrRefused() throws {
    let folder = try TemporaryFolder()
    let fleet = try folder.file("fleet.csv", containing: """
      device,time,lat,lon
      a,2024-05-01T07:00:00Z,35.0,139.0
      b,2024-05-01T07:00:00Z,36.0,139.0
      a,2024-05-01T07:01:00Z,35.001,139.0
      b,2024-05-01T07:01:00Z,36.002,139.0
      c,2024-05-01T08:00:00Z,37,139

      """)
    let table = try CommandRunner.run(["info", fleet])
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("    Devices:        3 (a device column: each device's fixes are a track)\n"))
    #expect(table.stdout.contains("    Device a        2 points, 0.111 km, 1 min 0 s\n"), "\(table.stdout)")
    #expect(table.stdout.contains("    Device c        1 point, 0.000 km, 0 s\n"))
    // The devices' spans overlap: their sum is device time, beside the file's own span.
    #expect(table.stdout.contains("    Device time:    2 min 0 s (all devices; file spans 1 h 0 min 0 s)\n"), "\(table.stdout)")
    #expect(!table.stdout.contains("Duration:"))
    let json = try CommandRunner.run(["info", "--format", "json", fleet])
    #expect(json.stdout.contains(#""tracks":3,"segments":3,"#) && json.stdout.contains(#""devices":["a","b","c"]"#))
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\n")
    let compare = try CommandRunner.run(["compare", "--regions", regions, fleet])
    #expect(compare.status == 65)
    #expect(compare.stderr.contains("fleet.csv: error: the file holds the fixes of 3 devices (its device column names \"a\", \"b\", \"c\")"), "\(compare.stderr)")
    #expect(compare.stdout.isEmpty)
  }
}
