import JSONBytes
import BackgroundRuntime
import ArgumentParser
import Foundation
import Geodesy
import Geofencing
import TrackIO

/// `geowake crossings`: the raw crossing engine on a track and a region set.
struct CrossingsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "crossings",
    abstract: "Print every boundary crossing of a track through a set of regions (geometric truth).",
    discussion: """
      TRACK is a GPX 1.0/1.1 file (its timed track points) or a CSV file with a header naming \
      time, lat and lon columns (time in seconds since 1970 or ISO 8601). REGIONS is a CSV file with id,lat,lon,radius (metres), a GeoJSON FeatureCollection \
      (Point with a radius property, Polygon, MultiPolygon) or a JSON array of {id, lat, lon, radius}. Each crossing \
      is reported with the time the path crossed the boundary (interpolated between the fixes), \
      where, and between which fixes; "pass" marks a region crossed between two fixes neither \
      of which is inside it. No platform rule is applied: this is what the geometry says.
      """ + HelpExamples.section(["geowake crossings --regions Fixtures/demo/tokyo-regions.csv Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx",
        "geowake crossings --regions Fixtures/demo/tokyo-regions.csv Fixtures/demo/tokyo-track.csv --format jsonl"])
  )

  @Argument(help: "Track files (GPX, CSV, JSON Lines, GeoJSON, Google location history; gzip-compressed or not), folders of them, or - for standard input (any track format). Several files, a folder, or a device column make a run over many devices.")
  var tracks: [String] = []

  @Option(help: "Regions file (CSV id,lat,lon,radius; GeoJSON; or JSON).")
  var regions: String

  @Option(name: .customLong("format"), help: "Output format: table, jsonl or csv (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  @OptionGroup var outputOptions: OutputOptions

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: outputOptions.output, supported: ["table", "jsonl", "csv"], fallback: "table") }

  @Option(parsing: .unconditional, help: "With many devices: how many to follow at once (default: the number of cores).")
  var jobs: Int?

  @Flag(help: "Table times in UTC even when the track's times name another offset (by default the table shows the track's own clock; jsonl and csv are UTC).")
  var utc = false

  @Flag(name: .customLong("assume-utc"), help: "Read CSV and JSON Lines times without a zone (2024-05-01T07:00:00) as UTC instead of refusing them.")
  var assumeUTC = false

  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: outputOptions.output, supported: ["table", "jsonl", "csv"])
    guard !tracks.isEmpty else { throw ValidationError("give a track: a GPX, CSV, JSON Lines, GeoJSON or location-history file, a folder of them, or - for standard input") }
    guard jobs.map({ $0 >= 1 }) ?? true else { throw ValidationError("--jobs must be at least 1, got \(jobs ?? 0)") }
    guard ["table", "jsonl", "csv"].contains(format) else { throw ValidationError("--format must be table, jsonl or csv, got \(format)") }
  }

  func run() async throws {
    try checkOptions()
    let regionList: [Region]
    do { regionList = try RegionFileReader.readValidated(path: regions).regions } catch { throw Diagnostics.fail(error) }
    let set = RegionSet(regionList)
    // The region column as wide as the longest name.
    let regionWidth = max(17, (regionList.lazy.map { $0.identifier.rawValue.count }.max() ?? 0) + 1)
    let reader: ReadAheadTrackReader
    var pending: Result<LocationFix?, TrackIOError>?
    // The table's clock: the track's own offset, when its times name one.
    var offset = 0
    do {
      switch try DeviceTrackSource.open(tracks, options: .init(assumeUTC: assumeUTC)) {
      case .many(let source): return try await runDevices(source, regions: set)
      case .one(let opened, let first):
        (reader, pending) = (ReadAheadTrackReader(opened), first)
        if !utc { offset = opened.utcOffset ?? 0 }
      }
    } catch let error as TrackIOError { throw Diagnostics.fail(error) }
    var detector = CrossingDetector(regions: set)
    let out = try outputOptions.sink()
    var crossings: [RegionCrossing] = []
    var enters = 0
    var exits = 0
    var passThroughs = 0
    var firstTime: Double?
    var lastTime = 0.0
    var checks = InputChecks()
    let table = format == "table"
    let csv = format == "csv"
    // On a terminal: times of day under a line for each day, so that a row fits 80 columns.
    let narrow = table && TerminalWidth.columns(output: outputOptions.output, wide: false) != nil
    var day: Int?
    do {
      let zone = TimestampText.zoneName(utcOffset: offset)
      if narrow {
        try out.write("time          " + "region".column(regionWidth + 1) + "event  lat        lon         fixes\n")
      } else if table {
        try out.write("time (\(zone))".column(offset == 0 ? 26 : 31) + "region".column(regionWidth + 1) + "event  lat          lon           fixes         note\n")
      } else if csv {
        try out.write(Self.csvHeader + "\n")
      }
      while true {
        let fix: LocationFix?
        do {
          if let first = pending {
            pending = nil
            fix = try first.get()
          } else {
            fix = try reader.next()
          }
        } catch { throw Diagnostics.fail(error) }
        guard let fix else {
          reader.takeWarnings().forEach(Diagnostics.warning)
          break
        }
        do { try detector.process(fix, into: &crossings) } catch {
          throw Diagnostics.fail(
            TrackIOError(path: reader.path, line: reader.lineNumber, column: 1, message: error.message))
        }
        if firstTime == nil { firstTime = fix.time }
        lastTime = fix.time
        checks.add(fix)
        for c in crossings {
          if c.direction == .enter { enters += 1 } else { exits += 1 }
          if c.isPassThrough { passThroughs += 1 }
          if narrow {
            let today = Int(((c.time + Double(offset)) / 86_400).rounded(.down))
            if today != day {
              day = today
              try out.write(String(TimestampText.iso8601(c.time + Double(offset)).prefix(10)) + " (\(zone))\n")
            }
            try Self.writeNarrowRow(c, out, utcOffset: offset, regionWidth: regionWidth)
          } else if table && offset != 0 {
            try out.write(TimestampText.iso8601(c.time, fractionDigits: 3, utcOffset: offset) + "  ")
            try Self.writeRow(c, out, withoutTime: true, regionWidth: regionWidth)
          } else {
            try (table ? Self.writeRow(c, out, regionWidth: regionWidth) : csv ? Self.writeCSV(c, out) : Self.writeJSON(c, out))
          }
        }
        crossings.removeAll(keepingCapacity: true)
      }
      if table {
        let inside = detector.insideRegions.map(\.rawValue)
        try out.write("\n\(detector.fixCount) fixes over \(Self.duration(lastTime - (firstTime ?? lastTime))), ")
        try out.write("\(set.count) regions: \(enters) enters, \(exits) exits (\(passThroughs) in pass-throughs)\n")
        try out.write("inside at the end: \(inside.isEmpty ? "none" : inside.joined(separator: ", "))\n")
        if reader.pointsWithoutTime > 0 {
          try out.write("\(reader.pointsWithoutTime) track points without a time were skipped\n")
        }
      }
      try out.commit()
    } catch let error as TrackIOError {
      throw Diagnostics.fail(error)
    }
    if regionList.isEmpty { Diagnostics.error(InputChecks.noRegionWarning(regions: regions)) }
    if detector.fixCount == 0 { Diagnostics.error(InputChecks.noFixWarning(track: tracks[0])) }
    if let far = checks.farWarning(track: tracks[0], regions: regions, regionList) { Diagnostics.error(far) }
    checks.fixWarnings(track: tracks[0]).forEach(Diagnostics.error)
    if regionList.isEmpty || detector.fixCount == 0 { throw SysExit.dataError }
  }

  static func duration(_ seconds: Double) -> String { NumberText.duration(seconds) }

  /// A row for a terminal: the time of day (under its day's line), the position to 6 decimals
  /// (about 10 cm), "pass" after the fixes of a pass-through; 80 columns up to 10⁵ fixes.
  static func writeNarrowRow(_ c: RegionCrossing, _ out: ByteSink, utcOffset: Int = 0, regionWidth: Int = 17) throws(TrackIOError) {
    try out.write(String(TimestampText.iso8601(c.time + Double(utcOffset), fractionDigits: 3).dropFirst(11).dropLast()) + "  ")
    try out.write(c.region.rawValue, column: regionWidth)
    try out.write(" ")
    try out.write(c.direction.rawValue, column: 6)
    try out.write(" ")
    try out.write(c.coordinate.latitude, decimals: 6)
    try out.write("  ")
    try out.write(c.coordinate.longitude, decimals: 6)
    try out.write("  ")
    try out.write(c.fromFix)
    try out.write("→")
    try out.write(c.toFix)
    try out.write(c.isPassThrough ? "  pass\n" : "\n")
  }

  /// A table row (`withoutTime`: its time already written, on another clock than UTC).
  static func writeRow(
    _ c: RegionCrossing, _ out: ByteSink, device: String? = nil, withoutTime: Bool = false, regionWidth: Int = 17
  ) throws(TrackIOError) {
    // Straight into the sink, each column as `String.column` pads it: no string made per row.
    if let device { try out.write(device, column: 16) }
    if !withoutTime {
      try out.writeTimestamp(c.time, fractionDigits: 3)
      try out.write("  ")
    }
    try out.write(c.region.rawValue, column: regionWidth)
    try out.write(" ")
    try out.write(c.direction.rawValue, column: 6)
    try out.write(" ")
    try out.write(c.coordinate.latitude, decimals: 7)
    try out.write("   ")
    try out.write(c.coordinate.longitude, decimals: 7)
    try out.write("   ")
    try out.write(c.fromFix)
    try out.write("→")
    try out.write(c.toFix)
    guard c.isPassThrough else { return try out.write("\n") }
    // "from→to" as a column of 12 characters ("→" is one).
    let width = decimalDigits(c.fromFix) + 1 + decimalDigits(c.toFix)
    try out.write("", column: max(1, 12 - width))
    try out.write("  pass\n")
  }

  /// The number of decimal digits of `n` (at least 0).
  private static func decimalDigits(_ n: Int) -> Int {
    var digits = 1
    var rest = n / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    return digits
  }

  static func writeJSON(_ c: RegionCrossing, _ out: ByteSink, device: String? = nil) throws(TrackIOError) {
    if let device {
      try out.write("{\"device\":")
      try out.writeJSONString(device)
      try out.write(",\"event\":\"")
    } else {
      try out.write("{\"event\":\"")
    }
    try out.write(c.direction.rawValue)
    try out.write("\",\"region\":")
    try out.writeJSONString(c.region.rawValue)
    // A crossing happens when the boundary is crossed: `at`, as every entry has, is `crossedAt`.
    try out.write(",\"at\":\"")
    try out.writeTimestamp(c.time, fractionDigits: 6)
    try out.write("\",\"crossedAt\":\"")
    try out.writeTimestamp(c.time, fractionDigits: 6)
    try out.write("\",\"lat\":")
    try out.write(c.coordinate.latitude, decimals: 8)
    try out.write(",\"lon\":")
    try out.write(c.coordinate.longitude, decimals: 8)
    try out.write(",\"fromFix\":")
    try out.write(c.fromFix)
    try out.write(",\"toFix\":")
    try out.write(c.toFix)
    try out.write(c.isPassThrough ? ",\"passThrough\":true}\n" : ",\"passThrough\":false}\n")
  }

  /// The CSV columns: the JSON Lines keys, in their order (after `device` with many devices).
  static let csvHeader = "event,region,at,crossedAt,lat,lon,fromFix,toFix,passThrough"

  static func writeCSV(_ c: RegionCrossing, _ out: ByteSink, device: String? = nil) throws(TrackIOError) {
    if let device {
      try out.writeCSVField(device)
      try out.write(",")
    }
    try out.write(c.direction.rawValue)
    try out.write(",")
    try out.writeCSVField(c.region.rawValue)
    try out.write(",")
    try out.writeTimestamp(c.time, fractionDigits: 6)
    try out.write(",")
    try out.writeTimestamp(c.time, fractionDigits: 6)
    try out.write(",")
    try out.write(c.coordinate.latitude, decimals: 8)
    try out.write(",")
    try out.write(c.coordinate.longitude, decimals: 8)
    try out.write(",")
    try out.write(c.fromFix)
    try out.write(",")
    try out.write(c.toFix)
    try out.write(c.isPassThrough ? ",true\n" : ",false\n")
  }
}
