import ArgumentParser
import GeoWake
import GeoWakeReports
import Geodesy
import Geofencing
import TrackIO

/// `geowake analyze`: the region-monitoring timeline of a track under a platform profile.
struct AnalyzeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Print when an app would have been told of region crossings and significant location changes along a track.",
    discussion: AnalyzeCommand.discussion + HelpExamples.section(["geowake analyze --regions Fixtures/demo/tokyo-regions.csv Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx",
        "geowake analyze --regions Fixtures/demo/tokyo-regions.csv Fixtures/demo/tokyo-track.csv --platform android --app Fixtures/demo/app-scenario.json --format jsonl"])
  )

  @Argument(help: "Track files (GPX, CSV, JSON Lines, GeoJSON, Google location history; gzip-compressed or not), folders of them, or - for standard input (any track format). Several files, a folder, or a device column make a run over many devices.")
  var tracks: [String] = []

  @Option(help: "Regions file (CSV id,lat,lon,radius; GeoJSON; or JSON).")
  var regions: String?

  @Option(help: "Cell towers (OpenCellID CSV) to follow the serving cell with.")
  var towers: String?

  @Option(name: .customLong("synthetic-cells"), help: "Follow the serving cell on a synthetic hexagonal layout: spacing in metres, urban (1500) or rural (8000).")
  var syntheticCells: String?

  @Flag(name: .customLong("significant-changes"), help: "Add significant-location-change events (from serving-cell handoffs).")
  var significantChanges = false

  @Option(help: "App scenario (JSON): handler behaviour per event kind, profile, user sessions, force-quits; adds the app's wakes, budgets and terminations.")
  var app: String?

  @Option(help: "A provider's push requests (JSON Lines, as geowake push reads them): their outcomes join the timeline and delivered content-available pushes wake the --app.")
  var pushes: String?

  @Option(help: "The user's launches (CSV time[,duration]) for background fetch: the --app's fetch policy and handler, scheduled over the track's span (earlier launches are history); decisions, results and staleness join the timeline and fetches wake the same app.")
  var usage: String?

  @Option(help: "Publication times for --usage (CSV time[,…]); default: news every 30 min, 06:00–22:00 local.")
  var feed: String?

  @Option(help: "Device conditions for --pushes and --usage (CSV start,end,condition: offline, lowPowerMode, backgroundRefreshOff).")
  var connectivity: String?

  @Flag(name: .customLong("periodic-wake"), help: "With --significant-changes: also wake every 15 minutes without movement (disputed; off by default).")
  var periodicWake = false

  @Option(name: [.customLong("platform"), .customLong("profile")], help: PlatformOption.help)
  var platformName: Platform.Name = .ios

  @OptionGroup(title: "Server rules")
  var serverRules: ServerRulesOptions

  /// Every rule of the platform chosen (on `server`, with the rules tuned).
  var platform: Platform { serverRules.applied(to: Platform.named(platformName)) }

  @Option(name: .customLong("format"), help: "Output format: table, jsonl, csv, geojson or html (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: output, supported: ["table", "jsonl", "csv", "geojson", "html"], fallback: "table") }

  @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
  var output: String = "-"

  @Flag(help: "Table times in UTC even when the track's times name another offset (by default the table shows the track's own clock, the first offset its CSV or JSON Lines times name; other formats are UTC).")
  var utc = false

  @Flag(help: "With --format table on a terminal: whole rows with full dates, however wide (as when the output is piped or a file); by default rows fit the terminal, reasons wrapped below them.")
  var wide = false

  @Flag(help: "Replace the output file if it exists.")
  var force = false

  @Flag(help: "Recover what can be read from a damaged GPX track; each recovery is a warning on standard error and counted in the summary.")
  var lenient = false

  @Flag(name: .customLong("assume-utc"), help: "Read times without a zone (2024-05-01T07:00:00) in tracks and in the --app inputs as UTC instead of refusing them.")
  var assumeUTC = false

  @Option(parsing: .unconditional, help: "Seed for the delivery latencies (with many devices, each device's seed is drawn from it and the device's name).")
  var seed: UInt64 = 0

  @Option(parsing: .unconditional, help: "Also monitor the regions with this many seeds (--seed and the next ones) and add their spread to the summary: per region, entries and exits reported, crossings never reported, the time from a crossing to the app. One track file.")
  var seeds: Int = 1

  @Option(parsing: .unconditional, help: "With many devices: how many to analyse at once (default: the number of cores).")
  var jobs: Int?

  func validate() throws { try serverRules.check(platform: platformName) }

  func run() async throws {
    try checkOptions()
    var regionFile = RegionFile(regions: [])
    if let regions {
      do { regionFile = try RegionFileReader.readValidated(path: regions) } catch { throw Diagnostics.fail(error) }
    }
    // The track is read on a thread of its own, ahead of the monitoring.
    let reader: ReadAheadTrackReader
    var trackOffset = 0
    var pending: Result<LocationFix?, TrackIOError>?
    do {
      switch try DeviceTrackSource.open(tracks, options: .init(lenient: lenient, assumeUTC: assumeUTC)) {
      case .many(let source): return try await runDevices(source, regionFile: regionFile)
      case .one(let opened, let first):
        (reader, pending) = (ReadAheadTrackReader(opened, lenient: lenient), first)
        // The first fix is read: its time says the track's clock.
        trackOffset = opened.utcOffset ?? 0
      }
    } catch let error as TrackIOError { throw Diagnostics.fail(error) }
    let track = tracks[0]
    let cells = try cellConfiguration(trackNamesCells: reader.namesCells)
    let app = try appInputs()
    var timeline = try deviceTimeline(regionFile, cells: cells, app: app)
    let notifications = regionFile.notifications
    let longestName = regionFile.regions.lazy.map { $0.identifier.rawValue.count }.max() ?? 0
    regionFile = RegionFile(regions: [])
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    var writer = timelineWriter(to: out, track: track, timeline: timeline, cells: cells)
    writer.width = TerminalWidth.columns(output: output, wide: wide)
    if !utc { writer.utcOffset = trackOffset }
    writer.subjectWidth = max(18, longestName + 2)
    var events: [TimelineEvent] = []
    var checks = InputChecks()
    var progress = ProgressBar(path: track, label: "analyze", output: output)
    defer { progress.finish() }
    do {
      try writer.begin()
      var fixesRead = 0
      // Options read once: a property wrapper's getter per fix costs generic-metadata lookups.
      let lenient = self.lenient
      while true {
        let next: LocationFix?
        if let first = pending {
          pending = nil
          next = try first.get()
        } else {
          next = try reader.next()
        }
        guard let fix = next else { break }
        checks.add(fix)
        fixesRead += 1
        if fixesRead & 0x3FFF == 0 { progress.update(bytes: reader.bytesRead) }
        if lenient { warn(reader.takeWarnings(), &progress) }
        events.removeAll(keepingCapacity: true)
        if timeline.process(fix, reportedCell: reader.reportedCell, into: &events) == nil { writer.add(fix) }
        for event in events { try writer.write(event) }
      }
      progress.update(bytes: reader.bytesRead)
      warn(reader.takeWarnings(), &progress)
      events.removeAll(keepingCapacity: true)
      do { try timeline.finish(into: &events) } catch {
        Diagnostics.error("\(usage ?? "usage"): \(error)")
        throw SysExit.dataError
      }
      for event in events { try writer.write(event) }
      let summary = timeline.summary
      let report = TimelineSummaryReport(
        summary, regionsGiven: regions != nil, damageRecovered: reader.warningCount,
        pointsWithoutTime: reader.pointsWithoutTime, usageSource: Self.fileName(usage ?? ""),
        pushSource: Self.fileName(pushes ?? ""), appSource: Self.fileName(self.app ?? ""))
      var spread = ""
      progress.clear()
      if seeds > 1 {
        spread = SeedSpreadReport(try seedSpread(timeline.monitor.regions, notifications), profile: platformName.rawValue).text
      }
      progress.clear()
      try writer.finish(summary: report.text + spread)
      try out.commit()
      try warnAboutInput(summary, checks, pointsWithoutTime: reader.pointsWithoutTime, track: track, hasApp: app != nil)
    } catch let error as TrackIOError {
      throw Diagnostics.fail(error)
    }
  }

  static func fileName(_ path: String) -> String { path == "-" ? "standard input" : String(path.split(separator: "/").last ?? Substring(path)) }
}
