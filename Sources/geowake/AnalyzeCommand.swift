import ArgumentParser
import BackgroundRuntime
import CellHandoff
import Geodesy
import Geofencing
import TrackIO

/// `geowake analyze`: the region-monitoring timeline of a track under a platform profile.
struct AnalyzeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Print when an app would have been told of region crossings and significant location changes along a track.",
    discussion: """
      TRACK is a GPX 1.0/1.1 file (its timed track points) or a CSV file of fixes. REGIONS is a \
      CSV file with id,lat,lon,radius (metres), a GeoJSON FeatureCollection (Point features with \
      a radius property, Polygon, MultiPolygon; notifyOnEntry/notifyOnExit properties) or a JSON \
      array of {id, lat, lon, radius}, in registration order. The profile decides the \
      rules: ios (default: 20-region cap, 200 m / 20 s confirmation, accuracy gating, 3-5 min \
      delivery latency, pass-throughs unseen), android (100-region cap, confirmation by the share \
      of the fix's accuracy disc inside: 85 %/15 %, low confidence in between; dwell after 5 min \
      inside; latency up to 2 min, 2-6 min when stationary) or server (the geometric truth). Events are listed \
      in the order they were decided; each has the time the boundary was crossed, the time the \
      app is told (or "-" when it is not) and the reason. A summary follows: events and time \
      inside per region, fixes reordered (within the profile's reorder window: server 30 s, ios \
      none) and fixes rejected, and why.

      --format jsonl writes one JSON object per event with the keys event (enter, exit, \
      passThrough, dwell, state, monitoringFailed), region, crossedAt, deliveredAt (ISO 8601 UTC with \
      milliseconds, or null when not delivered), lat, lon, state (for state events, else null) \
      and reason; no summary. --format csv has the same fields as columns (empty for null). \
      --format geojson is a FeatureCollection of the regions (kind "region") and the events \
      (kind "event", Point features with the JSON Lines keys as properties). --format html is \
      one self-contained file (no network): an SVG map of the track, regions and events with \
      tooltips, a timeline strip per region, the summary and a table of every event. \

      Cells: with --towers (an OpenCellID CSV file) or --synthetic-cells SPACING (metres, or \
      urban = 1500, rural = 8000: a hexagonal layout anchored at the first fix), or when the \
      track names its serving cells (a CSV cell column, or a G-NetTrack drive log: Timestamp, \
      LACHEX, RAWCELLID), the serving cell is followed along the track (A3 handoffs: 3 dB, \
      320 ms, ping-pongs within 5 s suppressed) and every change is a handoff event (fromCell, \
      toCell). --significant-changes adds the significant-location-change events the handoffs \
      give (500 m and 5 min apart; the first at the start), and suppressed ones with the reason; \
      without towers or cells in the track it uses the urban synthetic layout. --regions may then \
      be left out.

      App: with --app SCENARIO.json, every delivered region event and significant change wakes \
      the app under the scenario's runtime profile (ios: 10 s per location wake, background tasks \
      up to 30 s from the wake; ios7 180 s; ios6 600 s): the timeline then lists, after the \
      location events, every step of the app — wake (state before and after, budget), handler, \
      background task, budget extension, expiration, suspension, termination by the watchdog, \
      relaunch, foreground session, force-quit — and the summary adds wakes and background \
      seconds by reason, terminations, lost events and an energy estimate per reason (400 mW \
      while running: EnergyModel). The scenario: {"profile": "ios", "seed": 1, "handlers": \
      {"location": {"work": 4, "backgroundTask": 20, "endsTaskOnExpiration": true, "variation": \
      0.2}}, "sessions": [{"at": ISO time, "duration": seconds}], "usage": {"daily": ["07:30"], \
      "duration": 240, "from": "2024-05-01", "days": 14}, "forceQuits": [ISO time]}.

      A progress bar is drawn on standard error for tracks of 8 MB or more when it is a terminal \
      (GEOWAKE_PROGRESS=always or never overrides).
      """
  )

  @Argument(help: "Track file (GPX or CSV), or - for standard input (CSV).")
  var track: String

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

  @Option(help: "Platform profile: ios or android (calibrated to measured phones), ios-documented or android-documented (the vendors' stated rules), or server.")
  var profile: String = "ios"

  @Option(help: "Output format: table, jsonl, csv, geojson or html.")
  var format: String = "table"

  @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
  var output: String = "-"

  @Flag(help: "Replace the output file if it exists.")
  var force = false

  @Flag(help: "Recover what can be read from a damaged GPX track; each recovery is a warning on standard error and counted in the summary.")
  var lenient = false

  @Option(help: "Seed for the delivery latencies.")
  var seed: UInt64 = 0

  func validate() throws {
    guard regions != nil || towers != nil || syntheticCells != nil || significantChanges else {
      throw ValidationError("give --regions, or cells to follow (--towers, --synthetic-cells, --significant-changes)")
    }
    guard towers == nil || syntheticCells == nil else { throw ValidationError("--towers and --synthetic-cells exclude each other") }
    guard !periodicWake || significantChanges else { throw ValidationError("--periodic-wake needs --significant-changes") }
    guard pushes == nil || app != nil else { throw ValidationError("--pushes needs --app: the app the pushes are for") }
    guard usage == nil || app != nil else { throw ValidationError("--usage needs --app: the app that fetches") }
    guard feed == nil || usage != nil else { throw ValidationError("--feed needs --usage") }
    guard connectivity == nil || pushes != nil || usage != nil else { throw ValidationError("--connectivity needs --pushes or --usage") }
    if let syntheticCells, Self.spacing(syntheticCells) == nil {
      throw ValidationError("--synthetic-cells must be urban, rural or metres in 100...100000, got \(syntheticCells)")
    }
    guard TimelineWriter.Format(rawValue: format) != nil else {
      throw ValidationError("--format must be table, jsonl, csv, geojson or html, got \(format)")
    }
    guard Self.profiles[profile] != nil else {
      throw ValidationError("--profile must be ios, android, ios-documented, android-documented or server, got \(profile)")
    }
  }

  static let profiles = RegionMonitoringProfile.named

  /// Metres between synthetic towers for `text` (urban, rural or a number), if valid.
  static func spacing(_ text: String) -> Double? {
    switch text.lowercased() {
    case "urban": return HexagonalCellLayout.urbanSpacing
    case "rural": return HexagonalCellLayout.ruralSpacing
    default: return Double(text).flatMap { HexagonalCellLayout.isValidSpacing($0) ? $0 : nil }
    }
  }

  /// The region monitor for `--regions` (none given: an empty one). The file's values are freed
  /// on return: the monitor keeps what it needs.
  private func makeMonitor() throws -> RegionMonitor {
    var regionFile = RegionFile(regions: [])
    if let regions {
      do { regionFile = try RegionFileReader.readValidated(path: regions) } catch { throw Diagnostics.fail(error) }
    }
    do {
      return try RegionMonitor(
        regions: regionFile.regions, profile: Self.profiles[profile]!, notifications: regionFile.notifications, seed: seed)
    } catch {
      Diagnostics.error("\(regions ?? "regions"): \(error)")
      throw SysExit.dataError
    }
  }

  func run() throws {
    var monitor = try makeMonitor()
    var reader: TrackFileReader
    do { reader = try TrackFileReader(path: track, lenient: lenient) } catch { throw Diagnostics.fail(error) }
    var cells = try cellTimeline(trackNamesCells: reader.namesCells)
    var runtime: AppRuntime?
    var scenario: AppScenario?
    if let app {
      do { scenario = try ScenarioReader.read(path: app) } catch { throw Diagnostics.fail(error) }
      runtime = scenario?.makeRuntime()
    }
    // Pushes: APNs and the device decide delivery; the delivered content-available ones wake the
    // same app as the location events.
    var pushRun: PushSimulation.Run?
    if let pushes, let scenario {
      pushRun = try Self.simulatePushes(pushes, connectivity: connectivity, scenario: scenario)
      for o in pushRun?.outcomes ?? [] {
        guard o.wakesApp, let delivered = o.deliveredAt, o.app != .notWoken else { continue }
        runtime?.schedule(SystemEvent(time: delivered, kind: .remoteNotification, label: o.apnsID ?? "push"))
      }
    }
    // Where the device was, every minute or so (for events that are not location events).
    var places: [(time: Double, coordinate: Coordinate)] = []
    // Where the app's events happen: the place of the location event that caused them.
    var wakePlaces: [(time: Double, coordinate: Coordinate)] = []
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force, atomically: true) } catch { throw Diagnostics.fail(error) }
    var writer = TimelineWriter(
      format: TimelineWriter.Format(rawValue: format) ?? .table, sink: out,
      // Only the formats that draw or list regions need them (a copy of 100,000 regions is ~8 MB).
      regions: ["geojson", "html"].contains(format) ? monitor.monitoredRegions + monitor.failedRegions : [],
      title: "GeoWake: \(Self.fileName(track))",
      subtitle: [regions.map { "regions \(Self.fileName($0)), profile \(profile)" }, cells?.description].compactMap { $0 }.joined(separator: "; "))
    var events: [RegionEvent] = []
    var activity = RegionActivity()
    var firstTime: Double?
    var lastTime: Double?
    var progress = ProgressBar(path: track, label: "analyze")
    defer { progress.finish() }
    do {
      try writer.begin()
      func write(_ events: [RegionEvent]) throws(TrackIOError) {
        for e in events {
          activity.add(e)
          if runtime != nil, let delivered = e.deliveredAt {
            runtime?.schedule(SystemEvent(time: delivered, kind: .location, label: "\(e.kind.rawValue) \(e.region.rawValue)"))
            wakePlaces.append((delivered, e.coordinate))
          }
          try writer.write(e)
        }
      }
      var fixesRead = 0
      // Options read once: a property wrapper's getter per fix costs generic-metadata lookups.
      let lenient = self.lenient
      let keepsPlaces = pushRun != nil || usage != nil
      while let fix = try reader.next() {
        fixesRead += 1
        if fixesRead & 0x3FFF == 0 { progress.update(bytes: reader.bytesRead) }
        if lenient { warn(reader.takeWarnings(), &progress) }
        events.removeAll(keepingCapacity: true)
        if monitor.process(fix, into: &events) == nil {
          firstTime = min(firstTime ?? fix.time, fix.time)
          lastTime = max(lastTime ?? fix.time, fix.time)
          writer.add(fix)
          if keepsPlaces, fix.time >= (places.last?.time ?? -.infinity) + 60 { places.append((fix.time, fix.coordinate)) }
        }
        try write(events)
        if cells != nil {
          try cells?.process(fix, reportedCell: reader.reportedCell, writer: &writer)
          if runtime != nil, let delivered = cells?.takeDeliveries() {
            for event in delivered {
              runtime?.schedule(SystemEvent(time: event.time, kind: .location, label: "significant change"))
              wakePlaces.append((event.time, event.location.coordinate))
            }
          }
        }
      }
      events.removeAll(keepingCapacity: true)
      progress.update(bytes: reader.bytesRead)
      warn(reader.takeWarnings(), &progress)
      monitor.finish(into: &events)
      try write(events)
      activity.finish(at: lastTime ?? 0)
      var appText = ""
      // Where the device was at `time` (the places are visited in time order by each caller).
      func placer() -> (Double) -> Coordinate {
        var next = 0
        var place = places.first?.coordinate ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
        return { time in
          while next < places.count && places[next].time <= time {
            place = places[next].coordinate
            next += 1
          }
          return place
        }
      }
      if let usage, let scenario, let firstTime, let lastTime, lastTime > firstTime {
        let fetchRun = try Self.simulateFetch(
          usage: usage, feed: feed, connectivity: connectivity, scenario: scenario, window: firstTime..<lastTime)
        let at = placer()
        for e in fetchRun.run.events {
          try writer.write(TimelineEntry(e, coordinate: at(e.time)))
          if e.kind == .fetchRequested { runtime?.schedule(SystemEvent(time: e.time, kind: .fetch, label: "background fetch")) }
        }
        for l in fetchRun.launches where l.time >= firstTime && l.time < lastTime {
          runtime?.schedule(SystemEvent(time: l.time, kind: .userSession(duration: l.duration), label: "launch"))
        }
        let s = fetchRun.run.summary
        appText += "\nfetch (\(Self.fileName(usage)), policy \(scenario.configuration.fetchPolicy)): \(s.fetches) fetches, "
          + "\(s.staleness.fresh) of \(s.staleness.launches) launches fresh, staleness p90 \(NumberText.duration(s.staleness.p90))"
          + (scenario.configuration.fetchDiagnostic.map { "; \($0)" } ?? "") + "\n"
      }
      if let pushRun {
        // Each request where the device was when it was sent.
        let at = placer()
        for o in pushRun.outcomes.sorted(by: { ($0.time, $0.request) < ($1.time, $1.request) }) {
          try writer.write(TimelineEntry(o, coordinate: at(o.time)))
        }
        appText += "\npushes (\(Self.fileName(pushes ?? ""))): " + PushReport(pushRun, scheduleSource: Self.fileName(pushes ?? "")).summaryText
      }
      if var runtime, let scenario {
        var steps: [RuntimeEvent] = []
        runtime.run(into: &steps)
        wakePlaces.sort { $0.time < $1.time }
        // Steps come in time order: one pass over the places, not a search per step.
        var place = wakePlaces.first?.coordinate ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
        var next = 0
        for step in steps {
          while next < wakePlaces.count && wakePlaces[next].time <= step.time {
            place = wakePlaces[next].coordinate
            next += 1
          }
          try writer.write(step, at: place)
        }
        appText += Self.appSummary(runtime.summary, scenario: scenario, file: app ?? "")
      }
      try writer.finish(
        summary: summary(monitor, activity, span: (lastTime ?? 0) - (firstTime ?? lastTime ?? 0), reader: reader) + (cells?.summary ?? "") + appText)
      try out.commit()
    } catch let error as TrackIOError {
      throw Diagnostics.fail(error)
    }
  }

  /// The cell model asked for, if any.
  private func cellTimeline(trackNamesCells: Bool) throws -> CellTimeline? {
    if let towers {
      let file: TowerCSVReader.TowerFile
      do { file = try TowerCSVReader.read(path: towers, lenient: lenient, warning: Diagnostics.warning) } catch {
        throw Diagnostics.fail(error)
      }
      do {
        return try CellTimeline(
          layout: .towers(try TowerMap(file.towers)), significantChanges: significantChanges ? (periodicWake ? .iosWithPeriodicWake : .ios) : nil,
          description: "cells \(Self.fileName(towers)) (\(counted(file.towers.count, "cell")))")
      } catch {
        Diagnostics.error("\(towers): \(error)")
        throw SysExit.dataError
      }
    }
    if let syntheticCells, let spacing = Self.spacing(syntheticCells) {
      return try CellTimeline(
        layout: .hexagonal(spacing: spacing), significantChanges: significantChanges ? (periodicWake ? .iosWithPeriodicWake : .ios) : nil,
        description: "synthetic cells every \(Int(spacing)) m")
    }
    if trackNamesCells {
      // The track names its cells; positions are unknown, so no layout is consulted.
      return try CellTimeline(layout: .hexagonal(spacing: HexagonalCellLayout.urbanSpacing), significantChanges: significantChanges ? (periodicWake ? .iosWithPeriodicWake : .ios) : nil, description: "serving cells from the track")
    }
    if significantChanges {
      return try CellTimeline(
        layout: .hexagonal(spacing: HexagonalCellLayout.urbanSpacing), significantChanges: periodicWake ? .iosWithPeriodicWake : .ios,
        description: "synthetic cells every \(Int(HexagonalCellLayout.urbanSpacing)) m (no tower file)")
    }
    return nil
  }

  private func warn(_ warnings: [TrackIOError], _ progress: inout ProgressBar) {
    guard !warnings.isEmpty else { return }
    progress.clear()
    warnings.forEach(Diagnostics.warning)
  }

  /// Replays `schedule` through the APNs model for the scenario's app and device.
  static func simulatePushes(_ schedule: String, connectivity: String?, scenario: AppScenario) throws -> PushSimulation.Run {
    let requests: [ProviderRequest]
    do { requests = try PushScheduleReader.read(path: schedule) } catch { throw Diagnostics.fail(error) }
    var device = PushDevice(scenario: scenario)
    if let connectivity {
      do { device.conditions = try DeviceConditionsCSVReader.read(path: connectivity) } catch { throw Diagnostics.fail(error) }
    }
    return PushSimulation(requests: requests, device: device).run()
  }

  /// The fetch scheduler for the scenario's app over `window` (the track's span).
  static func simulateFetch(
    usage: String, feed: String?, connectivity: String?, scenario: AppScenario, window: Range<Double>
  ) throws -> (run: FetchSimulation.Run, launches: [UserLaunch]) {
    let launches: [UserLaunch]
    do { launches = try UsageCSVReader.read(path: usage) } catch { throw Diagnostics.fail(error) }
    let offset = launches.last?.utcOffset ?? 0
    var content: ContentFeed
    if let feed {
      do { content = try FeedCSVReader.read(path: feed) } catch { throw Diagnostics.fail(error) }
    } else {
      let start = min(launches.first?.time ?? window.lowerBound, window.lowerBound)
      content = try .daytimeNews(from: start, days: Int(((window.upperBound - start) / LocalTime.secondsPerDay).rounded(.up)) + 1, utcOffset: offset)
    }
    var conditions = DeviceConditions()
    if let connectivity {
      do { conditions = try DeviceConditionsCSVReader.read(path: connectivity) } catch { throw Diagnostics.fail(error) }
    }
    let simulation = FetchSimulation(scenario: scenario, launches: launches, window: window, feed: content, conditions: conditions)
    return (simulation.run(.system), launches)
  }

  /// The app's totals: wakes and background seconds by reason, terminations, losses, energy.
  static func appSummary(_ s: RuntimeSummary, scenario: AppScenario, file: String) -> String {
    let energy = EnergyModel.standard
    var text = "\napp (\(fileName(file)), runtime profile \(scenario.profile.name)):\n"
    text += "reason              wakes  background s  energy (\(Int(energy.wakePower)) mW while running)\n"
    for reason in LaunchReason.allCases where (s.wakes[reason] ?? 0) > 0 || (s.backgroundSeconds[reason] ?? 0) > 0 {
      let seconds = s.backgroundSeconds[reason] ?? 0
      text += reason.rawValue.column(20) + "\(s.wakes[reason] ?? 0)".column(7) + NumberText.fixed(seconds, decimals: 1).column(14)
        + NumberText.fixed(seconds * energy.wakePower / 1_000, decimals: 1) + " J\n"
    }
    text += "terminations by the watchdog: \(s.terminations) (handlers cut short: \(s.interrupted)), expirations: \(s.expirations)\n"
    if s.sessions > 0 { text += "foreground: \(counted(s.sessions, "session")), \(CrossingsCommand.duration(s.foregroundSeconds)) on screen\n" }
    let lost = s.lost.values.reduce(0, +)
    if lost > 0 {
      text += "events lost after a force-quit: \(lost) (" + s.lost.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ") + ")\n"
    }
    return text
  }

  static func fileName(_ path: String) -> String { path == "-" ? "standard input" : String(path.split(separator: "/").last ?? Substring(path)) }

  func summary(_ m: RegionMonitor, _ activity: RegionActivity, span: Double, reader: TrackFileReader) -> String {
    var text = "\n\(m.fixCount) fixes used over \(CrossingsCommand.duration(span))"
    if regions != nil {
      text += ", \(m.monitoredRegions.count) regions monitored (profile \(m.profile.name))"
        + (m.failedRegions.isEmpty ? "" : ", \(m.failedRegions.count) refused past the cap")
    }
    text += "\n"
    if m.reorderedFixCount > 0 {
      text += "fixes put back in time order: \(m.reorderedFixCount) (reorder window \(Int(m.profile.reorderWindow)) s)\n"
    }
    if reader.warningCount > 0 {
      text += "damage recovered from (--lenient): \(counted(reader.warningCount, "problem")), each a warning on standard error\n"
    }
    let rejected = m.rejections.values.reduce(0, +) + reader.pointsWithoutTime
    if rejected > 0 {
      var causes = m.rejections.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
      if reader.pointsWithoutTime > 0 { causes.append("\(reader.pointsWithoutTime) without a time") }
      text += "fixes rejected: \(rejected) (" + causes.joined(separator: ", ") + ")\n"
    }
    let active = activity.totals.filter { !$0.value.failed }.sorted { $0.key < $1.key }
    if !active.isEmpty {
      let dwells = m.profile.loiteringDelay != nil
      text += "\nregion            enters  exits  pass  " + (dwells ? "dwells  " : "") + "flaps suppressed  undelivered  time inside\n"
      for (id, t) in active {
        text += id.rawValue.column(18) + "\(t.enters)".column(8) + "\(t.exits)".column(7)
          + "\(t.passThroughs)".column(6) + (dwells ? "\(t.dwells)".column(8) : "") + "\(m.suppressedFlaps[id] ?? 0)".column(18)
          + "\(t.undelivered)".column(13) + CrossingsCommand.duration(t.timeInside) + "\n"
      }
    }
    let quiet = m.monitoredRegions.count - active.count
    if quiet > 0 { text += "\(quiet) regions had no events\n" }
    return text
  }
}
