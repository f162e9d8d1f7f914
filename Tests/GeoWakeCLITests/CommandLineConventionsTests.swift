import Foundation
import Testing
import _GeoWakeTestSupport

/// What a user types the way other tools accept it: negative numbers as values, a misspelled
/// option named with its likely meaning, `--version`, formats and profiles in any case, and
/// standard input in every track format.
@Suite("Command-line conventions")
struct CommandLineConventionsTests {
  @Test func negativeNumbersAreValues() throws {
    let sydney = try CommandRunner.run(["generate", "track", "--center", "-33.86,151.21", "--count", "20", "--format", "csv"])
    #expect(sydney.status == 0, "\(sydney.stderr)")
    let rows = sydney.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    #expect(rows.count == 20)
    #expect(rows.allSatisfy { abs(Double($0[1])! + 33.86) < 0.1 && abs(Double($0[2])! - 151.21) < 0.1 })

    let usage = try CommandRunner.run(["generate", "usage", "--utc-offset", "-05:00", "--days", "3"])
    #expect(usage.status == 0, "\(usage.stderr)")
    let times = usage.stdout.split(separator: "\n").dropFirst()
    #expect(!times.isEmpty && times.allSatisfy { $0.split(separator: ",")[0].hasSuffix("-05:00") })

    // A value that cannot be: said so, not "missing".
    let seed = try CommandRunner.run(["generate", "track", "--seed", "-1", "--count", "2"])
    #expect(seed.status == 64)
    #expect(seed.stderr.contains("'-1' is invalid for '--seed"))
    #expect(!seed.stderr.contains("Missing value"))
  }

  @Test(arguments: [
    (["analyze", "--region", "r.csv", "t.csv"], "'--region'. Did you mean '--regions'?"),
    (["analyze", "--regions", "r.csv", "--ap", "a.json", "--pushes", "p.jsonl", "t.csv"], "'--ap'"),
    (["crossings", "--regions", "r.csv", "--formt", "jsonl", "t.csv"], "'--formt'. Did you mean '--format'?"),
  ])
  func aMisspelledOptionIsNamedBeforeWhatItLeavesMissing(_ arguments: [String], _ expected: String) throws {
    let run = try CommandRunner.run(arguments)
    #expect(run.status == 64)
    #expect(run.stderr.contains("Unknown option " + expected), "\(run.stderr)")
  }

  @Test func versionIsPrinted() throws {
    let run = try CommandRunner.run(["--version"])
    #expect(run.status == 0)
    let parts = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
    #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(run.stdout)")
  }

  @Test func formatsAndProfilesInAnyCase() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\n")
    let track = try folder.file("t.csv", containing: "time,lat,lon,accuracy\n0,35.0,139.0,5\n600,35.0,139.01,5\n1200,35.0,139.0,5\n")
    let lower = try CommandRunner.run(["analyze", "--regions", regions, "--profile", "android", "--format", "jsonl", track])
    let upper = try CommandRunner.run(["analyze", "--regions", regions, "--profile", "Android", "--format", "JSONL", track])
    #expect(lower.status == 0 && upper.status == 0, "\(upper.stderr)")
    #expect(!lower.stdout.isEmpty && upper.stdout == lower.stdout)
  }

  /// Every track format reads the same from standard input as from its file, its format sniffed
  /// from its first bytes.
  @Test func standardInputInEveryTrackFormat() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\na,35.6586,139.7454,300\nb,35.6654,139.7120,500\nc,35.66,139.70,2000\n")
    let gpx = try String(contentsOfFile: FixtureFiles.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx").path, encoding: .utf8)
    let csv = "\u{FEFF}time,lat,lon\n" + gpxPoints(gpx).map { "\($0.time),\($0.lat),\($0.lon)\n" }.joined()
    let jsonLines = "\n  " + gpxPoints(gpx).map { "{\"time\":\"\($0.time)\",\"lat\":\($0.lat),\"lon\":\($0.lon)}\n" }.joined()
    var outputs: [String] = []
    for (name, text) in [("t.gpx", gpx), ("t.csv", csv), ("t.jsonl", jsonLines)] {
      let file = try folder.file(name, containing: text)
      for command in [["crossings", "--regions", regions, "--format", "jsonl"], ["analyze", "--regions", regions, "--profile", "server", "--format", "jsonl"]] {
        let fromFile = try CommandRunner.run(command + [file])
        let fromStandardInput = try CommandRunner.run(command + ["-"], stdin: text)
        #expect(fromFile.status == 0 && fromStandardInput.status == 0, "\(name): \(fromStandardInput.stderr)")
        #expect(!fromFile.stdout.isEmpty)
        #expect(fromStandardInput.stdout == fromFile.stdout, "\(name) \(command[0])")
        if command[0] == "crossings" { outputs.append(fromStandardInput.stdout) }
      }
    }
    // The three formats hold the same fixes: the same crossings.
    #expect(Set(outputs).count == 1)
  }

  /// Region files read the same from standard input as from their file, in every region format.
  @Test func standardInputInEveryRegionFormat() throws {
    let folder = try TemporaryFolder()
    let csv = "id,lat,lon,radius\na,35.6586,139.7454,300\nb,35.6654,139.7120,500\n"
    let json = #"[{"id": "a", "lat": 35.6586, "lon": 139.7454, "radius": 300}, {"id": "b", "lat": 35.6654, "lon": 139.7120, "radius": 500}]"#
    let geojson = #"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "a", "properties": {"radius": 300}, "geometry": {"type": "Point", "coordinates": [139.7454, 35.6586]}}, {"type": "Feature", "id": "p", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[139.70, 35.66], [139.72, 35.66], [139.72, 35.67], [139.70, 35.66]]]}}]}"#
    let track = FixtureFiles.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx").path
    for (name, text) in [("r.csv", csv), ("r.json", json), ("r.geojson", geojson)] {
      let file = try folder.file(name, containing: text)
      for command in [["regions", "check"], ["crossings", "--format", "jsonl", track, "--regions"]] {
        let fromFile = try CommandRunner.run(command + [file])
        let fromStandardInput = try CommandRunner.run(command + ["-"], stdin: text)
        #expect(fromFile.status == 0 && fromStandardInput.status == 0, "\(name): \(fromStandardInput.stderr)")
        #expect(fromStandardInput.stdout == fromFile.stdout.replacingOccurrences(of: file, with: "-"), "\(name) \(command[0])")
      }
    }
  }

  /// Every command that writes results, for every common extension: `-o x.EXT` without
  /// `--format` either writes that format (read back as such) or is refused with status 64,
  /// naming the formats the command writes, before anything is written.
  @Test func everyExtensionIsWrittenOrRefused() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\n")
    let track = try folder.file(
      "t.csv", containing: "time,lat,lon,accuracy\n1714546800,35.0,139.0,5\n1714547400,35.0,139.01,5\n1714548000,35.0,139.0,5\n")
    let commands: [[String]] = [
      ["analyze", "--regions", regions, track], ["crossings", "--regions", regions, track], ["compare", "--regions", regions, track],
      ["info", track], ["fetch", "--usage", "Fixtures/fetch/morning-checker.csv"],
      ["push", "--schedule", "Fixtures/push/news-app.jsonl"], ["fidelity", "Fixtures/fidelity/mobilitynet", "--seeds", "1"],
      ["generate", "track", "--count", "20"], ["generate", "regions", "--count", "5"],
    ]
    for (k, command) in commands.enumerated() {
      for ext in ["csv", "jsonl", "json", "html", "geojson", "txt"] {
        let path = folder.path("out\(k).\(ext)")
        let result = try CommandRunner.run(command + ["-o", path])
        let label = "\(command.prefix(2).joined(separator: " ")) -o x.\(ext)"
        if result.status == 64 {
          #expect(result.stderr.contains("names \(ext == "txt" ? "table" : ext), which this command does not write: it writes "), "\(label): \(result.stderr)")
          #expect(!FileManager.default.fileExists(atPath: path), "\(label)")
          continue
        }
        #expect(result.status == 0, "\(label): \(result.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        switch ext {
        case "csv":
          // A header of names and rows of as many fields (RFC 4180: a quoted field may hold commas).
          let rows = text.split(separator: "\n").map { line in
            var (fields, quoted) = (1, false)
            for c in line { if c == "\"" { quoted.toggle() } else if c == "," && !quoted { fields += 1 } }
            return quoted ? -1 : fields
          }
          #expect(rows.count >= 2 && rows.allSatisfy { $0 == rows[0] } && rows[0] >= 2, "\(label)")
        case "jsonl":
          for line in text.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(label): \(line)")
          }
        case "json", "geojson":
          #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any], "\(label)")
        case "html":
          #expect(text.hasPrefix("<!DOCTYPE html>") && text.contains("</html>"), "\(label)")
        default:
          // A table: not mistaken for any other format.
          #expect(!text.hasPrefix("{") && !text.hasPrefix("<"), "\(label)")
        }
      }
    }
  }

  /// `-o` names the format when `--format` does not; when both are given and disagree, `--format`
  /// wins with a warning. Every command that prints results takes `--format` and `-o`.
  @Test func outputFilesAndFormats() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\n")
    let track = try folder.file(
      "t.csv", containing: "time,lat,lon,accuracy\n1714546800,35.0,139.0,5\n1714547400,35.0,139.01,5\n1714548000,35.0,139.0,5\n")
    func read(_ name: String) throws -> String { try String(contentsOfFile: folder.path(name), encoding: .utf8) }

    let html = try CommandRunner.run(["analyze", "--regions", regions, track, "-o", folder.path("report.html")])
    #expect(html.status == 0 && html.stderr.isEmpty, "\(html.stderr)")
    #expect(try read("report.html").hasPrefix("<!DOCTYPE html>"))
    let disagreeing = try CommandRunner.run(["analyze", "--regions", regions, track, "--format", "table", "-o", folder.path("table.html")])
    #expect(disagreeing.status == 0)
    #expect(disagreeing.stderr.contains("table.html is named like html, but --format is table"))
    #expect(try !read("table.html").contains("<html"))
    // JSON Lines is not JSON: a .json file gets it only when asked for, with the same warning.
    let lines = try CommandRunner.run(["analyze", "--regions", regions, track, "--format", "jsonl", "-o", folder.path("a.json")])
    #expect(lines.status == 0 && lines.stderr.contains("a.json is named like json, but --format is jsonl"), "\(lines.stderr)")

    let csvTrack = try CommandRunner.run(["generate", "track", "--count", "50", "-o", folder.path("g.csv")])
    #expect(csvTrack.status == 0)
    #expect(try read("g.csv").hasPrefix("time,lat,lon"))
    _ = try CommandRunner.run(["generate", "regions", "--count", "5", "-o", folder.path("g.geojson")])
    #expect(try read("g.geojson").hasPrefix("{"))

    let crossings = try CommandRunner.run(["crossings", "--regions", regions, track, "--format", "jsonl"])
    #expect(crossings.stdout.split(separator: "\n").count == 2)
    _ = try CommandRunner.run(["crossings", "--regions", regions, track, "-o", folder.path("c.jsonl")])
    #expect(try read("c.jsonl") == crossings.stdout)

    _ = try CommandRunner.run(["info", track, "-o", folder.path("i.json")])
    let info = try JSONSerialization.jsonObject(with: Data(read("i.json").utf8)) as? [String: Any]
    #expect(info?["trackPoints"] as? Int == 3)

    let compare = try CommandRunner.run(["compare", track, "--regions", regions, "--format", "jsonl"])
    #expect(compare.status == 0, "\(compare.stderr)")
    let strategies = compare.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    #expect(strategies.count == 2)
    #expect(strategies.allSatisfy { $0["crossings"] as? Int == 2 && $0["strategy"] is String && $0["wakes"] is Int })
    _ = try CommandRunner.run(["compare", track, "--regions", regions, "-o", folder.path("cmp.txt")])
    #expect(try read("cmp.txt").hasPrefix("strategy"))
  }

  /// `generate` does not pour megabytes onto a terminal; a pipe or a file gets them.
  @Test func generateRefusesToFloodATerminal() throws {
    let text = try Self.inTerminal(CommandRunner.executable.path + " generate track; echo status $?")
    #expect(text.contains("status 64"))
    #expect(text.contains("this would print about 125 MB to the terminal: give -o FILE, or pipe the output"))
    let piped = try CommandRunner.run(["generate", "track", "--count", "30000", "--format", "csv"])
    #expect(piped.status == 0 && piped.stdout.split(separator: "\n").count == 30_001)
  }

  /// `generate regions --along FILE` places its regions on that track, wherever it is, not on
  /// the generated city track.
  @Test(arguments: ["-33.86,151.21", "64.15,-21.94", "-0.18,-78.47"])
  func generatedRegionsLieAlongTheTrackGiven(center: String) throws {
    let folder = try TemporaryFolder()
    let track = folder.path("walk.csv")
    #expect(try CommandRunner.run(["generate", "track", "--count", "3000", "--center", center, "-o", track]).status == 0)
    let regions = folder.path("r.csv")
    let generated = try CommandRunner.run(["generate", "regions", "--count", "40", "--along", track, "-o", regions])
    #expect(generated.status == 0, "\(generated.stderr)")
    let fixes = try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    let rows = try String(contentsOfFile: regions, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    #expect(rows.count == 40)
    // Half of them on the track: their centre within their radius of a fix (flat-earth metres,
    // ample at these sizes).
    let onTrack = rows.filter { row in
      let (lat, lon, radius) = (Double(row[1])!, Double(row[2])!, Double(row[3])!)
      return fixes.contains { fix in
        let dy = (Double(fix[1])! - lat) * 111_000
        let dx = (Double(fix[2])! - lon) * 111_000 * cos(lat * .pi / 180)
        return (dx * dx + dy * dy).squareRoot() <= radius
      }
    }
    #expect(onTrack.count >= 15, "\(onTrack.count) of 40 on the track")
    let crossings = try CommandRunner.run(["crossings", "--regions", regions, track, "--format", "jsonl"])
    #expect(crossings.status == 0 && crossings.stderr.isEmpty, "\(crossings.stderr)")
  }

  /// Runs `command` (a shell command line) with a pseudo-terminal as its standard output and
  /// error, and returns what the terminal shows.
  static func inTerminal(_ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text
  }

  /// The progress bar shares the terminal only with diagnostics: not drawn while results print
  /// there, drawn (in megabytes of 10⁶ bytes) and erased when they go to a file.
  @Test func theProgressBarNeverMixesWithResults() throws {
    let folder = try TemporaryFolder()
    let track = folder.path("big.gpx")
    #expect(try CommandRunner.run(["generate", "track", "--count", "80000", "-o", track]).status == 0)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: track)[.size] as? Int)
    #expect(size >= 8 << 20)
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nsf,37.77,-122.42,500\n")
    let binary = CommandRunner.executable.path
    let toTerminal = try Self.inTerminal("\(binary) analyze --profile server --regions \(regions) \(track)")
    #expect(toTerminal.contains("fixes used") && !toTerminal.contains("% of"))
    let toFile = try Self.inTerminal("\(binary) analyze --profile server --regions \(regions) \(track) -o \(folder.path("out.txt"))")
    let tenths = (size + 50_000) / 100_000
    #expect(toFile.contains("analyze [") && toFile.contains("% of \(tenths / 10).\(tenths % 10) MB"), "\(toFile.suffix(200))")
    #expect(toFile.hasSuffix("\r\u{1B}[K"))
    // A compressed track: progress through its compressed bytes, not a jump to 100 %.
    let compressed = folder.path("big.gpx.gz")
    try CompressedTrack.gzip(track, to: compressed)
    let gzSize = try #require(try FileManager.default.attributesOfItem(atPath: compressed)[.size] as? Int)
    let shown = try Self.inTerminal("GEOWAKE_PROGRESS=always \(binary) analyze --profile server --regions \(regions) \(compressed) -o \(folder.path("gz.txt"))")
    let percents = shown.split(separator: "\r").compactMap { part -> Int? in
      guard let close = part.firstIndex(of: "]"), let percent = part.range(of: "%") else { return nil }
      return Int(part[part.index(close, offsetBy: 2)..<percent.lowerBound])
    }
    let gzTenths = (gzSize + 50_000) / 100_000
    #expect(shown.contains("% of \(gzTenths / 10).\(gzTenths % 10) MB"), "\(shown.suffix(200))")
    #expect(percents.first.map { $0 < 100 } == true && percents.last == 100, "\(percents)")
  }

  /// The `time`, `lat` and `lon` of each track point of a GPX text.
  func gpxPoints(_ gpx: String) -> [(time: Substring, lat: Substring, lon: Substring)] {
    gpx.split(separator: "<trkpt").dropFirst().compactMap { point in
      func attribute(_ name: String) -> Substring? {
        guard let start = point.range(of: name + "=\"") else { return nil }
        return point[start.upperBound...].prefix { $0 != "\"" }
      }
      guard let lat = attribute("lat"), let lon = attribute("lon"), let t = point.range(of: "<time>") else { return nil }
      return (point[t.upperBound...].prefix { $0 != "<" }, lat, lon)
    }
  }
}

/// Gzip-compresses files with the system's gzip, for tests of compressed input.
enum CompressedTrack {
  static func gzip(_ path: String, to destination: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -c -n \"$0\" > \"$1\"", path, destination]
    try process.run()
    process.waitUntilExit()
  }
}
