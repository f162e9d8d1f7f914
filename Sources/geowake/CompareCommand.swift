import ArgumentParser
import BackgroundRuntime
import CellHandoff
import GeoWake
import GeoWakeReports
import JSONBytes
import Geofencing
import RuntimeIO
import TrackIO

/// `geowake compare`: region monitoring against significant location changes on one track.
struct CompareCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "compare",
    abstract: "Compare region monitoring with significant location changes on a track: wakes, crossings learned, delay, energy.",
    discussion: """
      The real crossings are the geometric truth (the server profile). Region monitoring (the \
      --platform's rules) learns of a crossing when it delivers the event for it, early or late: \
      an enter (or exit) for that region whose inside (outside) the app then holds while the \
      device really is inside (outside) after that crossing, so iOS's entries up to 200 m before \
      the boundary count, and an entry taken back before the device enters does not; significant \
      changes (500 m / 5 min from cell handoffs, on --towers, --synthetic-cells or the track's \
      own cells; urban synthetic cells by default) learn of it when a delivered location is on \
      the other side. For each: wakes, wakes per hour, crossings learned and missed, mean and \
      median delay from the crossing to the app knowing, and an energy estimate: the location \
      service's average power over the track plus 10 s of the app per wake (defaults: region \
      monitoring 5 mW, significant changes 0.5 mW, 400 mW per woken app, a 12 Wh battery; \
      assumptions documented in EnergyModel — override with --energy-model FILE.json and the keys \
      regionMonitoringPower, significantChangesPower, wakePower, wakeSeconds, batteryWattHours).
      """ + HelpExamples.section(["geowake compare --regions Fixtures/demo/tokyo-regions.csv Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx",
        "geowake compare --regions Fixtures/demo/tokyo-regions.csv Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx --platform android --synthetic-cells rural"])
  )

  @Argument(help: "Track file (GPX, CSV, JSON Lines, GeoJSON, Google location history, or a drive log; gzip-compressed or not).")
  var track: String

  @Option(help: "Regions file (CSV, GeoJSON or JSON).")
  var regions: String

  @Option(
    name: [.customLong("platform"), .customLong("profile")],
    help: "The phone whose region monitoring is compared: ios (the default), android or android8 (Android 8 and later), as measured phones behave (android-samsung is android8's geofencing); ios-documented or android-documented, as the vendors document them.")
  var platformName: Platform.Name = .ios

  @Option(help: "Cell towers (OpenCellID CSV).")
  var towers: String?

  @Option(name: .customLong("synthetic-cells"), help: "Synthetic hexagonal cells: urban, rural or metres.")
  var syntheticCells: String?

  @Option(name: .customLong("energy-model"), help: "JSON file overriding the energy model's numbers.")
  var energyModel: String?

  @Flag(help: "Recover what can be read from a damaged GPX track or tower file, with warnings.")
  var lenient = false

  @Flag(name: .customLong("assume-utc"), help: "Read CSV and JSON Lines times without a zone (2024-05-01T07:00:00) as UTC instead of refusing them.")
  var assumeUTC = false

  @Option(parsing: .unconditional, help: "Seed for the delivery latencies.")
  var seed: UInt64 = 0

  @Option(name: .customLong("format"), help: "Output format: table, jsonl or csv (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  @OptionGroup var outputOptions: OutputOptions

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: outputOptions.output, supported: ["table", "jsonl", "csv"], fallback: "table") }

  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: outputOptions.output, supported: ["table", "jsonl", "csv"])
    guard ["table", "jsonl", "csv"].contains(format) else { throw ValidationError("--format must be table, jsonl or csv, got \(format)") }
    guard platformName != .server else {
      throw ValidationError("--platform server is the geometric truth the phones are compared with: choose ios, android, android8, android-samsung, ios-documented or android-documented")
    }
    guard towers == nil || syntheticCells == nil else { throw ValidationError("--towers and --synthetic-cells exclude each other") }
    if let syntheticCells, AnalyzeCommand.spacing(syntheticCells) == nil {
      throw ValidationError("--synthetic-cells must be urban, rural or metres in 100...100000, got \(syntheticCells)")
    }
  }

  func run() throws {
    try checkOptions()
    let regionFile: RegionFile
    do { regionFile = try RegionFileReader.readValidated(path: regions) } catch { throw Diagnostics.fail(error) }
    var energy = EnergyModel.standard
    if let energyModel {
      do { energy = try EnergyModelReader.read(path: energyModel) } catch { throw Diagnostics.fail(error) }
    }
    var layout = CellLayout.hexagonal(spacing: AnalyzeCommand.spacing(syntheticCells ?? "urban") ?? HexagonalCellLayout.urbanSpacing)
    if let towers {
      do {
        let file = try TowerCSVReader.read(path: towers, lenient: lenient, warning: Diagnostics.warning)
        layout = .towers(try TowerMap(file.towers))
      } catch let error as TrackIOError {
        throw Diagnostics.fail(error)
      } catch {
        Diagnostics.error("\(towers): \(error)")
        throw SysExit.dataError
      }
    }
    var comparison: StrategyComparison
    do {
      comparison = try StrategyComparison(
        regions: regionFile.regions, platform: Platform.named(platformName).regionMonitoring, cells: layout, energy: energy, seed: seed)
    } catch .cells(let error) {
      Diagnostics.error(error.description)
      throw SysExit.usage
    } catch {
      Diagnostics.error("\(regions): \(error)")
      throw SysExit.dataError
    }
    var reader: TrackFileReader
    do { reader = try TrackFileReader(path: track, options: .init(lenient: lenient, assumeUTC: assumeUTC)) } catch { throw Diagnostics.fail(error) }
    var checks = InputChecks()
    // A file of many devices (a device column) is not one track: counted, then refused.
    var devices: Set<String> = []
    var deviceChanges = 0
    do {
      while let fix = try reader.next() {
        if reader.deviceChanges != deviceChanges, let device = reader.device {
          deviceChanges = reader.deviceChanges
          devices.insert(device)
        }
        guard devices.count < 2 else { continue }
        checks.add(fix)
        comparison.process(fix, reportedCell: reader.reportedCell)
        if lenient { reader.takeWarnings().forEach(Diagnostics.warning) }
      }
      reader.takeWarnings().forEach(Diagnostics.warning)
    } catch { throw Diagnostics.fail(error) }
    guard devices.count < 2 else {
      Diagnostics.error(
        "\(track): error: the file holds the fixes of \(devices.count) devices (its device column names "
          + devices.sorted().prefix(3).map { "\"\($0)\"" }.joined(separator: ", ") + (devices.count > 3 ? ", …" : "")
          + "): compare follows one device's track; give a file of one device's fixes, or use geowake analyze, which follows every device")
      throw SysExit.dataError
    }
    checks.fixWarnings(track: track).forEach(Diagnostics.error)
    let results = comparison.finish()
    let out = try outputOptions.sink()
    do {
      let text: String
      switch format {
      case "jsonl": text = Self.jsonLines(results, passThroughs: comparison.passThroughs, energy: energy)
      case "csv": text = Self.csv(results, passThroughs: comparison.passThroughs, energy: energy)
      default:
        text = Self.table(
          results, passThroughs: comparison.passThroughs, energy: energy, width: TerminalWidth.columns(output: outputOptions.output, wide: false))
      }
      try out.write(text)
      try out.commit()
    } catch { throw Diagnostics.fail(error) }
  }

  /// One object per strategy: `strategy`, `wakes`, `wakesPerHour`, `crossings` (the real ones),
  /// `learned`, `missed`, `meanDelay` and `medianDelay` (seconds from a crossing to the app
  /// knowing; null when none was learned), `joules`, `batteryPercent`, `trackDuration`
  /// (seconds) and `passThroughs` (crossings between fixes that no strategy can see).
  static func jsonLines(_ results: [StrategyComparison.Result], passThroughs: Int, energy: EnergyModel) -> String {
    results.map { r in
      "{" + fields(r, passThroughs: passThroughs, energy: energy).map { "\"\($0.key)\":\($0.json)" }.joined(separator: ",") + "}\n"
    }.joined()
  }

  /// The same keys as JSON Lines, as CSV columns (empty for `null`).
  static func csv(_ results: [StrategyComparison.Result], passThroughs: Int, energy: EnergyModel) -> String {
    guard let first = results.first else { return "" }
    let header = fields(first, passThroughs: passThroughs, energy: energy).map(\.key).joined(separator: ",") + "\n"
    return header + results.map { r in
      fields(r, passThroughs: passThroughs, energy: energy).map { field in
        field.json == "null" ? "" : field.json.hasPrefix("\"") ? RegionWriter.csvField(field.text) : field.json
      }.joined(separator: ",") + "\n"
    }.joined()
  }

  /// One strategy's keys and values, as JSON and as text.
  static func fields(_ r: StrategyComparison.Result, passThroughs: Int, energy: EnergyModel) -> [(key: String, json: String, text: String)] {
    func number(_ v: Double?) -> (String, String) { (v.map(JSONText.number) ?? "null", v.map(JSONText.number) ?? "") }
    func integer(_ v: Int) -> (String, String) { ("\(v)", "\(v)") }
    let values: [(String, (String, String))] = [
      ("strategy", (JSONText.quoted(r.strategy), r.strategy)), ("wakes", integer(r.wakes)), ("wakesPerHour", number(r.wakesPerHour)),
      ("crossings", integer(r.crossings)), ("learned", integer(r.learned)), ("missed", integer(r.missed)),
      ("meanDelay", number(r.meanDelay)), ("medianDelay", number(r.medianDelay)), ("joules", number(r.joules)),
      ("batteryPercent", number(energy.batteryPercent(joules: r.joules))), ("trackDuration", number(r.duration)),
      ("passThroughs", integer(passThroughs)),
    ]
    return values.map { ($0.0, $0.1.0, $0.1.1) }
  }

  /// The table; for a terminal `width` columns wide, in blocks that fit and with its lines
  /// wrapped (nil: as wide as it is).
  static func table(_ results: [StrategyComparison.Result], passThroughs: Int, energy: EnergyModel, width: Int? = nil) -> String {
    func duration(_ seconds: Double?) -> String { seconds.map { CrossingsCommand.duration($0) } ?? "-" }
    if let width {
      let rows = results.map { r in
        [
          r.strategy, "\(r.wakes)", NumberText.fixed(r.wakesPerHour, decimals: 1), "\(r.learned) of \(r.crossings)", "\(r.missed)",
          duration(r.meanDelay), duration(r.medianDelay),
          "\(NumberText.fixed(r.joules, decimals: 1)) J (\(NumberText.fixed(energy.batteryPercent(joules: r.joules), decimals: 3)) % of \(NumberText.fixed(energy.batteryWattHours, decimals: 0)) Wh)",
        ]
      }
      let table = TerminalText.table(
        header: ["strategy", "wakes", "wakes/h", "learned", "missed", "mean delay", "median delay", "energy"], rows: rows, width: width)
      let wide = Self.table(results, passThroughs: passThroughs, energy: energy)
      // The lines after the table, wrapped.
      let after = wide.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(results.count + 1).joined(separator: "\n")
      return table + TerminalText.wrapped(after, width: width)
    }
    let width = max(30, (results.map(\.strategy.count).max() ?? 0) + 2)
    var text = "strategy".column(width) + "wakes  wakes/h  learned    missed  mean delay    median delay  energy\n"
    for r in results {
      let percent = energy.batteryPercent(joules: r.joules)
      text += r.strategy.column(width) + "\(r.wakes)".column(7) + NumberText.fixed(r.wakesPerHour, decimals: 1).column(9)
        + "\(r.learned) of \(r.crossings)".column(11) + "\(r.missed)".column(8) + duration(r.meanDelay).column(14)
        + duration(r.medianDelay).column(14) + "\(NumberText.fixed(r.joules, decimals: 1)) J (\(NumberText.fixed(percent, decimals: 3)) % of \(NumberText.fixed(energy.batteryWattHours, decimals: 0)) Wh)\n"
    }
    if let first = results.first {
      text += "\n\(CrossingsCommand.duration(first.duration)) of track, \(counted(first.crossings, "real crossing")) (enter or exit)"
      if passThroughs > 0 { text += ", \(counted(passThroughs, "pass-through")) between fixes that neither strategy can see" }
      text += "\n"
    }
    text += "energy model: location power "
      + EnergyModel.LocationService.allCases.map { "\($0.rawValue) \(NumberText.fixed(energy.locationPower[$0] ?? 0, decimals: 1)) mW" }.joined(separator: ", ")
      + "; \(NumberText.fixed(energy.wakePower, decimals: 0)) mW for \(NumberText.fixed(energy.wakeSeconds, decimals: 0)) s per wake (assumptions; see --help)\n"
    return text
  }
}
