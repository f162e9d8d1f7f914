import Foundation
import Testing
import _GeoWakeTestSupport

/// Input that is read without an error but cannot be what the user meant is an error or a warning,
/// never silence.
@Suite("Suspicious input")
struct SuspiciousInputTests {
  static let regions = "Fixtures/demo/tokyo-regions.csv"
  static let track = "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"

  @Test func epochMillisecondsAreReadAsMilliseconds() throws {
    let folder = try TemporaryFolder()
    for (name, scale) in [("s", 1.0), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)] {
      let times = [1_543_456_138.0, 1_543_456_139.5].map { String(format: "%.0f", $0 * scale) }
      let csv = try folder.file("\(name).csv", containing: "time,lat,lon\n\(times[0]),35.6,139.7\n\(times[1]),35.6,139.71\n")
      let info = try CommandRunner.run(["info", "--format", "json", csv])
      #expect(info.status == 0, "\(info.stderr)")
      #expect(info.stdout.contains(#""firstTime":"2018-11-29T01:48:58Z""#), "\(name): \(info.stdout)")
      let jsonl = try folder.file("\(name).jsonl", containing: #"{"time": \#(times[0]), "lat": 35.6, "lon": 139.7}"# + "\n")
      #expect(try CommandRunner.run(["info", "--format", "json", jsonl]).stdout.contains(#""firstTime":"2018-11-29T01:48:58Z""#))
    }
  }

  @Test func aTimeWithoutAZoneIsAnErrorUnlessAssumedUTC() throws {
    let folder = try TemporaryFolder()
    let csv = try folder.file("t.csv", containing: "time,lat,lon\n2018-11-29T02:00:00Z,35.6,139.7\n2018-11-29T02:00:01,35.6,139.7\n")
    let jsonl = try folder.file("t.jsonl", containing: #"{"time": "2018-11-29T02:00:00.5", "lat": 35.6, "lon": 139.7}"# + "\n")
    let message = "has no zone: expected Z or an offset such as +09:00 (--assume-utc reads times without one as UTC)"
    for (file, location, time) in [(csv, "3:1", "2018-11-29T02:00:01"), (jsonl, "1:10", "2018-11-29T02:00:00.5")] {
      for command in [["info"], ["crossings", "--regions", Self.regions], ["analyze", "--regions", Self.regions]] {
        let refused = try CommandRunner.run(command + [file])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("\(file):\(location): error: time \"\(time)\" \(message)"), "\(refused.stderr)")
        let assumed = try CommandRunner.run(command + ["--assume-utc", file])
        #expect(assumed.status == 0, "\(assumed.stderr)")
      }
    }
    // Offsets and Z in any case are zones.
    let zoned = try folder.file("z.csv", containing: "time,lat,lon\n2018-11-29T11:00:00+09:00,35.6,139.7\n2018-11-28T21:00:01-0500,35.6,139.7\n2018-11-29T02:00:02.5z,35.6,139.7\n")
    let info = try CommandRunner.run(["info", "--format", "json", zoned])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains(#""firstTime":"2018-11-29T02:00:00Z""#))
  }

  @Test func aNumberCutByTheEndOfTheFileIsAnError() throws {
    let folder = try TemporaryFolder()
    let cut = try folder.file("cut.csv", containing: "time,lat,lon\n2018-11-29T02:00:00Z,35.6123,139.7123\n2018-11-29T02:00:01Z,35.6123,139.")
    for command in [["info", cut], ["crossings", "--regions", Self.regions, cut], ["analyze", "--regions", Self.regions, cut]] {
      let result = try CommandRunner.run(command)
      #expect(result.status == 65)
      #expect(result.stderr.contains("\(cut):3:30: error: \"139.\" ends the file without a line end: the file looks cut off"), "\(result.stderr)")
    }
    // Fewer digits than the line before on an unterminated last line: read, with a warning.
    let shorter = try folder.file("shorter.csv", containing: "time,lat,lon\n2018-11-29T02:00:00Z,35.6123,139.7123\n2018-11-29T02:00:01Z,35.6123,139.7")
    for command in [["info", shorter], ["crossings", "--regions", Self.regions, shorter], ["analyze", "--regions", Self.regions, shorter]] {
      let result = try CommandRunner.run(command)
      #expect(result.status == 0)
      #expect(result.stderr.contains("\(shorter):3:30: warning: the last line has no line end and fewer digits"), "\(result.stderr)")
    }
    // The same digits, or a final line end: nothing to say.
    let whole = try folder.file("whole.csv", containing: "time,lat,lon\n2018-11-29T02:00:00Z,35.6123,139.7123\n2018-11-29T02:00:01Z,35.6123,139.7124")
    #expect(try CommandRunner.run(["info", whole]).stderr == "")
  }

  @Test func coordinatesOutOfRangeAreErrorsNotWrapped() throws {
    let folder = try TemporaryFolder()
    let csv = try folder.file("t.csv", containing: "time,lat,lon\n2018-11-29T02:00:00Z,35.6,499.7\n")
    let result = try CommandRunner.run(["info", csv])
    #expect(result.status == 65)
    #expect(result.stderr == "\(csv):2:27: error: longitude 499.7 is out of range: expected degrees east in -180...180\n")
    let gpx = try folder.file("t.gpx", containing: """
      <gpx version="1.1" creator="t"><trk><trkseg>
      <trkpt lat="35.6" lon="139.7"><time>2018-11-29T02:00:00Z</time></trkpt>
      <trkpt lat="35.6" lon="-200.5"><time>2018-11-29T02:00:01Z</time></trkpt>
      </trkseg></trk></gpx>
      """)
    let strict = try CommandRunner.run(["info", gpx])
    #expect(strict.status == 65)
    #expect(strict.stderr.contains("\(gpx):3:24: error: longitude -200.5 is out of range"), "\(strict.stderr)")
    let lenient = try CommandRunner.run(["info", "--lenient", "--format", "json", gpx])
    #expect(lenient.status == 0)
    #expect(lenient.stderr.contains("\(gpx):3:24: warning: longitude -200.5 is out of range"), "\(lenient.stderr)")
    #expect(lenient.stdout.contains(#""trackPoints":1,"#))
    let towers = try folder.file("cells.csv", containing: "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\nLTE,208,1,1,1,0,200.5,30,1000,1,1,0,0,0\n")
    let cells = try CommandRunner.run(["cells", "check", towers])
    #expect(cells.status == 65)
    #expect(cells.stderr.contains("longitude 200.5 is out of range"), "\(cells.stderr)")
  }

  @Test func nothingToAnalyseIsAWarningAndStatus65() throws {
    let folder = try TemporaryFolder()
    let noRegions = try folder.file("none.csv", containing: "id,lat,lon,radius\n")
    for command in ["analyze", "crossings"] {
      let result = try CommandRunner.run([command, "--regions", noRegions, Self.track])
      #expect(result.status == 65)
      #expect(result.stderr.contains("warning: \(noRegions) holds no region"), "\(result.stderr)")
    }
    let noFixes = try folder.file("empty.csv", containing: "time,lat,lon\n")
    for command in ["analyze", "crossings"] {
      let result = try CommandRunner.run([command, "--regions", Self.regions, noFixes])
      #expect(result.status == 65)
      #expect(result.stderr.contains("warning: no fix of \(noFixes) was used, so nothing was analysed"), "\(result.stderr)")
    }
    // The demo has nothing to warn about.
    let demo = try CommandRunner.run(["analyze", "--regions", Self.regions, Self.track])
    #expect(demo.status == 0)
    #expect(demo.stderr == "")
  }

  /// Tracks and regions generated around many places: regions around the track's own place give
  /// no warning; regions 100 km or more away, or the track with latitude and longitude swapped,
  /// warn that every fix is far from every region.
  @Test(arguments: [(1, -33.86, 151.21), (2, 48.85, 2.35), (3, 40.71, -74.0), (4, 64.1, -21.9), (5, -1.29, 36.82)])
  func aTrackFarFromEveryRegionIsAWarning(seed: Int, latitude: Double, longitude: Double) throws {
    let folder = try TemporaryFolder()
    let track = folder.path("track.csv")
    let center = "--center=\(latitude),\(longitude)"
    #expect(try CommandRunner.run(["generate", "track", "--count", "1200", "--seed", "\(seed)", center, "--format", "csv", "-o", track]).status == 0)
    let near = folder.path("near.csv")
    #expect(try CommandRunner.run(["generate", "regions", "--count", "30", "--seed", "\(seed)", center, "--track-seed", "\(seed)", "--track-count", "1200", "-o", near]).status == 0)
    let away = folder.path("away.csv")
    let awayCenter = "--center=\(latitude + (latitude > 0 ? -1.2 : 1.2)),\(longitude)"
    #expect(try CommandRunner.run(["generate", "regions", "--count", "30", "--seed", "\(seed)", awayCenter, "--track-count", "1", "-o", away]).status == 0)
    let rows = try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n")
    let swapped = try folder.file("swapped.csv", containing: ([String(rows[0])] + rows.dropFirst().map { row in
      let f = row.split(separator: ",", omittingEmptySubsequences: false)
      return [f[0], f[2], f[1], f[3]].joined(separator: ",")
    }).joined(separator: "\n") + "\n")

    for command in ["analyze", "crossings"] {
      let fine = try CommandRunner.run([command, "--regions", near, track])
      #expect(fine.status == 0)
      #expect(!fine.stderr.contains("warning"), "\(fine.stderr)")
      let far = try CommandRunner.run([command, "--regions", away, track])
      #expect(far.status == 0)
      #expect(far.stderr.contains("warning: every fix of \(track) is more than 50 km from every region of \(away)"), "\(far.stderr)")
      if abs(longitude) <= 90 {
        let crossed = try CommandRunner.run([command, "--regions", near, swapped])
        #expect(crossed.stderr.contains("warning: every fix of \(swapped) is more than 50 km"), "\(crossed.stderr)")
      }
    }
  }

  /// A track dated 1970 (a receiver without a time fix: time 0) or 1999 (a GPS week-number
  /// rollover), or after 2100, is read but warned about by every command that reads it, a device
  /// of a many-device run by name; a track of this century is not. So are launches for fetch.
  @Test(arguments: [(0.0, true), (935_000_000, true), (4_200_000_000, true), (1_714_546_800, false)])
  func implausibleTimesAreWarnings(start: Double, warned: Bool) throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\n")
    let rows = (0..<5).map { k in "\(Int(start) + 60 * k),35.0,\(139.0 + 0.0003 * Double(k)),5" }
    let track = try folder.file("t.csv", containing: "time,lat,lon,accuracy\n" + rows.joined(separator: "\n") + "\n")
    let devices = try folder.file(
      "d.csv", containing: "device,time,lat,lon,accuracy\n" + rows.map { "walker,\($0)" }.joined(separator: "\n") + "\n")
    let expected = start < 946_684_800 ? ", before 2000: " : ", after 2100: "
    for (arguments, subject) in [
      (["analyze", "--regions", regions, track], "the fixes of \(track)"),
      (["crossings", "--regions", regions, track], "the fixes of \(track)"),
      (["info", track], "the track points of \(track)"),
      (["compare", track, "--regions", regions], "the fixes of \(track)"),
      (["analyze", "--regions", regions, devices], "the fixes of device walker"),
      (["crossings", "--regions", regions, devices], "the fixes of device walker"),
    ] {
      let result = try CommandRunner.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("warning: \(subject) are dated from ") == warned, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(expected) == warned, "\(arguments): \(result.stderr)")
    }
    let iso = ISO8601DateFormatter()
    let launches = (0..<3).map { k in iso.string(from: Date(timeIntervalSince1970: start + 86_400 * Double(k))) + ",60" }
    let usage = try folder.file("u.csv", containing: "time,duration\n" + launches.joined(separator: "\n") + "\n")
    let fetch = try CommandRunner.run(["fetch", "--usage", usage])
    #expect(fetch.stderr.contains("warning: the launches of \(usage) are dated from ") == warned, "\(fetch.stderr)")
  }

  /// Fixes at exactly 0°, 0° (what a receiver without a position writes) are counted in a
  /// warning by every command that reads a track; a walk beside 0°, 0° without them is not.
  @Test(arguments: [(35.0, 139.0, true), (35.0, 139.0, false), (0.00001, 0.00001, false)])
  func fixesAtZeroZeroAreWarnings(latitude: Double, longitude: Double, placeholders: Bool) throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,\(latitude),\(longitude),100\n")
    let rows = (0..<6).map { k in
      placeholders && (k == 2 || k == 4)
        ? "\(1_714_546_800 + 60 * k),0,0,5" : "\(1_714_546_800 + 60 * k),\(latitude),\(longitude + 0.0003 * Double(k)),5"
    }
    let track = try folder.file("t.csv", containing: "time,lat,lon,accuracy\n" + rows.joined(separator: "\n") + "\n")
    let devices = try folder.file(
      "d.csv", containing: "device,time,lat,lon,accuracy\n" + rows.map { "walker,\($0)" }.joined(separator: "\n") + "\n")
    for (arguments, subject) in [
      (["analyze", "--regions", regions, track], track),
      (["crossings", "--regions", regions, track], track),
      (["compare", track, "--regions", regions], track),
      (["analyze", "--regions", regions, devices], "device walker"),
      (["crossings", "--regions", regions, devices], "device walker"),
    ] {
      let result = try CommandRunner.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("warning: 2 of the 6 fixes of \(subject) are at exactly 0°, 0°") == placeholders, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("0°, 0°") == placeholders, "\(arguments): \(result.stderr)")
    }
    let info = try CommandRunner.run(["info", track])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stderr.contains("warning: 2 of the 6 track points of \(track) are at exactly 0°, 0°") == placeholders, "\(info.stderr)")
    #expect(info.stderr.contains("0°, 0°") == placeholders, "\(info.stderr)")
  }

  /// `info` on a file without any point, or with track points dated before the point ahead of
  /// them in their segment, warns; the same points in time order do not, nor does a file of
  /// routes only.
  @Test(arguments: [false, true])
  func infoWarnsAboutNoTrackPointsAndTimeGoingBack(backwards: Bool) throws {
    let folder = try TemporaryFolder()
    let empty = try folder.file(
      "empty.gpx", containing: #"<?xml version="1.0"?><gpx version="1.1" creator="t"><trk><trkseg></trkseg></trk></gpx>"# + "\n")
    let none = try CommandRunner.run(["info", empty])
    #expect(none.status == 0, "\(none.stderr)")
    #expect(none.stderr.contains("warning: \(empty) holds no point (no track point, route point or waypoint)"), "\(none.stderr)")
    let route = try folder.file(
      "route.gpx",
      containing: #"<?xml version="1.0"?><gpx version="1.1" creator="t"><rte><rtept lat="35" lon="139"/><rtept lat="35.001" lon="139"/></rte></gpx>"#
        + "\n")
    let planned = try CommandRunner.run(["info", route])
    #expect(planned.status == 0 && planned.stderr.isEmpty, "\(planned.stderr)")
    let times = backwards ? [0, 60, 30, 90, 45] : [0, 30, 45, 60, 90]
    let rows = times.enumerated().map { k, t in "\(1_714_546_800 + t),35.0,\(139.0 + 0.0003 * Double(k)),5" }
    let track = try folder.file("t.csv", containing: "time,lat,lon,accuracy\n" + rows.joined(separator: "\n") + "\n")
    let info = try CommandRunner.run(["info", track])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(
      info.stderr.contains("warning: 2 of the 5 track points of \(track) are dated earlier than the point before them") == backwards,
      "\(info.stderr)")
    #expect(!info.stderr.contains("holds no point"), "\(info.stderr)")
  }

  /// One point dated 1970 in the middle of a track of this century (a receiver that lost its
  /// clock for a moment) is warned about by `info`, which reads the earliest and latest times
  /// wherever they lie, not only the first and last points.
  @Test func implausibleTimeInTheMiddleIsWarnedAboutByInfo() throws {
    let folder = try TemporaryFolder()
    let rows = (0..<5).map { k in "\(k == 2 ? 0 : 1_714_546_800 + 60 * k),35.0,\(139.0 + 0.0003 * Double(k)),5" }
    let track = try folder.file("t.csv", containing: "time,lat,lon,accuracy\n" + rows.joined(separator: "\n") + "\n")
    let info = try CommandRunner.run(["info", track])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stderr.contains("warning: the track points of \(track) are dated from 1970-01-01T00:00:00Z to 2024-05-01T07:04:00Z, before 2000: "), "\(info.stderr)")
  }

  /// A region at exactly 0°, 0° (a circle's centre or a polygon's vertex, where a missing position
  /// is written as zeros) is warned about by every command that reads regions; one beside it is not.
  @Test func regionsAtZeroZeroAreWarnings() throws {
    let folder = try TemporaryFolder()
    let circles = try folder.file("c.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\nnull,0,0,50\nnear,0,0.0001,50\n")
    let polygon = try folder.file("p.geojson", containing: """
      {"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"id": "square"}, "geometry":
      {"type": "Polygon", "coordinates": [[[0, 0], [0.001, 0], [0.001, 0.001], [0, 0.001], [0, 0]]]}}]}
      """)
    let beside = try folder.file("b.csv", containing: "id,lat,lon,radius\nnear,0,0.0001,50\n")
    let track = try folder.file("t.csv", containing: "time,lat,lon,accuracy\n1714546800,35.0,139.0,5\n1714546860,35.0,139.0005,5\n")
    for (regions, expected) in [
      (circles, "warning: 1 of the 3 regions of \(circles) lies at exactly 0°, 0° (a circle's centre or a polygon's vertex)"),
      (polygon, "warning: 1 of the 1 regions of \(polygon) lies at exactly 0°, 0°"), (beside, nil),
    ] {
      for arguments in [
        ["regions", "check", regions], ["analyze", "--regions", regions, track], ["crossings", "--regions", regions, track],
        ["compare", track, "--regions", regions],
      ] {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        if let expected {
          #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        } else {
          #expect(!result.stderr.contains("0°, 0°"), "\(arguments): \(result.stderr)")
        }
      }
    }
  }

  @Test func manyRejectedFixesAndUnreachableTowersAreWarnings() throws {
    let folder = try TemporaryFolder()
    let track = folder.path("track.csv")
    #expect(try CommandRunner.run(["generate", "track", "--count", "2000", "--seed", "3", "--center=48.85,2.35", "--format", "csv", "-o", track]).status == 0)
    let regions = folder.path("regions.csv")
    #expect(try CommandRunner.run(["generate", "regions", "--count", "10", "--seed", "3", "--center=48.85,2.35", "--track-seed", "3", "--track-count", "2000", "-o", regions]).status == 0)
    var rows = try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n").map(String.init)
    let header = rows.removeFirst()
    var generator = SeededGenerator(seed: 9)
    rows.shuffle(using: &generator)
    let shuffled = try folder.file("shuffled.csv", containing: ([header] + rows).joined(separator: "\n") + "\n")
    let result = try CommandRunner.run(["analyze", "--profile", "ios", "--regions", regions, shuffled])
    #expect(result.status == 0)
    #expect(result.stderr.contains(" fixes of \(shuffled) ("), "\(result.stderr)")
    #expect(result.stderr.contains("were rejected: "), "\(result.stderr)")

    let towers = try folder.file("cells.csv", containing: "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\nLTE,208,1,1,1,0,-70.0,-30.0,1000,1,1,0,0,0\n")
    let cells = try CommandRunner.run(["analyze", "--regions", regions, "--towers", towers, track])
    #expect(cells.status == 0)
    #expect(cells.stderr.contains("warning: no cell of \(towers) reaches the track \(track)"), "\(cells.stderr)")
  }

  /// In a many-device run each device is checked on its own: a device far from every region
  /// (its latitude and longitude swapped) and a device with most fixes rejected (shuffled) are
  /// warned about by name; a device near the regions is not. An empty region file is warned about
  /// once. (Places within ±90° of longitude, where the swapped pair is still a coordinate.)
  @Test(arguments: [(11, 48.85, 2.35), (12, 40.71, -74.0), (13, -1.29, 36.82)])
  func eachDeviceOfAManyDeviceRunIsChecked(seed: Int, latitude: Double, longitude: Double) throws {
    let folder = try TemporaryFolder()
    let devices = folder.path("devices")
    try FileManager.default.createDirectory(atPath: devices, withIntermediateDirectories: false)
    let center = "--center=\(latitude),\(longitude)"
    let near = devices + "/near.csv"
    #expect(try CommandRunner.run(["generate", "track", "--count", "1500", "--seed", "\(seed)", center, "--format", "csv", "-o", near]).status == 0)
    let regions = folder.path("regions.csv")
    #expect(try CommandRunner.run(["generate", "regions", "--count", "20", "--seed", "\(seed)", center, "--track-seed", "\(seed)", "--track-count", "1500", "-o", regions]).status == 0)
    let rows = try String(contentsOfFile: near, encoding: .utf8).split(separator: "\n").map(String.init)
    _ = try folder.file("devices/swapped.csv", containing: ([rows[0]] + rows.dropFirst().map { row in
      let f = row.split(separator: ",", omittingEmptySubsequences: false)
      return [f[0], f[2], f[1], f[3]].joined(separator: ",")
    }).joined(separator: "\n") + "\n")
    var body = Array(rows.dropFirst())
    var generator = SeededGenerator(seed: UInt64(seed))
    body.shuffle(using: &generator)
    let shuffledFolder = folder.path("shuffled")
    try FileManager.default.createDirectory(atPath: shuffledFolder, withIntermediateDirectories: false)
    _ = try folder.file("shuffled/shuffled.csv", containing: ([rows[0]] + body).joined(separator: "\n") + "\n")

    let analyzed = try CommandRunner.run(["analyze", "--profile", "ios", "--format", "jsonl", "--regions", regions, devices, shuffledFolder + "/shuffled.csv"])
    #expect(analyzed.status == 0, "\(analyzed.stderr)")
    #expect(analyzed.stderr.contains("warning: every fix of device swapped is more than 50 km from every region of \(regions)"), "\(analyzed.stderr)")
    // A device's track is a file, read whole: its shuffled fixes are put in time order, and said so.
    #expect(analyzed.stderr.contains("warning: device shuffled ("), "\(analyzed.stderr)")
    #expect(analyzed.stderr.contains(" fixes were out of time order; they are used in time order (stably sorted)"), "\(analyzed.stderr)")
    #expect(!analyzed.stderr.contains("device near"), "\(analyzed.stderr)")
    let crossed = try CommandRunner.run(["crossings", "--format", "jsonl", "--regions", regions, devices])
    #expect(crossed.status == 0, "\(crossed.stderr)")
    #expect(crossed.stderr.contains("warning: every fix of device swapped is more than 50 km"), "\(crossed.stderr)")
    #expect(!crossed.stderr.contains("device near"), "\(crossed.stderr)")

    let empty = try folder.file("empty.csv", containing: "id,lat,lon,radius\n")
    for command in ["analyze", "crossings"] {
      let none = try CommandRunner.run([command, "--format", "jsonl", "--regions", empty, devices])
      #expect(none.stderr.components(separatedBy: "holds no region").count == 2, "\(command): \(none.stderr)")
    }
  }

  @Test func directoriesAndEndlessFilesAreClearErrors() throws {
    let folder = try TemporaryFolder()
    for command in [["info", folder.url.path], ["regions", "check", folder.url.path], ["cells", "check", folder.url.path]] {
      let result = try CommandRunner.run(command)
      #expect(result.status == 66)
      #expect(result.stderr == "\(folder.url.path): error: is a directory, expected a file\n", "\(command)")
    }
    if FileManager.default.fileExists(atPath: "/dev/zero") {
      let zero = try CommandRunner.run(["regions", "check", "/dev/zero"])
      #expect(zero.status == 65)
      #expect(zero.stderr == "/dev/zero:1:0: error: line longer than 64 MB; expected a text file of lines\n")
    }
    // Standard input that is a directory.
    let process = Process()
    process.executableURL = CommandRunner.executable
    process.arguments = ["geodesic"]
    process.standardInput = FileHandle(forReadingAtPath: folder.url.path)
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 66)
  }
}
