import Foundation
import Testing
import _GeoWakeTestSupport

@Suite("geowake analyze")
struct AnalyzeCommandTests {
  static let demo = ["analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"]

  /// On the Tokyo recording, Apple's documented rules turn the server's 55 crossings into a
  /// handful of events.
  @Test func iosTimelineOfTheDemoTrack() throws {
    let result = try CommandRunner.run(Self.demo + ["--profile", "ios-documented"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(
      "2018-11-29T02:42:08.509Z  2018-11-29T02:36:16.457Z  aoyama-itchome    enter             crossed the boundary between fixes 558 and 559; confirmed at fix 614, 121 m inside (needed 100 m) for 20 s (needed 20 s); delivered 242 s later\n"))
    #expect(result.stdout.contains("4142 fixes used over 7 h 34 min, 8 regions monitored (profile ios-documented)\n"))
    #expect(result.stdout.contains("shibuya-crossing  3       2      3     13          4            1 h 12 min\n"))
    #expect(result.stdout.contains("no fix was on the other side, so ios-documented would not have seen it"))
  }

  /// On an Android platform the app lives by Android's runtime: receivers with 10 s, in Android's
  /// words; `--profile` is the old name of `--platform`; an iOS runtime named by the scenario gives
  /// way with a warning; iOS's significant changes are refused.
  @Test func androidPlatformsRunAndroidsRuntime() throws {
    let folder = try TemporaryFolder()
    let scenario = try folder.file("app.json", containing: #"{"profile": "ios7", "handlers": {"location": {"work": 15}}}"#)
    let run = try CommandRunner.run(Self.demo + ["--platform", "android", "--app", scenario, "--format", "jsonl"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("app.json:1:13: warning: $.profile: ios7 is a runtime of ios, but the platform is android: its android runtime applies"))
    let lines = try run.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    let wakes = lines.filter { $0["event"] as? String == "wake" }
    #expect(!wakes.isEmpty && wakes.allSatisfy { ($0["reason"] as? String)?.hasPrefix("a geofence transition broadcast to the app's receiver") == true })
    #expect(wakes.allSatisfy { $0["budgetRemaining"] as? Double == 10 })
    #expect(lines.contains { $0["event"] as? String == "terminated" && ($0["reason"] as? String)?.hasPrefix("ANR") == true })
    let old = try CommandRunner.run(Self.demo + ["--profile", "android", "--app", scenario, "--format", "jsonl"])
    #expect(old.stdout == run.stdout)
    let table = try CommandRunner.run(Self.demo + ["--platform", "android", "--app", scenario])
    #expect(table.stdout.contains("processes killed past a limit (an ANR, onMessageReceived's window, a job's 10 min):"))
    let significant = try CommandRunner.run(Self.demo + ["--platform", "android", "--significant-changes"])
    #expect(significant.status == 64 && significant.stderr.contains("no significant-location-change service"))
  }

  @Test func serverProfileMatchesTheCrossings() throws {
    let analyze = try CommandRunner.run(Self.demo + ["--profile", "server", "--format", "jsonl"])
    let crossings = try CommandRunner.run(["crossings", "--format", "jsonl", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"])
    #expect(analyze.status == 0 && crossings.status == 0)
    func objects(_ text: String) throws -> [[String: Any]] {
      try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }
    let events = try objects(analyze.stdout)
    let raw = try objects(crossings.stdout)
    let plain = raw.filter { $0["passThrough"] as? Bool == false }
    let transitions = events.filter { ["enter", "exit"].contains($0["event"] as? String) }
    #expect(transitions.count == plain.count)
    #expect(transitions.map { $0["region"] as? String } == plain.map { $0["region"] as? String })
    #expect(events.filter { $0["event"] as? String == "passThrough" }.count * 2 == raw.count - plain.count)
    for e in events {
      for key in ["event", "region", "at", "crossedAt", "deliveredAt", "lat", "lon", "state", "reason"] { #expect(e[key] != nil, "\(key)") }
      // The server delivers each event when the fix that shows it comes: at the delivery.
      #expect(e["at"] as? String == e["deliveredAt"] as? String)
    }
  }

  /// Android rules on the same track: dwell events and their column, the 85 % / 75 % thresholds.
  @Test func androidProfileDwells() throws {
    let result = try CommandRunner.run(Self.demo + ["--profile", "android-documented"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("aoyama-itchome    dwell             inside for the android-documented profile's loitering delay of 300 s"))
    #expect(result.stdout.contains("region            enters  exits  pass  dwells  suppressed  undelivered  time inside\n"))
    #expect(result.stdout.contains("aoyama-itchome    2       2      0     2       0           0            15 min 41 s\n"))
    #expect(result.stdout.contains("8 regions monitored (profile android-documented)"))
  }

  /// Every format has every event: as many as JSON Lines has lines.
  @Test func everyFormatHasEveryEvent() throws {
    let lines = try CommandRunner.run(Self.demo + ["--profile", "ios-documented", "--format", "jsonl"]).stdout.split(separator: "\n").count
    #expect(lines == 21)
    let csv = try CommandRunner.run(Self.demo + ["--profile", "ios-documented", "--format", "csv"])
    #expect(csv.status == 0 && csv.stdout.split(separator: "\n").count == lines + 1)
    let geojson = try CommandRunner.run(Self.demo + ["--profile", "ios-documented", "--format", "geojson"])
    #expect(geojson.status == 0 && geojson.stdout.components(separatedBy: "\"kind\":\"event\"").count - 1 == lines)
    #expect(geojson.stdout.components(separatedBy: "\"kind\":\"region\"").count - 1 == 8)
    let html = try CommandRunner.run(Self.demo + ["--profile", "ios-documented", "--format", "html"])
    #expect(html.status == 0 && html.stdout.components(separatedBy: "<tr id=\"row-").count - 1 == lines)
    #expect(html.stdout.contains("<title>GeoWake: GPXTest-TrackPointOnly.gpx</title>"))
    #expect(html.stdout.contains("4142 fixes used over 7 h 34 min"))
  }

  /// The progress bar is off when standard error is not a terminal; when forced on it reaches
  /// 100 % and erases itself, and the output is unchanged.
  @Test func progressBarOnlyWhenWanted() throws {
    let quiet = try CommandRunner.run(Self.demo)
    #expect(quiet.stderr.isEmpty)
    let shown = try CommandRunner.run(Self.demo, environment: ["GEOWAKE_PROGRESS": "always"])
    #expect(shown.stdout == quiet.stdout)
    #expect(shown.stderr.hasPrefix("\ranalyze [") && shown.stderr.contains("] 100% of 0.5 MB"))
    #expect(shown.stderr.hasSuffix("\r\u{1B}[K"))
    // A seed spread reads the track again for each seed: its own bar, over every pass, to 100 %.
    let seeds = try CommandRunner.run(Self.demo + ["--seeds", "3"], environment: ["GEOWAKE_PROGRESS": "always"])
    #expect(seeds.stderr.contains("\rseeds [") && seeds.stderr.contains("] 100% of 1.5 MB"), "\(seeds.stderr.suffix(200))")
    #expect(seeds.stdout == (try CommandRunner.run(Self.demo + ["--seeds", "3"])).stdout)
  }

  /// A truncated GPX track: refused (65) by default; with --lenient the points before the cut
  /// are analysed, the recoveries are warnings on standard error and counted in the summary.
  @Test func lenientReadsATruncatedTrack() throws {
    let folder = try TemporaryFolder()
    let full = try FixtureFiles.text("gpx/coregpx/GPXTest-TrackPointOnly.gpx")
    let cut = try folder.file("cut.gpx", containing: String(full.utf8.prefix(full.utf8.count * 3 / 4))!)
    let args = ["analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", cut]
    let strict = try CommandRunner.run(args)
    #expect(strict.status == 65 && strict.stderr.contains("error: file ends inside"))
    let lenient = try CommandRunner.run(args + ["--lenient"])
    #expect(lenient.status == 0, "\(lenient.stderr)")
    #expect(lenient.stderr.contains("cut.gpx:") && lenient.stderr.contains(": warning: file ends inside <"))
    #expect(lenient.stderr.contains("recovered: closed </"))
    #expect(lenient.stdout.contains("damage recovered from (--lenient): "))
    #expect(lenient.stdout.contains("fixes used over"))
    let info = try CommandRunner.run(["info", "--lenient", "--format", "json", cut])
    #expect(info.status == 0 && info.stdout.contains("\"trackPoints\":"))
  }

  @Test func outputIsDeterministicAndNeverPartial() throws {
    let folder = try TemporaryFolder()
    let out = folder.url.path + "/timeline.jsonl"
    let first = try CommandRunner.run(Self.demo + ["--format", "jsonl", "-o", out])
    #expect(first.status == 0)
    let written = try String(contentsOfFile: out, encoding: .utf8)
    #expect(written == (try CommandRunner.run(Self.demo + ["--format", "jsonl"])).stdout)
    // An existing output is kept without --force; replaced with it.
    #expect(try CommandRunner.run(Self.demo + ["-o", out]).status == 73)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == written)
    // A damaged track leaves no file behind.
    let cut = try folder.file("cut.gpx", containing: "<gpx><trk><trkseg>\n<trkpt lat=\"35.67\" lon=\"139.72\"><time>2018-11-29T02:00:00Z</time></trkpt>\n<trkpt lat=\"x\"")
    let damaged = try CommandRunner.run(["analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", cut, "-o", folder.url.path + "/new.txt"])
    #expect(damaged.status == 65)
    #expect(damaged.stderr.hasPrefix("\(cut):3:"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["cut.gpx", "timeline.jsonl"])
  }

  @Test func usageErrorsExit64() throws {
    #expect(try CommandRunner.run(Self.demo + ["--profile", "windows"]).status == 64)
    #expect(try CommandRunner.run(Self.demo + ["--format", "xml"]).status == 64)
  }

  /// `--seeds`: the region monitoring replayed with each seed, and per region the spread of what
  /// the app was told; the same seeds give the same spread; the server profile has none (every
  /// seed gives the geometric truth); it needs one track file and regions.
  @Test func seedsShowTheSpread() throws {
    let args = ["analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"]
    let run = try CommandRunner.run(args + ["--seeds", "8", "--seed", "3"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("\nspread over 8 seeds (3 to 10, profile ios): per seed, median (range)\n"))
    let rows = run.stdout.components(separatedBy: "spread over")[1].split(separator: "\n").dropFirst(2)
    #expect(rows.count >= 5)
    #expect(rows.contains { $0.hasPrefix("shibuya-crossing ") && $0.contains("–") })
    #expect(try CommandRunner.run(args + ["--seeds", "8", "--seed", "3"]).stdout == run.stdout)
    let server = try CommandRunner.run(args + ["--seeds", "4", "--profile", "server"])
    let serverRows = server.stdout.components(separatedBy: "spread over")[1].split(separator: "\n").dropFirst(2)
    for row in serverRows {
      let cells = row.split(separator: " ", omittingEmptySubsequences: true)
      #expect(!cells[1].contains("(") && !cells[2].contains("("), "\(row)")
      #expect(row.contains(" 0 of "), "\(row)")
    }
    let stdin = try CommandRunner.run(["analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", "-", "--seeds", "3"])
    #expect(stdin.status == 64 && stdin.stderr.contains("--seeds needs one track file"))
    #expect(try CommandRunner.run(args + ["--seeds", "0"]).status == 64)
    let cellsOnly = try CommandRunner.run(["analyze", "--synthetic-cells", "urban", "Fixtures/demo/tokyo-track.csv", "--seeds", "3"])
    #expect(cellsOnly.status == 64 && cellsOnly.stderr.contains("--seeds needs --regions"))
  }

  /// GeoJSON regions with notify flags: the exits of a region that only wants entries are kept,
  /// undelivered, with the reason.
  @Test func geoJSONRegionsWithNotifyFlags() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("tokyo.geojson", containing: """
      {"type": "FeatureCollection", "features": [
        {"type": "Feature", "id": "aoyama-itchome", "properties": {"radius": 200, "notifyOnExit": false},
         "geometry": {"type": "Point", "coordinates": [139.7240, 35.6727]}}]}
      """)
    let check = try CommandRunner.run(["regions", "check", regions])
    #expect(check.status == 0)
    #expect(check.stdout == "\(regions): 1 region, all valid: 1 circle (radius 200.0 … 200.0 m), 0 polygons\n  aoyama-itchome: notifies on entry only\n")
    let result = try CommandRunner.run(["analyze", "--regions", regions, "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  2018-11-29T02:46:24.751Z  aoyama-itchome    exit "))
    #expect(result.stdout.contains("not delivered: notifyOnExit is off\n"))
  }

  @Test func regionsCheckLocatesTheProblem() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\na,1,2,3\na,1,2,3\n")
    let result = try CommandRunner.run(["regions", "check", regions])
    #expect(result.status == 65)
    #expect(result.stderr == "\(regions):3:1: error: duplicate region identifier \"a\" (first on line 2): expected unique identifiers\n")
  }

  @Test(arguments: ["check", "analyze", "crossings"])
  func invalidPolygonIsRejectedWithGEOSReasonAndPlace(_ command: String) throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file(
      "bow.json",
      containing: "{\"type\":\"Feature\",\"id\":\"bow\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}")
    let track = try folder.file("t.csv", containing: "time,lat,lon\n0,0.5,0.2\n60,0.5,0.8\n")
    let arguments =
      switch command {
      case "check": ["regions", "check", regions]
      case "analyze": ["analyze", "--regions", regions, track]
      default: ["crossings", "--regions", regions, track]
      }
    let result = try CommandRunner.run(arguments)
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("\(regions):1:41: error: region \"bow\": invalid polygon: Self-intersection[0.5 0.5]"))
  }
}
