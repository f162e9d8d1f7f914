import Foundation
import Testing
import _GeoWakeTestSupport

/// Tables for a terminal fit it (`GEOWAKE_COLUMNS` stands for the terminal's width here, where
/// the output is a pipe) and lose nothing: every reason the JSON Lines give is in the text,
/// wrapped; piped without it, rows are whole.
@Suite("Terminal width")
struct TerminalWidthTests {
  static let analyze = [
    "analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx", "--app", "Fixtures/demo/app-scenario.json",
  ]
  static let fetch = ["fetch", "--usage", "Fixtures/fetch/morning-checker.csv", "--feed", "Fixtures/fetch/news-feed.csv"]

  /// `text` with every run of spaces and line breaks made one space: wrapping undone.
  static func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }

  @Test(arguments: [80, 120, 200])
  func theDemoFitsAndLosesNothing(columns: Int) throws {
    let push = ["push", "--schedule", "Fixtures/push/news-app.jsonl", "--connectivity", "Fixtures/push/news-app-connectivity.csv"]
    for (command, reasonKey) in [(Self.analyze, "reason"), (Self.fetch, "reason"), (push, "reason")] {
      let table = try CommandRunner.run(command, environment: ["GEOWAKE_COLUMNS": "\(columns)"])
      #expect(table.status == 0, "\(table.stderr)")
      let long = table.stdout.split(separator: "\n").filter { $0.count > columns }
      #expect(long.isEmpty, "\(command[0]) at \(columns): \(long.prefix(2))")
      let lines = try CommandRunner.run(command + ["--format", "jsonl"]).stdout.split(separator: "\n")
      let text = Self.flat(table.stdout)
      var reasons = 0
      for line in lines {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        // analyze and push list every entry; fetch's table lists the scheduler's own steps.
        guard let reason = object[reasonKey] as? String, command[0] != "fetch" || object["category"] as? String == "fetch" else { continue }
        reasons += 1
        #expect(text.contains(Self.flat(reason)), "\(command[0]) at \(columns): \(reason)")
      }
      #expect(reasons > 10)
    }
  }

  /// Times on the track's own clock when its times name an offset (`--utc` for UTC), the zone
  /// named in the header and on each day's line; JSON Lines stay UTC.
  @Test func tablesShowTheTracksOwnClock() throws {
    let folder = try TemporaryFolder()
    let track = try folder.file("tokyo.csv", containing: """
      time,lat,lon
      2018-11-29T11:29:00+09:00,35.6727,139.7240
      2018-11-29T11:30:00+09:00,35.6740,139.7240
      2018-11-29T11:31:00+09:00,35.6760,139.7240

      """)
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,35.6740,139.7240,80\n")
    let command = ["analyze", "--profile", "server", "--regions", regions, track]
    let local = try CommandRunner.run(command)
    #expect(local.stdout.hasPrefix("at (UTC+09:00)                 crossed at (UTC+09:00)         region"), "\(local.stdout)")
    #expect(local.stdout.contains("\n2018-11-29T11:30:00.000+09:00  2018-11-29T11:29:26.722+09:00  home              enter "))
    let narrow = try CommandRunner.run(command, environment: ["GEOWAKE_COLUMNS": "80"])
    #expect(narrow.stdout.contains("\n2018-11-29 (UTC+09:00)\n11:30:00.000  11:29:26.722  home "), "\(narrow.stdout)")
    let utc = try CommandRunner.run(command + ["--utc"])
    #expect(utc.stdout.contains("\n2018-11-29T02:30:00.000Z  2018-11-29T02:29:26.722Z  home "))
    let jsonl = try CommandRunner.run(command + ["--format", "jsonl"])
    #expect(jsonl.stdout.contains(#""at":"2018-11-29T02:30:00.000000Z","crossedAt":"2018-11-29T02:29:26.721865Z""#))
    // The same in JSON Lines tracks.
    let lines = try folder.file("tokyo.jsonl", containing: """
      {"time": "2018-11-29T11:29:00+09:00", "lat": 35.6727, "lon": 139.7240}
      {"time": "2018-11-29T11:30:00+09:00", "lat": 35.6740, "lon": 139.7240}
      {"time": "2018-11-29T11:31:00+09:00", "lat": 35.6760, "lon": 139.7240}

      """)
    #expect(try CommandRunner.run(["analyze", "--profile", "server", "--regions", regions, lines]).stdout == local.stdout)
    // crossings keeps the same clock.
    let crossings = try CommandRunner.run(["crossings", "--regions", regions, track]).stdout
    #expect(crossings.hasPrefix("time (UTC+09:00)               region"))
    #expect(crossings.contains("\n2018-11-29T11:29:26.722+09:00  home              enter  35.6732790   139.7240000   0→1\n"), "\(crossings)")
    let crossingsUTC = try CommandRunner.run(["crossings", "--regions", regions, track, "--utc"]).stdout
    #expect(crossingsUTC.contains("\n2018-11-29T02:29:26.722Z  home              enter  35.6732790   139.7240000   0→1\n"))
    let narrowCrossings = try CommandRunner.run(["crossings", "--regions", regions, track], environment: ["GEOWAKE_COLUMNS": "80"]).stdout
    #expect(narrowCrossings.contains("\n2018-11-29 (UTC+09:00)\n11:29:26.722  home "))
  }

  /// crossings and compare fit too; piped, crossings' rows are whole, with full dates.
  @Test func crossingsAndCompareFit() throws {
    let regions = ["--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"]
    for command in [["crossings"] + regions, ["compare"] + regions] {
      let table = try CommandRunner.run(command, environment: ["GEOWAKE_COLUMNS": "80"])
      #expect(table.status == 0, "\(table.stderr)")
      let long = table.stdout.split(separator: "\n").filter { $0.count > 80 }
      #expect(long.isEmpty, "\(command[0]): \(long.prefix(2))")
    }
    let narrow = try CommandRunner.run(["crossings"] + regions, environment: ["GEOWAKE_COLUMNS": "80"]).stdout
    #expect(narrow.contains("\n2018-11-29 (UTC)\n02:29:48.141  aoyama-itchome    enter  35.672253  139.721860  512→513\n"))
    #expect(narrow.contains("  2031→2032  pass\n"))
    let piped = try CommandRunner.run(["crossings"] + regions).stdout
    #expect(piped.hasPrefix("time (UTC)                region"))
    #expect(piped.contains("\n2018-11-29T02:29:48.141Z  aoyama-itchome    enter  35.6722535   139.7218598   512→513\n"))
    // The same crossings: as many rows, one per crossing.
    #expect(narrow.split(separator: "\n").filter { $0.contains("→") }.count == piped.split(separator: "\n").filter { $0.contains("→") }.count)
  }

  /// Many devices fit too: each device's rows under a line naming it, as one device's are.
  @Test func manyDevicesFit() throws {
    let folder = try TemporaryFolder()
    let tracks = folder.path("tracks")
    try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: true)
    for name in ["van-1", "bike"] {
      try FileManager.default.copyItem(atPath: FixtureFiles.url("demo/tokyo-track.csv").path, toPath: tracks + "/\(name).csv")
    }
    for command in ["crossings", "analyze"] {
      let arguments = [command, "--regions", "Fixtures/demo/tokyo-regions.csv", tracks]
      let narrow = try CommandRunner.run(arguments, environment: ["GEOWAKE_COLUMNS": "80"])
      #expect(narrow.status == 0, "\(narrow.stderr)")
      #expect(narrow.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(command)")
      #expect(narrow.stdout.contains("\ndevice bike\n2018-11-29 (UTC)\n") && narrow.stdout.contains("\ndevice van-1\n2018-11-29 (UTC)\n"), "\(command)")
      // Piped: every row starts with its device, as before.
      let piped = try CommandRunner.run(arguments)
      #expect(piped.stdout.split(separator: "\n").dropFirst().prefix(5).allSatisfy { $0.hasPrefix("bike ") }, "\(command)")
    }
  }

  /// The region column is as wide as the longest region name, so that a long name does not push
  /// the columns after it out of line (one device and many, analyze and crossings).
  @Test func regionColumnsFitTheirNames() throws {
    let folder = try TemporaryFolder()
    let long = "the-very-long-region-name-here"
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\n\(long),35.6740,139.7240,80\nx,35.0,139.0,50\n")
    let track = try folder.file("t.csv", containing: """
      time,lat,lon
      2018-11-29T02:29:00Z,35.6727,139.7240
      2018-11-29T02:30:00Z,35.6740,139.7240
      2018-11-29T02:31:00Z,35.6760,139.7240

      """)
    let crossings = try CommandRunner.run(["crossings", "--regions", regions, track]).stdout.split(separator: "\n")
    #expect(crossings[0] == "time (UTC)                region                          event  lat          lon           fixes         note")
    #expect(crossings[1].hasPrefix("2018-11-29T02:29:26.722Z  \(long)  enter  35.67"))
    let analyze = try CommandRunner.run(["analyze", "--profile", "server", "--regions", regions, track]).stdout.split(separator: "\n")
    #expect(analyze[0].hasPrefix("at (UTC)                  crossed at (UTC)          region                          event             reason"))
    #expect(analyze[1].contains("  \(long)  enter             crossed"))
    #expect(analyze.contains { $0.hasPrefix("\(long)  1       1") }, "\(analyze)")
  }

  /// A population's tables fit too, in blocks that each start with the strategy or the user.
  @Test func aPopulationFits() throws {
    let folder = try TemporaryFolder()
    let users = folder.path("users")
    #expect(try CommandRunner.run(["generate", "usage", "--population", "5", "--seed", "21", "-o", users]).status == 0)
    let table = try CommandRunner.run(["fetch", "--usage", users, "--report-only"], environment: ["GEOWAKE_COLUMNS": "80"])
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
    let names = try FileManager.default.contentsOfDirectory(atPath: users)
    #expect(names.count == 5 && names.allSatisfy { name in table.stdout.components(separatedBy: "\n" + name + " ").count - 1 == 2 }, "\(table.stdout)")
    let piped = try CommandRunner.run(["fetch", "--usage", users, "--report-only"])
    #expect(piped.stdout.split(separator: "\n").contains { $0.count > 80 })
  }

  @Test func pipedRowsAreWholeAndWideKeepsThem() throws {
    let piped = try CommandRunner.run(Self.analyze)
    let wide = try CommandRunner.run(Self.analyze + ["--wide"], environment: ["GEOWAKE_COLUMNS": "80"])
    #expect(piped.stdout == wide.stdout)
    #expect(piped.stdout.hasPrefix("at (UTC)                  crossed at (UTC)          region"))
    #expect(piped.stdout.split(separator: "\n").contains { $0.count > 120 })
    let narrow = try CommandRunner.run(Self.analyze, environment: ["GEOWAKE_COLUMNS": "80"])
    #expect(narrow.stdout.hasPrefix("at            crossed at    region            event             reason\n2018-11-29 (UTC)\n"))
  }
}
