import Geodesy
import Geofencing
import TrackIO

/// `geowake crossings` over many devices: one detector per device over one shared region set.
extension CrossingsCommand {
  func runDevices(_ source: DeviceTrackSource, regions: RegionSet) async throws {
    let regionFile = self.regions
    let regionList = regions.regions
    if regions.count == 0 { Diagnostics.error(InputChecks.noRegionWarning(regions: regionFile)) }
    let out = try outputOptions.sink()
    let table = format == "table"
    let csv = format == "csv"
    // On a terminal: each device's rows under a line naming it, as one device's are.
    let narrow = table && TerminalWidth.columns(output: outputOptions.output, wide: false) != nil
    let reading = TrackFileReader.Options(assumeUTC: assumeUTC)
    let regionWidth = max(17, (regionList.lazy.map { $0.identifier.rawValue.count }.max() ?? 0) + 1)
    let totals: DeviceTotals
    do {
      if narrow {
        try out.write("time          " + "region".column(regionWidth + 1) + "event  lat        lon         fixes\n")
      } else if table {
        try out.write("device".column(16) + "time (UTC)                " + "region".column(regionWidth + 1) + "event  lat          lon           fixes         note\n")
      } else if csv {
        try out.write("device," + Self.csvHeader + "\n")
      }
      totals = try await DeviceRun.run(source, jobs: jobs, to: out, featuresBefore: false) { track in
        Self.follow(
          track, regions: regions, regionFile: regionFile, regionList: regionList, table: table, csv: csv, narrow: narrow,
          regionWidth: regionWidth, reading: reading)
      }
      if table { try out.write(totals.text(regions: "\(regions.count) regions")) }
      try out.commit()
    } catch let error as TrackIOError {
      throw Diagnostics.fail(error)
    }
    try totals.exitIfFailed()
  }

  /// One device's crossings, written to memory.
  static func follow(
    _ track: DeviceTrack, regions: RegionSet, regionFile: String, regionList: [Region], table: Bool, csv: Bool,
    narrow: Bool = false, regionWidth: Int = 17, reading: TrackFileReader.Options
  ) -> DeviceRun.Outcome {
    var outcome = DeviceRun.Outcome(device: track.device)
    let sink = ByteSink.inMemory()
    var detector = CrossingDetector(regions: regions)
    var crossings: [RegionCrossing] = []
    var checks = InputChecks()
    var day: Int?
    func take(_ fix: LocationFix, line: Int, path: String) throws(TrackIOError) {
      crossings.removeAll(keepingCapacity: true)
      checks.add(fix)
      do { try detector.process(fix, into: &crossings) } catch {
        throw TrackIOError(path: path, line: line, column: 1, message: error.message)
      }
      for c in crossings {
        outcome.events[c.isPassThrough ? "\(c.direction.rawValue) (pass)" : c.direction.rawValue, default: 0] += 1
        if narrow {
          let today = Int((c.time / 86_400).rounded(.down))
          if day == nil { try sink.write("device \(track.device)\n") }
          if today != day {
            day = today
            try sink.write(String(TimestampText.iso8601(c.time).prefix(10)) + " (UTC)\n")
          }
          try writeNarrowRow(c, sink, regionWidth: regionWidth)
        } else {
          try (table
            ? writeRow(c, sink, device: track.device, regionWidth: regionWidth)
            : csv ? writeCSV(c, sink, device: track.device) : writeJSON(c, sink, device: track.device))
        }
      }
    }
    do throws(TrackIOError) {
      switch track {
      case .failed(_, let error): throw error
      case .rows(_, let path, let segments, _):
        let rows = segments.joined()
        for (k, fix) in rows.fixes.enumerated() { try take(fix, line: Int(rows.lines[k]), path: path) }
      case .file(_, let path):
        var file = try TrackFileReader(path: path, options: reading)
        while let fix = try file.next() { try take(fix, line: file.lineNumber, path: file.path) }
        outcome.fixesRejected = file.pointsWithoutTime
        outcome.warnings = file.takeWarnings()
      }
    } catch {
      outcome.failure = error.description
      return outcome
    }
    outcome.fixesUsed = detector.fixCount
    outcome.notes = InputChecks.deviceNotes(
      device: track.device, checks: checks, regionFile: regionFile, regions: regionList, used: detector.fixCount, rejections: [:],
      pointsWithoutTime: outcome.fixesRejected)
    outcome.output = sink.takeBytes()
    return outcome
  }
}
