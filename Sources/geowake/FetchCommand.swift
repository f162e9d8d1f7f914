import Foundation
import ArgumentParser
import BackgroundRuntime
import GeoWake
import RuntimeIO
import GeoWakeReports
import TrackIO

/// `geowake fetch`: when the system would fetch in the background for a user's launch habits,
/// and how fresh the content was at each launch, against fixed and oracle baselines.
struct FetchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fetch",
    abstract: "Simulate background fetch for a user's launches: fetch decisions, staleness at launch, baselines.",
    discussion: """
      --usage is a CSV of launches (time[,duration]); times are ISO 8601 and their UTC offset is \
      the device clock's, so habits are learned in local time (a time without a zone is refused: \
      --assume-utc reads it as UTC). The last --days local days are \
      simulated; earlier launches are the history the system learned from. --feed is a CSV of \
      publication times (time[,…]); without it, news is published every 30 min from 06:00 to \
      22:00 local time. Staleness at a launch is the launch time minus the oldest publication not \
      yet fetched (0 when none); opening the app refreshes it.

      The app: without --app, an app that declares the fetch background mode, asks for the \
      minimum interval and whose handler takes 3 s. With --app SCENARIO.json: its profile, seed, \
      "handlers": {"fetch": {"work", "backgroundTask", "variation", "failureRate"}}, \
      "backgroundModes", "fetchInterval" ("never" — the iOS default —, "minimum" or seconds), \
      "forceQuits", and for BGTaskScheduler "permittedTaskIdentifiers" with "appRefresh": \
      {"identifier", "earliestBeginAfter"} (the app submits a refresh request when opened and \
      after each refresh; each fetch needs one and comes no earlier than its earliestBeginDate). --policy overrides the fetch interval. --conditions is a CSV \
      start,end,condition (lowPowerMode, backgroundRefreshOff, offline): no fetch then.

      On --platform android (android8, android-samsung, android-documented) the system's fetch is a periodic \
      WorkManager job instead: due every 15 min at the least (or the app's custom interval), held \
      by conditions, by Doze until its maintenance windows once the screen has been off an hour, \
      and by the standby bucket's quota of job time; each run may take 10 min.

      The scheduler runs beside three baselines in one run: fixed 15 min, fixed 1 h, and an oracle \
      that fetches 60 s before each launch. --format table lists the scheduler's decisions, \
      launches and fetch results, then every strategy's totals and the promise's checks; jsonl \
      adds the app runtime's steps (category "app") and ends with one summary line per strategy \
      and one line per check; html draws a day-by-day chart and staleness over time.

      Several --usage files, or a folder of them (its .csv files; geowake generate usage \
      --population makes one), are a population: each user is simulated as above (the default \
      feed drawn for each), and the report gives, per strategy, the spread over users of fresh \
      share, p90 staleness and fetches per day, the scheduler's checks (for every user: p90 \
      staleness no worse than fixed 1 h's with at most a third of its fetches, and at most 1 h; \
      over all: a median fresh share at least fixed 1 h's, 2–60 fetches a day for daily users), \
      then one line per user (table or jsonl).
      """ + HelpExamples.section(["geowake fetch --usage Fixtures/fetch/morning-checker.csv --feed Fixtures/fetch/news-feed.csv",
        "geowake fetch --usage Fixtures/fetch/hourly-checker.csv --format jsonl"])
  )

  @Option(help: "Launches (CSV time[,duration]); repeat it, or give a folder, for a population of users.")
  var usage: [String]

  @Option(help: "Publication times (CSV time[,…]); default: news every 30 min, 06:00–22:00 local.")
  var feed: String?

  @Option(help: "Fetch interval policy: never, minimum or custom:SECONDS.", transform: { $0.lowercased() })
  var policy: String?

  @Option(parsing: .unconditional, help: "Days simulated (the last ones of the usage file).")
  var days: Int = 14

  @Option(help: "App scenario (JSON): fetch handler, profile, seed, background modes, fetch interval, force-quits.")
  var app: String?

  @Option(help: "Device conditions (CSV start,end,condition).")
  var conditions: String?

  @Option(
    name: .customLong("platform"),
    help: "The phone: ios (the default: the system's scheduler learns the user's launch habits), ios-documented or server (the same), android, android8, android-samsung or android-documented (a periodic WorkManager job, at least every \(Self.androidJobMinutes) min, held by Doze and the standby bucket's quota).")
  var platformName: Platform.Name = .ios

  @Flag(name: .customLong("assume-utc"), help: "Read usage, feed, condition and app scenario times without a zone (2024-05-01T07:00:00) as UTC instead of refusing them.")
  var assumeUTC = false

  @Option(name: .customLong("format"), help: "Output format: table, jsonl, csv (the JSON Lines keys as columns) or html (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: output, supported: ["table", "jsonl", "csv", "html"], fallback: "table") }

  @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
  var output: String = "-"

  @Flag(help: "Replace the output file if it exists.")
  var force = false

  @Flag(help: "With --format table on a terminal: whole lines with full times, however wide (as when the output is piped or a file); by default lines fit the terminal.")
  var wide = false

  @Flag(
    name: .customLong("report-only"),
    help: "Exit 0 when a check fails (by default the report is written, the failed checks named on standard error, and the exit status is 1).")
  var reportOnly = false

  /// The shortest period of Android's periodic job, in minutes, as the help states it.
  static var androidJobMinutes: Int {
    if case .periodicJob(let period) = FetchProfile.android.scheduler { return Int(period / 60) }
    return 0
  }

  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: output, supported: ["table", "jsonl", "csv", "html"])
    if let policy, FetchPolicy(text: policy) == nil {
      throw ValidationError("--policy must be never, minimum or custom:SECONDS (a whole number > 0), got \(policy)")
    }
    guard (1...366).contains(days) else { throw ValidationError("--days must be in 1...366, got \(days)") }
    guard format == "csv" || FetchReport.Format(rawValue: format) != nil else { throw ValidationError("--format must be table, jsonl, csv or html, got \(format)") }
  }

  /// The usage files: each `--usage` file, and the `.csv` files of each folder, in name order
  /// (anything else in the folder but hidden files is named in a warning).
  func usageFiles() throws -> [String] {
    var files: [String] = []
    for path in usage {
      // Anything but a folder is read as a usage file (which reports a missing one).
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
        files.append(path)
        continue
      }
      let all = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
      let names = all.filter { $0.lowercased().hasSuffix(".csv") || $0.lowercased().hasSuffix(".csv.gz") }
      let kept = Set(names)
      let skipped = all.filter { !kept.contains($0) }
      if !skipped.isEmpty {
        Diagnostics.error(
          "warning: \(path): left out \(skipped.count == 1 ? "1 entry" : "\(skipped.count) entries") not named .csv or .csv.gz (usage files are CSV): "
            + skipped.joined(separator: ", "))
      }
      guard !names.isEmpty else {
        Diagnostics.error("\(path): no usage files in the folder: expected .csv files of launches")
        throw SysExit.noInput
      }
      files += names.map { path + "/" + $0 }
    }
    return files
  }

  func run() throws {
    try checkOptions()
    let files = try usageFiles()
    guard files.count == 1, usage.count == 1, files[0] == usage[0] else {
      try runPopulation(files)
      return
    }
    let usage = files[0]
    let (simulation, feedSource) = try simulate(usage)
    let comparison = FetchComparison(simulation)
    var report = FetchReport(comparison, usageSource: usage, feedSource: feedSource)
    report.width = TerminalWidth.columns(output: output, wide: wide)
    try writeOutput { out, format throws(TrackIOError) in try report.write(format, to: out) }
    try exitIfFailed(comparison.checks.map { ($0.name, $0.passed) })
  }

  /// Once the report is written: exits with status 1, naming them on standard error, when some of
  /// the checks failed (unless `--report-only`), so a script or CI job cannot take a broken
  /// promise for a kept one.
  func exitIfFailed(_ checks: [(name: String, passed: Bool)]) throws {
    let failed = checks.filter { !$0.passed }.map(\.name)
    guard !failed.isEmpty else { return }
    let which = failed.map { "\"\($0)\"" }.joined(separator: ", ")
    Diagnostics.error(
      "\(failed.count) of \(checks.count) checks failed (\(which)); the report says by how much"
        + (reportOnly ? "" : "; exit status 1 (--report-only exits 0)"))
    if !reportOnly { throw ExitCode(1) }
  }

  /// Opens the output (never replacing a file without --force), writes it in the chosen format and
  /// puts it in place.
  func writeOutput(_ write: (ByteSink, FetchReport.Format) throws(TrackIOError) -> Void) throws {
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    do {
      if format == "csv" {
        // The JSON Lines, every key a column.
        let lines = ByteSink.inMemory()
        try write(lines, .jsonl)
        try out.write(JSONLinesCSV.convert(lines.takeBytes()))
      } else {
        try write(out, FetchReport.Format(rawValue: format) ?? .table)
      }
      try out.commit()
    } catch { throw Diagnostics.fail(error) }
  }

  /// Every user of `files` against the baselines, reported over the population.
  func runPopulation(_ files: [String]) throws {
    guard format != "html" else { throw ValidationError("--format html draws one user: give one --usage file, or table or jsonl for a population") }
    var users: [FetchPopulation.User] = []
    for file in files {
      let (simulation, _) = try simulate(file)
      let name = file.split(separator: "/").last.map(String.init) ?? file
      users.append(FetchPopulation.User(name: name, comparison: FetchComparison(simulation)))
    }
    let population = FetchPopulation(users: users)
    var report = FetchPopulationReport(population, source: usage.joined(separator: ", "))
    report.width = TerminalWidth.columns(output: output, wide: wide)
    try writeOutput { out, format throws(TrackIOError) in try report.write(format, to: out) }
    try exitIfFailed(population.checks.map { ($0.name, $0.passed) })
  }

  /// One user's simulation, and where its feed came from.
  func simulate(_ usage: String) throws -> (FetchSimulation, String) {
    let launches: [UserLaunch]
    do { launches = try UsageCSVReader.read(path: usage, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    if let first = launches.first, let last = launches.last,
      let warning = InputChecks.timeWarning("the launches of \(usage)", earliest: first.time, latest: last.time, positioned: false)
    {
      Diagnostics.error(warning)
    }
    guard let window = FetchSimulation.window(days: days, launches: launches) else {
      Diagnostics.error("\(usage): no launches: expected at least one line after the header")
      throw SysExit.dataError
    }
    let offset = launches.last?.utcOffset ?? 0
    var scenario = AppScenario(
      behaviours: [.fetch: HandlerBehaviour(work: 3)], configuration: AppConfiguration(backgroundModes: [.fetch], fetchPolicy: .minimum))
    if let app {
      do { scenario = try ScenarioReader.read(path: app, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    }
    if let policy, let parsed = FetchPolicy(text: policy) { scenario.configuration.fetchPolicy = parsed }
    let platform = Platform.named(platformName)
    scenario = PlatformOption.scenario(scenario, from: app ?? "", on: platform)
    let contentFeed: ContentFeed
    let feedSource: String
    if let feed {
      do { contentFeed = try FeedCSVReader.read(path: feed, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
      feedSource = feed
    } else {
      let first = launches.first?.time ?? window.lowerBound
      let days = Int(((window.upperBound - first) / LocalTime.secondsPerDay).rounded(.up)) + 1
      contentFeed = try .daytimeNews(from: first, days: days, utcOffset: offset)
      feedSource = "news every 30 min from 06:00 to 22:00 local time (generated)"
    }
    var deviceConditions = DeviceConditions()
    if let conditions {
      do { deviceConditions = try DeviceConditionsCSVReader.read(path: conditions, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    }
    var simulation = FetchSimulation(scenario: scenario, launches: launches, window: window, feed: contentFeed, conditions: deviceConditions)
    simulation.fetchProfile = platform.fetch
    return (simulation, feedSource)
  }
}
