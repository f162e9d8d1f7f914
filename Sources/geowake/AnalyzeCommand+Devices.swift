import ArgumentParser
import BackgroundRuntime
import CellHandoff
import Foundation
import GeoWake
import GeoWakeReports
import Geodesy
import Geofencing
import TrackIO

/// `geowake analyze` over many devices: each device's timeline on its own (its own monitor, cells
/// and app) against one shared region set, `--jobs` at a time, written in device order.
extension AnalyzeCommand {
  /// What every device's analysis shares, read-only.
  struct DeviceSettings: Sendable {
    /// The devices' shared regions, platform, seed, cells and app.
    var fleet: Fleet
    var format: TimelineWriter.Format
    /// The terminal's width for the table (nil: whole rows), and its region column's.
    var width: Int?
    var subjectWidth = 18
    var reading: TrackFileReader.Options
    /// The region file's name, for warnings about a device far from every region.
    var regionFile: String?
    /// The regions as a list (shared), for that warning.
    var regionList: [Region]
  }

  func runDevices(_ source: DeviceTrackSource, regionFile: RegionFile) async throws {
    guard seeds == 1 else {
      Diagnostics.error("--seeds shows the spread of one device's region events; this track holds many devices (a device column)")
      throw SysExit.usage
    }
    let format = TimelineWriter.Format(rawValue: self.format) ?? .table
    guard format != .html else {
      Diagnostics.error("--format html draws one device's timeline; for many devices choose table, jsonl, csv or geojson")
      throw SysExit.usage
    }
    let cells = try cellConfiguration(trackNamesCells: false)
    let fleet = Fleet(
      regions: RegionSet(regionFile.regions), platform: platform, notifications: regionFile.notifications, seed: seed, cells: cells,
      cellsFromTrack: try cells ?? cellConfiguration(trackNamesCells: true), app: try appInputs())
    var configured = DeviceSettings(
      fleet: fleet, format: format, width: TerminalWidth.columns(output: output, wide: wide),
      reading: .init(lenient: lenient, assumeUTC: assumeUTC), regionFile: regions,
      regionList: regionFile.regions)
    configured.subjectWidth = max(18, (regionFile.regions.lazy.map { $0.identifier.rawValue.count }.max() ?? 0) + 2)
    let settings = configured
    if let regions, regionFile.regions.isEmpty { Diagnostics.error(InputChecks.noRegionWarning(regions: regions)) }
    // The settings are checked once, here, rather than failing every device alike.
    let first: DeviceTimeline
    do {
      first = try fleet.timeline(for: "")
    } catch {
      Diagnostics.error("\(regions ?? "regions"): \(error)")
      throw SysExit.dataError
    }
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    let listed = format == .geojson ? first.monitor.monitoredRegions + first.monitor.failedRegions : []
    var writer = TimelineWriter(format: format, sink: out, regions: listed, devices: true)
    writer.width = settings.width
    writer.subjectWidth = settings.subjectWidth
    let totals: DeviceTotals
    do {
      try writer.begin()
      totals = try await DeviceRun.run(
        source, jobs: jobs, to: out, featuresBefore: !listed.isEmpty && format == .geojson,
        work: { track in Self.analyse(track, settings) })
      let monitored = first.monitor.regions.count
      let given = monitored + first.monitor.failedRegions.count
      try writer.finish(
        summary: totals.text(
          regions: regions == nil ? nil : "\(given) regions shared (profile \(fleet.platform.regionMonitoring.name)"
            + (given > monitored ? ", \(monitored) monitored under its cap)" : ")")))
      try out.commit()
    } catch let error as TrackIOError {
      throw Diagnostics.fail(error)
    }
    try totals.exitIfFailed()
  }

  /// One device's timeline, written to memory.
  static func analyse(_ track: DeviceTrack, _ settings: DeviceSettings) -> DeviceRun.Outcome {
    var outcome = DeviceRun.Outcome(device: track.device)
    let sink = ByteSink.inMemory()
    var writer = TimelineWriter(format: settings.format, sink: sink, regions: [], devices: true)
    writer.width = settings.width
    writer.subjectWidth = settings.subjectWidth
    writer.device = track.device
    writer.hasWrittenFeature = true
    var reader: TrackFileReader?
    switch track {
    case .failed(_, let error):
      outcome.failure = error.description
      return outcome
    case .file(_, let path):
      do { reader = try TrackFileReader(path: path, options: settings.reading) } catch {
        outcome.failure = error.description
        return outcome
      }
    case .rows: break
    }
    let namesCells: Bool
    if case .rows(_, _, _, let cells) = track { namesCells = cells } else { namesCells = reader?.namesCells ?? false }
    var timeline: DeviceTimeline
    do {
      timeline = try settings.fleet.timeline(for: track.device, namesCells: namesCells)
    } catch {
      outcome.failure = "\(error)"
      return outcome
    }
    var events: [TimelineEvent] = []
    var checks = InputChecks()
    var pointsWithoutTime = 0
    do throws(TrackIOError) {
      func write(_ events: [TimelineEvent]) throws(TrackIOError) {
        for event in events {
          let entry = TimelineEntry(event)
          outcome.events[entry.event, default: 0] += 1
          try writer.write(entry)
        }
      }
      // A device's track is a file's, not a stream's: read whole, and put in time order (stably)
      // when some fixes are out of it, which is said.
      var read = Fleet.Track(device: track.device, fixes: [])
      var source = ""
      if case .rows(_, let path, let segments, let namesCells) = track {
        let rows = segments.joined()
        read = Fleet.Track(device: track.device, fixes: rows.fixes, cells: namesCells ? rows.cells : nil)
        source = path
      } else if var file = reader {
        var cells: [CellIdentity?] = []
        while let fix = try file.next() {
          read.fixes.append(fix)
          if file.namesCells { cells.append(file.reportedCell) }
        }
        read.cells = file.namesCells ? cells : nil
        outcome.warnings = file.takeWarnings()
        outcome.fixesRejected += file.pointsWithoutTime
        pointsWithoutTime = file.pointsWithoutTime
        source = file.path
      }
      let ordered = read.ordered()
      if ordered.moved > 0 {
        outcome.notes.append(
          "warning: device \(track.device) (\(source)): \(ordered.moved) of its \(read.fixes.count) fixes were out of time order; "
            + "they are used in time order (stably sorted)")
      }
      for (k, fix) in ordered.fixes.enumerated() {
        events.removeAll(keepingCapacity: true)
        checks.add(fix)
        if timeline.process(fix, reportedCell: ordered.cells?[k], into: &events) != nil { outcome.fixesRejected += 1 }
        try write(events)
      }
      events.removeAll(keepingCapacity: true)
      do { try timeline.finish(into: &events) } catch {
        outcome.failure = "\(track.device): \(error)"
        return outcome
      }
      try write(events)
    } catch {
      outcome.failure = error.description
      return outcome
    }
    outcome.fixesUsed = timeline.monitor.fixCount
    outcome.notes += InputChecks.deviceNotes(
      device: track.device, checks: checks, regionFile: settings.regionFile, regions: settings.regionList,
      used: timeline.monitor.fixCount, rejections: timeline.monitor.rejections, pointsWithoutTime: pointsWithoutTime)
    outcome.output = sink.takeBytes()
    return outcome
  }
}

