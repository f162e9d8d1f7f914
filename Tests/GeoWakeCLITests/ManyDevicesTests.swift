import Foundation
import Testing
import _GeoWakeTestSupport

/// `analyze` and `crossings` over many devices, on generated populations: the output must not
/// depend on how the devices arrive (files, a folder, a device column, standard input) or on the
/// number of workers, and each device's part must be what a run over that device alone gives.
@Suite("geowake over many devices")
struct ManyDevicesTests {
  /// A population of walkers around one centre, with circles on their paths.
  struct Population {
    var regions = "id,lat,lon,radius\n"
    /// Device name → CSV rows `time,lat,lon,accuracy` (without header), in time order.
    var devices: [(name: String, rows: [String])] = []

    init(seed: UInt64) {
      var random = SplitMix(seed)
      let (lat0, lon0) = (35.0 + random.unit() * 10, 130.0 + random.unit() * 10)
      for k in 0..<25 {
        let lat = lat0 + (random.unit() - 0.5) * 0.02
        let lon = lon0 + (random.unit() - 0.5) * 0.02
        regions += "r\(k),\(lat),\(lon),\(Int(30 + random.unit() * 400))\n"
      }
      let names = ["a01", "bike-2", "car_7", "d04", "e05", "f06", "g07", "h08", "zz-9", "ü-walker"]
      let count = 3 + Int(random.unit() * Double(names.count - 3))
      for name in names.prefix(count).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
        var rows: [String] = []
        var (lat, lon) = (lat0 + (random.unit() - 0.5) * 0.02, lon0 + (random.unit() - 0.5) * 0.02)
        var time = 1_714_546_800.0 + (random.unit() * 3_600).rounded()
        let fixes = Int(random.unit() * 600)
        let repeatsTimes = random.unit() < 0.3
        for _ in 0..<fixes {
          lat += (random.unit() - 0.5) * 0.0004
          lon += (random.unit() - 0.5) * 0.0004
          rows.append("\(Int(time)),\(String(format: "%.7f", lat)),\(String(format: "%.7f", lon)),\(Int(3 + random.unit() * 20))")
          // Some devices report two fixes with one timestamp now and then.
          if !(repeatsTimes && random.unit() < 0.1) { time += 1 + (random.unit() * 4).rounded() }
        }
        devices.append((name, rows))
      }
    }

    /// One CSV file per device in a folder; every third as JSON Lines.
    func writeFolder(in folder: TemporaryFolder) throws -> String {
      let tracks = folder.path("tracks")
      try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: true)
      for (k, device) in devices.enumerated() {
        if k % 3 == 2 {
          let lines = device.rows.map { row -> String in
            let f = row.split(separator: ",")
            return "{\"time\":\(f[0]),\"lat\":\(f[1]),\"lon\":\(f[2]),\"accuracy\":\(f[3])}\n"
          }
          try lines.joined().write(toFile: tracks + "/\(device.name).jsonl", atomically: false, encoding: .utf8)
        } else {
          try ("time,lat,lon,accuracy\n" + device.rows.map { $0 + "\n" }.joined())
            .write(toFile: tracks + "/\(device.name).csv", atomically: false, encoding: .utf8)
        }
      }
      return tracks
    }

    /// One CSV with a device column, rows grouped by device.
    var deviceColumnCSV: String {
      "device,time,lat,lon,accuracy\n" + devices.flatMap { d in d.rows.map { "\(d.name),\($0)\n" } }.joined()
    }

    /// The same as JSON Lines with a `device` key.
    var deviceJSONLines: String {
      devices.flatMap { d in
        d.rows.map { row -> String in
          let f = row.split(separator: ",")
          return "{\"device\":\"\(d.name)\",\"time\":\(f[0]),\"lat\":\(f[1]),\"lon\":\(f[2]),\"accuracy\":\(f[3])}\n"
        }
      }.joined()
    }
  }

  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func outputIsTheSameHoweverTheDevicesArriveAndHoweverManyWorkers(seed: UInt64) throws {
    let population = Population(seed: seed)
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: population.regions)
    let tracks = try population.writeFolder(in: folder)
    let column = try folder.file("fleet.csv", containing: population.deviceColumnCSV)
    let jsonLines = try folder.file("fleet.jsonl", containing: population.deviceJSONLines)
    for command in ["analyze", "crossings"] {
      let base = [command, "--regions", regions, "--format", "jsonl"]
      let reference = try CommandRunner.run(base + [tracks, "--jobs", "1"])
      #expect(reference.status == 0, "\(reference.stderr)")
      let runs = [
        try CommandRunner.run(base + [tracks, "--jobs", "3"]),
        try CommandRunner.run(base + [column, "--jobs", "2"]),
        try CommandRunner.run(base + [jsonLines, "--jobs", "5"]),
        try CommandRunner.run(base + ["-", "--jobs", "4"], stdin: population.deviceColumnCSV),
        try CommandRunner.run(base + [tracks + "/" + population.devices[0].name + ".csv"] + population.devices.dropFirst().enumerated().map {
          tracks + "/" + $0.element.name + ($0.offset % 3 == 1 ? ".jsonl" : ".csv")
        }),
      ]
      for run in runs {
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == reference.stdout)
      }
      // Every line names its device; devices come in input order, each in one block.
      let order = reference.stdout.split(separator: "\n").map { line -> String in
        let prefix = "{\"device\":\""
        #expect(line.hasPrefix(prefix))
        return String(line.dropFirst(prefix.count).prefix { $0 != "\"" })
      }
      var blocks: [String] = []
      for name in order where blocks.last != name { blocks.append(name) }
      #expect(blocks == population.devices.map(\.name).filter { order.contains($0) })
    }
  }

  /// Under the server profile nothing is drawn at random, so each device's lines are exactly a
  /// run over that device alone, with the device added.
  @Test(arguments: [5, 6] as [UInt64])
  func eachDevicesPartIsItsOwnRun(seed: UInt64) throws {
    let population = Population(seed: seed)
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: population.regions)
    let column = try folder.file("fleet.csv", containing: population.deviceColumnCSV)
    for command in ["analyze", "crossings"] {
      let profile = command == "analyze" ? ["--profile", "server"] : []
      let fleet = try CommandRunner.run([command, "--regions", regions, "--format", "jsonl", column] + profile)
      #expect(fleet.status == 0, "\(fleet.stderr)")
      var expected = ""
      for device in population.devices {
        let track = try folder.file("\(device.name).csv", containing: "time,lat,lon,accuracy\n" + device.rows.map { $0 + "\n" }.joined())
        let alone = try CommandRunner.run([command, "--regions", regions, "--format", "jsonl", track] + profile)
        #expect(alone.status == 0)
        expected += alone.stdout.split(separator: "\n").map { "{\"device\":\"\(device.name)\"," + $0.dropFirst() + "\n" }.joined()
      }
      #expect(fleet.stdout == expected)
    }
  }

  @Test func aBadDeviceStopsNeitherTheOthersNorTheRun() throws {
    let population = Population(seed: 7)
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: population.regions)
    let tracks = try population.writeFolder(in: folder)
    let good = try CommandRunner.run(["analyze", "--regions", regions, "--format", "jsonl", tracks])
    // Break the second device's file on its third fix.
    let broken = population.devices[1]
    let path = tracks + "/\(broken.name).csv"
    var rows = broken.rows
    rows[2] = "\(rows[2].split(separator: ",")[0]),95.5,\(rows[2].split(separator: ",")[2]),5"
    try ("time,lat,lon,accuracy\n" + rows.map { $0 + "\n" }.joined()).write(toFile: path, atomically: false, encoding: .utf8)
    let run = try CommandRunner.run(["analyze", "--regions", regions, "--format", "jsonl", tracks, "--jobs", "2"])
    #expect(run.status == 65)
    #expect(run.stderr.contains("\(path):4:"))
    #expect(run.stderr.contains("latitude 95.5"))
    #expect(run.stderr.contains("(device \(broken.name) left out)"))
    let withoutBroken = good.stdout.split(separator: "\n").filter { !$0.hasPrefix("{\"device\":\"\(broken.name)\"") }
    #expect(run.stdout.split(separator: "\n") == withoutBroken)

    // The same in one file with a device column: the rest of the bad device's rows are skipped.
    var csv = "device,time,lat,lon,accuracy\n"
    var badLine = 0
    for (k, device) in population.devices.enumerated() {
      for (r, row) in device.rows.enumerated() {
        if k == 1 && r == 2 { badLine = csv.split(separator: "\n").count + 1 }
        csv += "\(device.name)," + (k == 1 && r == 2 ? rows[2] : row) + "\n"
      }
    }
    let column = try folder.file("fleet.csv", containing: csv)
    let columnRun = try CommandRunner.run(["analyze", "--regions", regions, "--format", "jsonl", column])
    #expect(columnRun.status == 65)
    #expect(columnRun.stderr.contains("\(column):\(badLine):"))
    #expect(columnRun.stdout.split(separator: "\n") == withoutBroken)
  }

  /// A fleet's log in time order (and rows interleaved at random) gives every device the lines a
  /// run over its rows alone gives, the devices in the order of their first rows.
  @Test(arguments: [11, 12, 13] as [UInt64])
  func interleavedDevicesAreGroupedByDevice(seed: UInt64) throws {
    let population = Population(seed: seed)
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: population.regions)
    let tracks = try population.writeFolder(in: folder)
    // In time order, ties in the population's order (a stable merge).
    let byTime = population.devices.flatMap { d in d.rows.map { (d.name, $0) } }.enumerated()
      .sorted { ($0.element.1.prefix { $0 != "," }, $0.offset) < ($1.element.1.prefix { $0 != "," }, $1.offset) }.map(\.element)
    let timeOrdered = try folder.file("by-time.csv", containing: "device,time,lat,lon,accuracy\n" + byTime.map { "\($0.0),\($0.1)\n" }.joined())
    // At random, each device's rows keeping their order.
    var random = SplitMix(seed &* 31)
    var next = population.devices.map { _ in 0 }
    var shuffled = ""
    while true {
      let open = population.devices.indices.filter { next[$0] < population.devices[$0].rows.count }
      guard !open.isEmpty else { break }
      let k = open[Int(random.unit() * Double(open.count))]
      let f = population.devices[k].rows[next[k]].split(separator: ",")
      shuffled += "{\"device\":\"\(population.devices[k].name)\",\"time\":\(f[0]),\"lat\":\(f[1]),\"lon\":\(f[2]),\"accuracy\":\(f[3])}\n"
      next[k] += 1
    }
    let randomOrder = try folder.file("random.jsonl", containing: shuffled)
    for command in ["analyze", "crossings"] {
      let base = [command, "--regions", regions, "--format", "jsonl"]
      let reference = try CommandRunner.run(base + [tracks, "--jobs", "1"])
      #expect(reference.status == 0, "\(reference.stderr)")
      let expected = Self.blocks(reference.stdout)
      for (file, jobs) in [(timeOrdered, "1"), (timeOrdered, "3"), (randomOrder, "2")] {
        let run = try CommandRunner.run(base + [file, "--jobs", jobs])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("comes again"))
        let blocks = Self.blocks(run.stdout)
        #expect(blocks.map(\.device).count == Set(blocks.map(\.device)).count, "each device in one block")
        #expect(Dictionary(uniqueKeysWithValues: blocks.map { ($0.device, $0.lines) }) == Dictionary(uniqueKeysWithValues: expected.map { ($0.device, $0.lines) }))
        // The devices in the order of their first rows.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var firstRows: [String] = []
        for line in text.split(separator: "\n").dropFirst(file.hasSuffix(".csv") ? 1 : 0) {
          let name = file.hasSuffix(".csv") ? String(line.prefix { $0 != "," }) : String(line.dropFirst(11).prefix { $0 != "\"" })
          if !firstRows.contains(name) { firstRows.append(name) }
        }
        #expect(blocks.map(\.device) == firstRows.filter { name in blocks.contains { $0.device == name } })
      }
    }
  }

  /// A fleet's file read in pieces on every core (as `--jobs` above 1 reads a plain CSV file
  /// with a device column) gives what one reader gives, standard error included: interleaved
  /// devices, bad rows of every kind, times in seconds with a few in milliseconds, a last line
  /// without its line end.
  @Test(arguments: [31, 32] as [UInt64])
  func everyJobsCountReadsAFleetFileTheSame(seed: UInt64) throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,300\nshop,35.004,139.004,200\n")
    var random = SplitMix(seed)
    var csv = "device,time,lat,lon,accuracy\n"
    for k in 0..<12_000 {
      let device = "van-\(Int(random.unit() * 40))"
      let t = 1_714_550_400 + k
      let time = random.unit() < 0.002 ? "\(t * 1000)" : "\(t)"
      let lat = 35.0 + 0.008 * random.unit()
      switch random.unit() {
      case ..<0.003: csv += "\(device),\(time),\(lat)\n"
      case ..<0.006: csv += "\(device),\(time),91.2,139.0,5\n"
      case ..<0.008: csv += ",\(time),\(lat),139.0,5\n"
      default: csv += "\(device),\(time),\(lat),\(139.0 + 0.008 * random.unit()),\(1 + Int(random.unit() * 20))\n"
      }
    }
    csv.removeLast()
    let file = try folder.file("fleet.csv", containing: csv)
    for command in ["analyze", "crossings"] {
      let base = [command, "--regions", regions, "--format", "jsonl", file]
      let one = try CommandRunner.run(base + ["--jobs", "1"])
      #expect(one.status == 65, "bad rows fail their devices")
      #expect(one.stderr.contains("milliseconds"), "the mixed units are said")
      for jobs in ["2", "3"] {
        let run = try CommandRunner.run(base + ["--jobs", jobs])
        #expect(run.status == one.status)
        #expect(run.stdout == one.stdout, "\(command) --jobs \(jobs)")
        #expect(run.stderr == one.stderr, "\(command) --jobs \(jobs)")
      }
    }
  }

  /// The JSON Lines output of a many-device run cut into blocks of one device's lines.
  static func blocks(_ output: String) -> [(device: String, lines: [Substring])] {
    var blocks: [(device: String, lines: [Substring])] = []
    for line in output.split(separator: "\n") {
      let prefix = "{\"device\":\""
      let name = String(line.dropFirst(prefix.count).prefix { $0 != "\"" })
      if blocks.last?.device == name { blocks[blocks.count - 1].lines.append(line) } else { blocks.append((name, [line])) }
    }
    return blocks
  }

  @Test func aSmallInterleavedFileIsGroupedAndALateComebackIsReportedWhereItComesBack() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: "id,lat,lon,radius\nhome,35.0,139.0,100\n")
    let interleaved = try folder.file("interleaved.csv", containing: "device,time,lat,lon\na,0,35.0,139.0\na,10,35.0,139.01\nb,0,35.0,139.01\na,20,35.0,139.0\nb,10,35.0,139.0\n")
    let run = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", interleaved])
    #expect(run.status == 0, "\(run.stderr)")
    let a = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", try folder.file("a.csv", containing: "time,lat,lon\n0,35.0,139.0\n10,35.0,139.01\n20,35.0,139.0\n")])
    let b = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", try folder.file("b.csv", containing: "time,lat,lon\n0,35.0,139.01\n10,35.0,139.0\n")])
    let expected = a.stdout.split(separator: "\n").map { "{\"device\":\"a\"," + $0.dropFirst() + "\n" }.joined()
      + b.stdout.split(separator: "\n").map { "{\"device\":\"b\"," + $0.dropFirst() + "\n" }.joined()
    #expect(run.stdout == expected)
    #expect(run.stdout.split(separator: "\n").count == 3, "a leaves and comes back, b comes in")

    // Past the rows held back (262,144 fixes) devices are passed on as they end: one that comes
    // back after that is reported at the line where it comes back, its earlier rows' events kept.
    var csv = "device,time,lat,lon\n"
    csv.reserveCapacity(6_000_000)
    for t in 0...(1 << 18) { csv += "a,\(t),35.0,\(t < 100 ? "139.0" : "139.01")\n" }
    csv += "b,0,35.0,139.0\nb,10,35.0,139.01\na,300000,35.0,139.0\n"
    let late = try folder.file("late.csv", containing: csv)
    let lateRun = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", late])
    let comeback = (1 << 18) + 5
    #expect(lateRun.status == 65)
    #expect(lateRun.stderr.contains("\(late):\(comeback):1: error: device \"a\" comes again after its rows were passed on"))
    #expect(lateRun.stderr.contains("(device a: its rows from here on left out)"))
    #expect(lateRun.stderr.contains("1 of 2 devices failed"))
    let devices = Self.blocks(lateRun.stdout).map(\.device)
    #expect(devices == ["a", "b"])
    #expect(Self.blocks(lateRun.stdout)[0].lines.count == 1, "a leaves home at 100; its return is left out")
    #expect(Self.blocks(lateRun.stdout)[1].lines.count == 1, "b leaves home at 10")
  }

  /// Compressed tracks in a folder are devices named without `.gz` and their extension, with the
  /// same lines as their uncompressed files.
  @Test func compressedTracksInAFolderAreDevices() throws {
    let population = Population(seed: 21)
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: population.regions)
    let tracks = try population.writeFolder(in: folder)
    let plain = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", tracks])
    let compressed = folder.path("compressed")
    try FileManager.default.createDirectory(atPath: compressed, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: tracks) {
      try CompressedTrack.gzip(tracks + "/" + name, to: compressed + "/" + name + ".gz")
    }
    let run = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", compressed])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!plain.stdout.isEmpty && run.stdout == plain.stdout)
  }

  /// A folder is read as its files would be one by one: a `.json` location history or JSON
  /// Lines, a `.txt` of CSV fixes and a `.gpx.gz` are tracks by their content; what is not a
  /// track (and every subfolder) is named in one warning, with why.
  @Test func aFolderReadsEveryFormatByContentAndNamesWhatItLeavesOut() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: "id,lat,lon,radius\nhome,35.0005,139.0,60\n")
    let tracks = folder.path("tracks")
    try FileManager.default.createDirectory(atPath: tracks + "/raw", withIntermediateDirectories: true)
    let times = (0..<4).map { "2024-05-01T07:0\($0):00Z" }
    let lats = ["34.999", "35.0", "35.001", "35.002"]
    _ = try folder.file("tracks/a.json", containing: zip(times, lats).map { #"{"time":"\#($0)","lat":\#($1),"lon":139.0}"# + "\n" }.joined())
    _ = try folder.file("tracks/b.txt", containing: "time,lat,lon\n" + zip(times, lats).map { "\($0),\($1),139.0\n" }.joined())
    let gpx = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>" + zip(times, lats).map { "<trkpt lat=\"\($1)\" lon=\"139.0\"><time>\($0)</time></trkpt>" }.joined()
      + "</trkseg></trk></gpx>"
    let plain = try folder.file("c.gpx", containing: gpx)
    try CompressedTrack.gzip(plain, to: tracks + "/c.gpx.gz")
    _ = try folder.file("tracks/notes.md", containing: "Trip notes, day one\n")
    let run = try CommandRunner.run(["crossings", "--regions", regions, "--format", "jsonl", tracks])
    #expect(run.status == 0, "\(run.stderr)")
    let devices = run.stdout.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["device"] as? String
    }
    #expect(Set(devices) == ["a", "b", "c"], "\(run.stdout)")
    #expect(run.stderr.contains("tracks: left out 2 entries that are not a track: notes.md (header has no time column"), "\(run.stderr)")
    #expect(run.stderr.contains("raw/ (a folder: those inside a folder are not read)"))
  }

  @Test func manyDevicesRefuseHTMLAndEmptyFolders() throws {
    let folder = try TemporaryFolder()
    let population = Population(seed: 8)
    let regions = try folder.file("regions.csv", containing: population.regions)
    let tracks = try population.writeFolder(in: folder)
    let html = try CommandRunner.run(["analyze", "--regions", regions, "--format", "html", tracks])
    #expect(html.status == 64)
    #expect(html.stderr.contains("html draws one device's timeline"))
    let empty = folder.path("empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let none = try CommandRunner.run(["analyze", "--regions", regions, empty])
    #expect(none.status == 66)
    #expect(none.stderr.contains("folder holds no track file"))
  }
}

/// SplitMix64, for populations that are the same on every run.
struct SplitMix {
  var state: UInt64
  init(_ seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
