import ArgumentParser
import GeoWake
import Geodesy
import GeoWakeReports
import Geofencing
import TrackIO

/// `geowake fidelity`: measured geofence departures replayed through the platform profiles,
/// predicted exit delays against the measured ones.
struct FidelityCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fidelity",
    abstract: "Replay measured geofence departures through the profiles: predicted exit delays against measured ones.",
    discussion: """
      DATASET is a folder with departures.csv (id, platform ios or android, departure_time, \
      exit_time: seconds since 1970 or ISO 8601, exit_time empty when the phone reported no exit; \
      optionally exit_class normal, premature or none, fence_created_time, notes) and, per \
      departure, a folder named by its id holding track.csv (the ground truth: time, lat, lon, \
      accuracy) and fence.csv (one circle: id, lat, lon, radius). docs/fidelity.md describes \
      the layout and the replay.

      Each departure is replayed with its platform's profile once per seed: the monitor sees \
      the ground truth from 600 s before the departure (or the fence's creation) to 1,800 s \
      after it; where the ground truth begins after the departure, the user stands at the \
      fence's centre from 60 s before it, then moves straight to the first fix. The predicted \
      exit is the first exit delivered in that window. Departures whose measured exit is \
      premature (the fence fired as it was created) are listed but not compared.

      The report lists each departure (measured delay, predicted median and p10–p90 over the \
      seeds, replays with no exit), then per platform the median, interquartile range and 90th \
      percentile of both distributions, the share with no exit, and their two-sample \
      Kolmogorov–Smirnov distance. --format html plots the two cumulative distributions.

      --published, instead of a data set: published measurements of phones (Shevchenko & \
      Reips's detection rates by fence radius and where and when events reached the app; the \
      distance moved at significant-location-change wakes; the silent-push budget) beside what \
      the calibrated profiles give on synthetic experiments made like them (walks into and out \
      of fences, trips through cell layouts, a flood of silent pushes; docs/fidelity.md), each \
      with its difference and whether it is within ±20 %. --seed draws the synthetic data, \
      --seeds replays it (default 10).
      """ + HelpExamples.section(["geowake fidelity Fixtures/fidelity/mobilitynet --seeds 3",
        "geowake fidelity --published --seeds 1"])
  )

  @Argument(help: "The data set's folder.")
  var dataset: String?

  @Flag(help: "Compare published measurements of phones with the profiles on synthetic data instead of replaying a data set.")
  var published = false

  @Option(help: "Profile for iOS departures.", transform: { $0.lowercased() })
  var iosProfile: String = "ios"

  @Option(help: "Profile for Android departures (default: by the os column, android8 from Android 8 on, else android).", transform: { $0.lowercased() })
  var androidProfile: String?

  @Option(name: .customLong("seeds"), parsing: .unconditional, help: "Seeds per departure (default 20; with --published, replays of the synthetic data, default 10).")
  var seedsOption: Int?

  var seeds: Int { seedsOption ?? (published ? 10 : 20) }

  @Option(parsing: .unconditional, help: "The first seed; the others follow it.")
  var seed: UInt64 = 1

  @Option(name: .customLong("format"), help: "Output format: table, jsonl, csv (the JSON Lines keys as columns) or html (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: output, supported: ["table", "jsonl", "csv", "html"], fallback: "table") }

  @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
  var output: String = "-"

  @Flag(help: "Replace the output file if it exists.")
  var force = false

  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: output, supported: ["table", "jsonl", "csv", "html"])
    switch (dataset, published) {
    case (nil, false): throw ValidationError("give a DATASET folder, or --published")
    case (.some, true): throw ValidationError("--published compares published measurements: give it without a DATASET")
    default: break
    }
    let names = RegionMonitoringProfile.named.keys.sorted().joined(separator: ", ")
    for (option, name) in [("--ios-profile", iosProfile), ("--android-profile", androidProfile ?? "android")] {
      guard RegionMonitoringProfile.named[name] != nil else { throw ValidationError("\(option) must be one of \(names), got \(name)") }
    }
    guard (1...10_000).contains(seeds) else { throw ValidationError("--seeds must be in 1...10000, got \(seeds)") }
    guard seed <= UInt64.max - UInt64(seeds) else { throw ValidationError("--seed is too large for \(seeds) seeds") }
    guard format == "csv" || FidelityReport.Format(rawValue: format) != nil else { throw ValidationError("--format must be table, jsonl, csv or html, got \(format)") }
  }

  func run() throws {
    try checkOptions()
    if published {
      try runPublished()
      return
    }
    let dataset = dataset ?? ""
    let folder = dataset.hasSuffix("/") ? String(dataset.dropLast()) : dataset
    let departures: [MeasuredDeparture]
    do { departures = try Self.read(folder, profilesByVersion: androidProfile == nil) } catch { throw Diagnostics.fail(error) }
    guard !departures.isEmpty else {
      Diagnostics.error("\(folder)/departures.csv: no departures: expected at least one line after the header")
      throw SysExit.dataError
    }
    let ios = RegionMonitoringProfile.named[iosProfile]!
    let android = androidProfile.map { RegionMonitoringProfile.named[$0]! }
    let run: FidelityRun
    do {
      run = try FidelityRun(departures: departures, seeds: (0..<UInt64(seeds)).map { seed + $0 }) { departure in
        switch departure.platform {
        case .ios: return ios
        case .android: return android ?? departure.os.map { RegionMonitoringProfile.android(version: $0) } ?? .android
        }
      }
    } catch {
      Diagnostics.error(error.description)
      throw SysExit.usage
    }
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    do {
      let report = FidelityReport(run, source: folder)
      try Self.write(format, to: out) { sink, format throws(TrackIOError) in try report.write(format, to: sink) }
      try out.commit()
    } catch { throw Diagnostics.fail(error) }
  }

  /// Writes a report in `format`; CSV is its JSON Lines, every key a column.
  static func write(
    _ format: String, to out: ByteSink, _ report: (ByteSink, FidelityReport.Format) throws(TrackIOError) -> Void
  ) throws(TrackIOError) {
    guard format == "csv" else { return try report(out, FidelityReport.Format(rawValue: format) ?? .table) }
    let lines = ByteSink.inMemory()
    try report(lines, .jsonl)
    try out.write(JSONLinesCSV.convert(lines.takeBytes()))
  }

  /// `--published`: the published measurements against the profiles on synthetic data.
  func runPublished() throws {
    let comparison: PublishedComparison
    do {
      comparison = try PublishedComparison(
        seed: seed, seeds: (0..<UInt64(seeds)).map { seed + $0 }, ios: RegionMonitoringProfile.named[iosProfile]!,
        android: RegionMonitoringProfile.named[androidProfile ?? "android8"]!)
    } catch {
      Diagnostics.error("\(error)")
      throw SysExit.usage
    }
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    do {
      let report = PublishedReport(comparison)
      try Self.write(format, to: out) { sink, format throws(TrackIOError) in try report.write(format, to: sink) }
      try out.commit()
    } catch { throw Diagnostics.fail(error) }
  }

  /// The departures of the data set in `folder`, with their tracks and fences. With
  /// `profilesByVersion` (the Android profile picked by each phone's version), an Android `os`
  /// that names no version gets a warning.
  static func read(_ folder: String, profilesByVersion: Bool = false) throws(TrackIOError) -> [MeasuredDeparture] {
    let list = folder + "/departures.csv"
    var departures: [MeasuredDeparture] = []
    for record in try DepartureCSVReader.read(path: list) {
      if profilesByVersion, record.platform == "android", let os = record.os, RegionMonitoringProfile.androidMajorVersion(os) == nil {
        Diagnostics.warning(TrackIOError(
          path: list, line: record.line, column: 1,
          message: "os \"\(os)\" names no version: replayed with android (as before Android 8); expected a version such as Android 6.0.1"))
      }
      let trackPath = "\(folder)/\(record.id)/track.csv"
      let fencePath = "\(folder)/\(record.id)/fence.csv"
      var reader = try FixCSVReader(path: trackPath)
      var track: [LocationFix] = []
      while let fix = try reader.next() {
        if let last = track.last, fix.time < last.time {
          throw TrackIOError(
            path: reader.path, line: reader.lineNumber, column: 1,
            message: "time is earlier than the fix before: expected fixes in time order")
        }
        track.append(fix)
      }
      let regions = try RegionFileReader.readValidated(path: fencePath).regions
      guard regions.count == 1, case .circle(let fence) = regions[0] else {
        // The file as a whole is wrong: located at its start.
        throw TrackIOError(path: fencePath, line: 1, column: 1, message: "\(regions.count) regions: expected one circle, the fence")
      }
      departures.append(MeasuredDeparture(
        id: record.id, platform: MeasuredDeparture.Platform(rawValue: record.platform) ?? .ios, departureTime: record.departureTime,
        exitTime: record.exitTime, fenceCreatedTime: record.fenceCreatedTime, isComparable: record.exitClass != "premature",
        fence: fence, track: track, os: record.os))
    }
    return departures
  }
}
