import JSONBytes
import BackgroundRuntime
import ArgumentParser
import TrackIO

/// `geowake info`: what a track file holds, like gpxpy's `gpxinfo`.
struct InfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Summarise a track file: counts, bounds, times, length and duration.",
    discussion: """
      TRACK is a GPX 1.0/1.1 file or a CSV or JSON Lines file of fixes (one track, one segment; with \
      a device column, a track per device). Length is the \
      WGS84 geodesic length along the track segments; duration is the sum of the segments' time \
      spans (null when a track point has no time). Bounds cover track, route and way points. \
      Times are ISO 8601 UTC.
      """ + HelpExamples.section(["geowake info Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx",
        "geowake info --format json Fixtures/demo/tokyo-track.csv"])
  )

  @Argument(help: "Track file (GPX, CSV, JSON Lines, GeoJSON or Google location history; gzip-compressed or not), or - for standard input.")
  var track: String

  @Option(name: .customLong("format"), help: "Output format: table or json (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  @OptionGroup var outputOptions: OutputOptions

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: outputOptions.output, supported: ["table", "json"], fallback: "table") }

  @Flag(help: "Recover what can be read from a damaged GPX file; each recovery is a warning on standard error.")
  var lenient = false

  @Flag(name: .customLong("assume-utc"), help: "Read CSV and JSON Lines times without a zone (2024-05-01T07:00:00) as UTC instead of refusing them.")
  var assumeUTC = false

  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: outputOptions.output, supported: ["table", "json"])
    guard ["table", "json"].contains(format) else { throw ValidationError("--format must be table or json, got \(format)") }
  }

  func run() throws {
    try checkOptions()
    let statistics: TrackStatistics
    do {
      statistics = try TrackStatistics.read(path: track, lenient: lenient, assumeUTC: assumeUTC, warning: Diagnostics.warning)
    } catch { throw Diagnostics.fail(error) }
    InputChecks.trackPointWarnings(statistics, track: track).forEach(Diagnostics.error)
    let text = format == "json" ? Self.json(statistics) : Self.table(statistics, path: track)
    let out = try outputOptions.sink()
    do {
      try out.write(text)
      try out.commit()
    } catch { throw Diagnostics.fail(error) }
  }

  /// One JSON object, keys in a fixed order, one line.
  static func json(_ s: TrackStatistics) -> String {
    func time(_ t: Double?) -> String { t.map { "\"" + TimestampText.iso8601Compact($0) + "\"" } ?? "null" }
    func number(_ v: Double?) -> String { v.map { "\($0)" } ?? "null" }
    // Times are parsed to within a microsecond of the file's text (a Double of epoch seconds);
    // a duration is printed at that precision so that 0.994 s does not read 0.99399995803833.
    func seconds(_ v: Double?) -> String { number(v.map { ($0 * 1e6).rounded() / 1e6 }) }
    func metres(_ v: Double) -> String { "\((v * 1000).rounded() / 1000)" }
    var fields: [(String, String)] = [
      ("format", "\"\(s.format.rawValue)\""),
      ("version", s.version.map(JSONText.quoted) ?? "null"),
      ("compressed", "\(s.compressed)"),
      ("tracks", "\(s.tracks)"), ("segments", "\(s.segments)"), ("emptySegments", "\(s.emptySegments)"),
      ("trackPoints", "\(s.trackPoints)"), ("trackPointsWithoutTime", "\(s.trackPointsWithoutTime)"),
      ("routes", "\(s.routes)"), ("routePoints", "\(s.routePoints)"), ("waypoints", "\(s.waypoints)"),
      ("firstTime", time(s.firstTime)), ("lastTime", time(s.lastTime)),
      ("minLat", number(s.bounds?.minLatitude)), ("maxLat", number(s.bounds?.maxLatitude)),
      ("minLon", number(s.bounds?.minLongitude)), ("maxLon", number(s.bounds?.maxLongitude)),
      ("length2D", metres(s.length2D)), ("duration", seconds(s.duration)),
    ]
    let tracks = s.perTrack.map { t in
      "{\"segments\":\(t.segments),\"points\":\(t.points),\"length2D\":\(metres(t.length2D)),"
        + "\"duration\":\(seconds(t.duration)),\"firstTime\":\(time(t.firstTime)),\"lastTime\":\(time(t.lastTime))}"
    }
    fields.append(("perTrack", "[" + tracks.joined(separator: ",") + "]"))
    fields.append(("devices", "[" + s.devices.map(JSONText.quoted).joined(separator: ",") + "]"))
    for (name, readings) in Self.sensors(s) {
      fields.append((name, readings.mean.map { mean in
        "{\"points\":\(readings.points),\"min\":\(readings.minimum),\"max\":\(readings.maximum),\"mean\":\((mean * 1e6).rounded() / 1e6)}"
      } ?? "null"))
    }
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}\n"
  }

  /// Aligned `label: value` lines, then one line per track.
  static func table(_ s: TrackStatistics, path: String) -> String {
    var lines = ["File: \(path) (\(s.format == .gpx ? "GPX \(s.version ?? "of unknown version")" : s.format.name)\(s.compressed ? ", gzip-compressed" : ""))"]
    func add(_ label: String, _ value: String) { lines.append("    " + (label + ":").column(16) + value) }
    if s.devices.isEmpty {
      add("Tracks", "\(s.tracks) (\(counted(s.segments, "segment")), \(s.emptySegments) empty)")
    } else {
      add("Devices", "\(s.devices.count) (a device column: each device's fixes are a track)")
    }
    add("Track points", "\(s.trackPoints)" + (s.trackPointsWithoutTime > 0 ? " (\(s.trackPointsWithoutTime) without time)" : ""))
    add("Routes", "\(s.routes) (\(counted(s.routePoints, "point")))")
    add("Waypoints", "\(s.waypoints)")
    add("Length 2D", kilometres(s.length2D))
    add("Started", s.firstTime.map(TimestampText.iso8601Compact) ?? "unknown")
    add("Ended", s.lastTime.map(TimestampText.iso8601Compact) ?? "unknown")
    if s.devices.isEmpty {
      add("Duration", s.duration.map(duration) ?? "unknown (track points without time)")
    } else {
      // The devices' spans overlap: their sum is device time, not how long the file lasts.
      var span: String?
      if let first = s.firstTime, let last = s.lastTime { span = duration(last - first) }
      add("Device time", s.duration.map { duration($0) + " (all devices" + (span.map { "; file spans \($0))" } ?? ")") }
        ?? "unknown (track points without time)")
    }
    if let d = s.duration, d > 0 { add("Average speed", decimal(s.length2D / d * 3.6, 2) + " km/h") }
    if let b = s.bounds {
      add("Latitude", "\(b.minLatitude) … \(b.maxLatitude)")
      add("Longitude", "\(b.minLongitude) … \(b.maxLongitude)")
    }
    for (label, unit, readings) in [("Heart rate", "bpm", s.heartRate), ("Cadence", "rpm", s.cadence), ("Power", "W", s.power), ("Temperature", "°C", s.temperature)] {
      guard let mean = readings.mean else { continue }
      add(label, "\(compact(readings.minimum)) … \(compact(readings.maximum)) \(unit), mean \(decimal(mean, 1)) (\(counted(readings.points, "point")))")
    }
    for (k, t) in s.perTrack.enumerated() where s.perTrack.count > 1 || !s.devices.isEmpty {
      let span = "\(kilometres(t.length2D)), \(t.duration.map(duration) ?? "duration unknown")"
      if k < s.devices.count {
        lines.append("    " + "Device \(s.devices[k])".column(max(16, s.devices[k].count + 9)) + "\(counted(t.points, "point")), " + span)
      } else {
        add("Track #\(k)", "\(counted(t.points, "point")) in \(counted(t.segments, "segment")), " + span)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The sensor readings of the JSON form, by key.
  static func sensors(_ s: TrackStatistics) -> [(String, TrackStatistics.Readings)] {
    [("heartRate", s.heartRate), ("cadence", s.cadence), ("power", s.power), ("temperature", s.temperature)]
  }

  /// A reading as the file wrote it: whole numbers without a fraction.
  static func compact(_ value: Double) -> String {
    value == value.rounded() && value.magnitude < 1e15 ? "\(Int(value))" : "\(value)"
  }

  static func kilometres(_ metres: Double) -> String { decimal(metres / 1000, 3) + " km" }

  static func decimal(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let units = Int((value * scale).rounded())
    let whole = "\(units / Int(scale))"
    let fraction = "\(abs(units) % Int(scale))"
    return (value < 0 && units / Int(scale) == 0 ? "-" : "") + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
  }

  static func duration(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    if s >= 86_400 { return "\(s / 86_400) d \(s / 3600 % 24) h \(s / 60 % 60) min" }
    if s >= 3600 { return "\(s / 3600) h \(s / 60 % 60) min \(s % 60) s" }
    if s >= 60 { return "\(s / 60) min \(s % 60) s" }
    return seconds == seconds.rounded() ? "\(s) s" : decimal(seconds, 3) + " s"
  }
}
