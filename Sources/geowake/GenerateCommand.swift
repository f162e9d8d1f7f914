import ArgumentParser
import BackgroundRuntime
import Geodesy
import Geofencing
import SyntheticData
import TrackIO

/// `geowake generate`: deterministic synthetic data for benchmarks and experiments.
struct GenerateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Write deterministic synthetic tracks, region sets, app usage and content feeds (same seed, same bytes).",
    subcommands: [Track.self, Regions.self, Usage.self, Feed.self]
  )

  /// Days on a local clock, for usage and feeds.
  struct Calendar: ParsableArguments {
    @Option(help: "First local day, YYYY-MM-DD.")
    var from: String = "2024-04-22"

    @Option(parsing: .unconditional, help: "Number of days (1 … 3660).")
    var days: Int = 28

    @Option(name: .customLong("utc-offset"), parsing: .unconditional, help: "The device clock's offset from UTC, ±HH:MM.")
    var utcOffset: String = "+02:00"

    @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
    var output: String = "-"

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    func checkOptions() throws {
      guard (1...3_660).contains(days) else { throw ValidationError("--days must be in 1...3660, got \(days)") }
      guard offsetSeconds() != nil else { throw ValidationError("--utc-offset \"\(utcOffset)\": expected ±HH:MM such as +02:00") }
      guard startTime() != nil else { throw ValidationError("--from \"\(from)\": expected a date YYYY-MM-DD") }
    }

    func offsetSeconds() -> Int? {
      let b = Array(utcOffset.utf8)
      guard b.count == 6, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[3] == UInt8(ascii: ":"),
        let h = Int(String(utcOffset.dropFirst().prefix(2))), let m = Int(String(utcOffset.suffix(2))), h <= 23, m <= 59
      else { return nil }
      return (b[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 3_600 + m * 60)
    }

    /// Local midnight of --from, as seconds since the Unix epoch.
    func startTime() -> Double? {
      guard let offset = offsetSeconds(), let t = TimestampText.parse(from + "T00:00:00" + (offset == 0 ? "Z" : utcOffset)) else { return nil }
      return t
    }

    func sink() throws -> ByteSink {
      do { return try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    }
  }

  struct Usage: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "App launches of synthetic users (CSV time,duration), for geowake fetch.",
      discussion: """
        --pattern names an archetype; the seed draws one user of it (their habit times, spreads and \
        regularity), then their launches. morning: weekdays at 07:45 ± 6 min, weekends at 09:15 ± \
        12 min. hourly: about ten past every hour from 08:10 to 22:10. commuter: weekday mornings \
        and evenings, a late morning at weekends. evening: one evening habit on most days. \
        irregular: 1–5 launches a day at random between 09:00 and 23:00. weekend-heavy: noon and \
        evening at weekends, now and then a weekday night. shift-worker: before and after shifts \
        rotating weekly between early and late. traveller: a commuter whose clock moves 5–9 hours \
        ahead for a trip in mid-period. lapsing: morning and evening until a day a quarter to half \
        way through, then every 5–9 days. Times are local, written with the --utc-offset (the \
        traveller's with the trip's offset).

        --population N writes N users into the folder -o names (created if missing), one file \
        each (user-001-commuter.csv, …), the archetypes taken in turn from commuter, evening, \
        irregular, weekend-heavy, shift-worker, traveller, lapsing and morning, user k drawn from \
        seed + k; geowake fetch --usage FOLDER reports over them.
        """ + HelpExamples.section(["geowake generate usage --pattern morning",
        "geowake generate usage --population 8 --seed 9 -o users"]))

    @OptionGroup var calendar: Calendar

    @Option(help: "The user: morning, hourly, commuter, evening, irregular, weekend-heavy, shift-worker, traveller or lapsing.", transform: { $0.lowercased() })
    var pattern: String = "morning"

    @Option(parsing: .unconditional, help: "Random seed.")
    var seed: UInt64 = 1

    @Option(parsing: .unconditional, help: "Write this many users of every archetype into the folder -o names.")
    var population: Int?

    static func archetype(_ name: String) -> SyntheticUsage? {
      SyntheticUsage.allCases.first { Self.name(of: $0) == name }
    }

    /// The archetype as written on the command line: weekend-heavy, shift-worker.
    static func name(of usage: SyntheticUsage) -> String {
      switch usage {
      case .weekendHeavy: "weekend-heavy"
      case .shiftWorker: "shift-worker"
      default: usage.rawValue
      }
    }

    func checkOptions() throws {
      try calendar.checkOptions()
      guard Self.archetype(pattern) != nil else {
        throw ValidationError("--pattern must be one of \(SyntheticUsage.allCases.map(Self.name).joined(separator: ", ")), got \(pattern)")
      }
      if let population {
        guard (1...10_000).contains(population) else { throw ValidationError("--population must be in 1...10000, got \(population)") }
        guard calendar.output != "-" else { throw ValidationError("--population needs -o FOLDER: one file per user") }
      }
    }

    func run() throws {
      try checkOptions()
      guard let user = Self.archetype(pattern), let start = calendar.startTime(), let offset = calendar.offsetSeconds() else { return }
      guard let population else {
        try write(user.launches(from: start, days: calendar.days, utcOffset: offset, seed: seed), to: calendar.sink())
        return
      }
      let folder = calendar.output
      do { try ByteSink.makeFolder(folder) } catch { throw Diagnostics.fail(error) }
      let kinds = SyntheticUsage.populationKinds
      for k in 0..<population {
        let kind = kinds[k % kinds.count]
        let number = String(k + 1)
        let name = folder + "/user-" + String(repeating: "0", count: max(0, 3 - number.count)) + number + "-" + Self.name(of: kind) + ".csv"
        let sink: ByteSink
        do { sink = try ByteSink(path: name, overwrite: calendar.force) } catch { throw Diagnostics.fail(error) }
        try write(kind.launches(from: start, days: calendar.days, utcOffset: offset, seed: seed &+ UInt64(k)), to: sink)
      }
    }

    private func write(_ launches: [UserLaunch], to sink: ByteSink) throws {
      do {
        try sink.write("time,duration\n")
        for l in launches { try sink.write(TimestampText.iso8601(l.time, utcOffset: l.utcOffset) + ",\(Int(l.duration))\n") }
        try sink.commit()
      } catch { throw Diagnostics.fail(error) }
    }
  }

  struct Feed: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Publication times of a content feed (CSV time): news every --every seconds in the daytime.",
      discussion: HelpExamples.alone(["geowake generate feed --days 14"]))

    @OptionGroup var calendar: Calendar

    @Option(parsing: .unconditional, help: "Seconds between publications.")
    var every: Int = 1_800

    @Option(name: .customLong("first-hour"), parsing: .unconditional, help: "First publication of the day, local hour 0…24.")
    var firstHour: Int = 6

    @Option(name: .customLong("last-hour"), parsing: .unconditional, help: "No publication after this local hour, 0…24.")
    var lastHour: Int = 22

    func checkOptions() throws {
      try calendar.checkOptions()
      guard (60...86_400).contains(every) else { throw ValidationError("--every must be seconds in 60...86400, got \(every)") }
      guard (0...24).contains(firstHour), (0...24).contains(lastHour), firstHour <= lastHour else {
        throw ValidationError("--first-hour and --last-hour must be hours 0...24 with first ≤ last")
      }
    }

    func run() throws {
      try checkOptions()
      guard let start = calendar.startTime(), let offset = calendar.offsetSeconds() else { return }
      let feed = try ContentFeed.daytimeNews(
        from: start, days: calendar.days, utcOffset: offset, every: Double(every), firstHour: firstHour, lastHour: lastHour)
      let sink = try calendar.sink()
      do {
        try sink.write("time\n")
        for t in feed.publications { try sink.write(TimestampText.iso8601(t, utcOffset: offset) + "\n") }
        try sink.commit()
      } catch { throw Diagnostics.fail(error) }
    }
  }

  struct Placement: ParsableArguments {
    @Option(parsing: .unconditional, help: "Random seed.")
    var seed: UInt64 = 20_240_501

    @Option(parsing: .unconditional, help: "Centre of the city the data is around, as LAT,LON.")
    var center: String = "37.77,-122.42"

    @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
    var output: String = "-"

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    func centerCoordinate() throws -> Coordinate {
      let parts = center.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
      guard parts.count == 2, let lat = parts[0], let lon = parts[1] else {
        throw ValidationError("--center \"\(center)\": expected LAT,LON in decimal degrees")
      }
      do { return try Coordinate(latitude: lat, longitude: lon) } catch {
        throw ValidationError("--center: \(error)")
      }
    }

    func sink() throws -> ByteSink {
      do { return try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    }
  }

  struct Track: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "A city track: walking, cycling and driving, one fix per interval, with GPS noise.",
      discussion: HelpExamples.alone(["geowake generate track --count 100 --format csv",
        "geowake generate track --count 3600 --center 51.5,-0.12 -o walk.gpx"]))

    @OptionGroup var placement: Placement

    @Option(parsing: .unconditional, help: "Number of fixes (1 … 100,000,000).")
    var count: Int = 1_000_000

    @Option(parsing: .unconditional, help: "Seconds between fixes.")
    var interval: Double = 1

    @Option(name: .customLong("format"), help: "Output format: gpx or csv (default: the one -o's extension names, else gpx).", transform: { $0.lowercased() })
    var formatOption: String?

    /// The format written: `--format`, else the one `-o`'s extension names, else GPX.
    var format: String { OutputFormat.resolve(formatOption, output: placement.output, supported: ["gpx", "csv"], fallback: "gpx") }

    func checkOptions() throws {
      guard (1...100_000_000).contains(count) else { throw ValidationError("--count must be in 1...100000000, got \(count)") }
      guard interval > 0, interval.isFinite else { throw ValidationError("--interval must be a positive number of seconds") }
      guard TrackWriter.Format(rawValue: format) != nil else { throw ValidationError("--format must be gpx or csv, got \(format)") }
      try OutputFormat.check(formatOption, output: placement.output, supported: ["gpx", "csv"])
      // About 125 bytes a GPX point, 56 a CSV row.
      try OutputFormat.refuseLargeTerminalOutput(placement.output, bytes: Double(count) * (format == "gpx" ? 125 : 56))
    }

    func run() throws {
      try checkOptions()
      let track = SyntheticTrack(
        seed: placement.seed, count: count, center: try placement.centerCoordinate(), interval: interval)
      let sink = try placement.sink()
      do {
        var writer = try TrackWriter(
          format: TrackWriter.Format(rawValue: format) ?? .gpx, sink: sink,
          name: "Synthetic track, seed \(placement.seed), \(count) fixes")
        for generated in track { try writer.write(generated.fix, hdop: generated.hdop, elevation: generated.elevation) }
        try writer.finish()
      } catch { throw Diagnostics.fail(error) }
    }
  }

  struct Regions: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Circles (and optionally polygons) around the city; half of them (at most 1,000) on the track (--along FILE, or the generated one).",
      discussion: HelpExamples.alone(["geowake generate regions --count 10",
        "geowake generate regions --count 100 --polygons 0.5 --format geojson"]))

    @OptionGroup var placement: Placement

    @Option(parsing: .unconditional, help: "Number of regions (1 … 10,000,000).")
    var count: Int = 1000

    @Option(parsing: .unconditional, help: "Fraction of regions that are polygons (0…1).")
    var polygons: Double = 0

    @Option(parsing: .unconditional, help: "Smallest and largest radius in metres, as MIN,MAX.")
    var radii: String = "50,2000"

    @Option(parsing: .unconditional, help: "Fewest and most vertices of a polygon, as MIN,MAX (3 … 100,000).")
    var vertices: String = "5,12"

    @Option(help: "A polygon's outline: star (each vertex at its own random distance from the centre) or coast (smooth at every scale, like a coastline or a district's border).", transform: { $0.lowercased() })
    var outline: String = "star"

    @Option(help: "A track file (any track format) to place the regions along, instead of a generated track.")
    var along: String?

    @Option(parsing: .unconditional, help: "Seed of the generated track the regions are placed on (defaults to --seed).")
    var trackSeed: UInt64?

    @Option(parsing: .unconditional, help: "Number of fixes of that track.")
    var trackCount: Int = 1_000_000

    @Option(name: .customLong("format"), help: "Output format: csv or geojson, which polygons need (default: the one -o's extension names, else csv).", transform: { $0.lowercased() })
    var formatOption: String?

    /// The format written: `--format`, else the one `-o`'s extension names, else CSV.
    var format: String { OutputFormat.resolve(formatOption, output: placement.output, supported: ["csv", "geojson"], fallback: "csv") }

    func checkOptions() throws {
      guard (1...10_000_000).contains(count) else { throw ValidationError("--count must be in 1...10000000, got \(count)") }
      guard (0...1).contains(polygons) else { throw ValidationError("--polygons must be in 0...1, got \(polygons)") }
      guard let f = RegionWriter.Format(rawValue: format) else { throw ValidationError("--format must be csv or geojson, got \(format)") }
      if f == .csv && polygons > 0 { throw ValidationError("polygons need --format geojson") }
      guard radiusRange() != nil else { throw ValidationError("--radii \"\(radii)\": expected MIN,MAX with 0 < MIN ≤ MAX ≤ 10000000") }
      guard vertexRange() != nil else { throw ValidationError("--vertices \"\(vertices)\": expected MIN,MAX with 3 ≤ MIN ≤ MAX ≤ 100000") }
      guard SyntheticRegions.Outline(rawValue: outline) != nil else { throw ValidationError("--outline must be star or coast, got \(outline)") }
      try OutputFormat.check(formatOption, output: placement.output, supported: ["csv", "geojson"])
      // About 45 bytes a CSV circle, 130 a GeoJSON one, 40 a polygon's vertex.
      let perRegion = f == .csv ? 45 : 130 * (1 - polygons) + polygons * 40 * Double(vertexRange()?.upperBound ?? 12)
      try OutputFormat.refuseLargeTerminalOutput(placement.output, bytes: Double(count) * perRegion)
    }

    /// Up to about 20,000 positions spread evenly along the track file at `path`.
    static func sample(_ path: String) throws -> [Coordinate] {
      var all: [Coordinate] = []
      do {
        var reader = try TrackFileReader(path: path)
        while let fix = try reader.next() { all.append(fix.coordinate) }
      } catch { throw Diagnostics.fail(error) }
      guard !all.isEmpty else { throw ValidationError("--along \(path): the track has no timed fix to place regions along") }
      let step = max(1, all.count / 20_000)
      return stride(from: 0, to: all.count, by: step).map { all[$0] }
    }

    func vertexRange() -> ClosedRange<Int>? {
      let parts = vertices.split(separator: ",").compactMap { Int($0) }
      guard parts.count == 2, parts[0] >= 3, parts[0] <= parts[1], parts[1] <= 100_000 else { return nil }
      return parts[0]...parts[1]
    }

    func radiusRange() -> ClosedRange<Double>? {
      let parts = radii.split(separator: ",").compactMap { Double($0) }
      guard parts.count == 2, parts[0] > 0, parts[0] <= parts[1], parts[1] <= CircularRegion.maximumRadius else { return nil }
      return parts[0]...parts[1]
    }

    func run() throws {
      try checkOptions()
      var center = try placement.centerCoordinate()
      var sample: [Coordinate] = []
      if let along {
        sample = try Self.sample(along)
        center = sample[sample.count / 2]
      } else {
        let track = SyntheticTrack(seed: trackSeed ?? placement.seed, count: trackCount, center: center)
        let step = max(1, trackCount / 20_000)
        for (i, generated) in track.enumerated() where i % step == 0 { sample.append(generated.fix.coordinate) }
      }
      let regions = SyntheticRegions(
        seed: placement.seed, count: count, center: center, radii: radiusRange() ?? 50...2000, polygonFraction: polygons,
        vertices: vertexRange() ?? 5...12, outline: SyntheticRegions.Outline(rawValue: outline) ?? .star
      ).generate(near: sample)
      let sink = try placement.sink()
      do {
        try RegionWriter.write(regions, format: RegionWriter.Format(rawValue: format) ?? .csv, to: sink)
      } catch { throw Diagnostics.fail(error) }
    }
  }
}
