import ArgumentParser
import BackgroundRuntime
import CellHandoff
import GeoWake
import Geofencing
import RuntimeIO
import GeoWakeReports
import TrackIO

/// The inputs of `geowake analyze`: the options checked together, and what the files beyond the
/// track and the regions hold.
extension AnalyzeCommand {
  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: output, supported: ["table", "jsonl", "csv", "geojson", "html"])
    guard !tracks.isEmpty else { throw ValidationError("give a track: a GPX, CSV, JSON Lines, GeoJSON or location-history file, a folder of them, or - for standard input") }
    guard jobs.map({ $0 >= 1 }) ?? true else { throw ValidationError("--jobs must be at least 1, got \(jobs ?? 0)") }
    guard regions != nil || towers != nil || syntheticCells != nil || significantChanges else {
      throw ValidationError("give --regions, or cells to follow (--towers, --synthetic-cells, --significant-changes)")
    }
    guard towers == nil || syntheticCells == nil else { throw ValidationError("--towers and --synthetic-cells exclude each other") }
    guard !periodicWake || significantChanges else { throw ValidationError("--periodic-wake needs --significant-changes") }
    guard pushes == nil || app != nil else { throw ValidationError("--pushes needs --app: the app the pushes are for") }
    guard usage == nil || app != nil else { throw ValidationError("--usage needs --app: the app that fetches") }
    guard feed == nil || usage != nil else { throw ValidationError("--feed needs --usage") }
    guard connectivity == nil || pushes != nil || usage != nil else { throw ValidationError("--connectivity needs --pushes or --usage") }
    guard (1...1_000).contains(seeds) else { throw ValidationError("--seeds must be in 1...1000, got \(seeds)") }
    guard seed <= UInt64.max - UInt64(seeds) else { throw ValidationError("--seed is too large for \(seeds) seeds") }
    if seeds > 1 {
      guard regions != nil else { throw ValidationError("--seeds needs --regions: it shows the spread of the region events") }
      guard tracks.count == 1, tracks[0] != "-" else { throw ValidationError("--seeds needs one track file (it is read once per seed), not standard input or several tracks") }
    }
    if let syntheticCells, Self.spacing(syntheticCells) == nil {
      throw ValidationError("--synthetic-cells must be urban, rural or metres in 100...100000, got \(syntheticCells)")
    }
    guard TimelineWriter.Format(rawValue: format) != nil else {
      throw ValidationError("--format must be table, jsonl, csv, geojson or html, got \(format)")
    }
    guard !significantChanges || platform.significantChanges != nil else {
      throw ValidationError(
        "--significant-changes: the \(platformName.rawValue) platform has no significant-location-change service (it is iOS's): leave it out, or choose ios or ios-documented")
    }
  }

  /// Metres between synthetic towers for `text` (urban, rural or a number), if valid.
  static func spacing(_ text: String) -> Double? {
    switch text.lowercased() {
    case "urban": return HexagonalCellLayout.urbanSpacing
    case "rural": return HexagonalCellLayout.ruralSpacing
    default: return Double(text).flatMap { HexagonalCellLayout.isValidSpacing($0) ? $0 : nil }
    }
  }

  /// The cell model asked for, if any.
  func cellConfiguration(trackNamesCells: Bool) throws -> CellTimeline.Configuration? {
    let significant: SignificantChangeProfile? = significantChanges ? (periodicWake ? .iosWithPeriodicWake : platform.significantChanges) : nil
    if let towers {
      let file: TowerCSVReader.TowerFile
      do { file = try TowerCSVReader.read(path: towers, lenient: lenient, warning: Diagnostics.warning) } catch {
        throw Diagnostics.fail(error)
      }
      do {
        return CellTimeline.Configuration(
          layout: .towers(try TowerMap(file.towers)), significantChanges: significant,
          description: "cells \(Self.fileName(towers)) (\(counted(file.towers.count, "cell")))")
      } catch {
        Diagnostics.error("\(towers): \(error)")
        throw SysExit.dataError
      }
    }
    if let syntheticCells, let spacing = Self.spacing(syntheticCells) {
      return CellTimeline.Configuration(
        layout: .hexagonal(spacing: spacing), significantChanges: significant, description: "synthetic cells every \(Int(spacing)) m")
    }
    if trackNamesCells {
      // The track names its cells; positions are unknown, so no layout is consulted.
      return CellTimeline.Configuration(
        layout: .hexagonal(spacing: HexagonalCellLayout.urbanSpacing), significantChanges: significant,
        description: "serving cells from the track")
    }
    if significantChanges {
      return CellTimeline.Configuration(
        layout: .hexagonal(spacing: HexagonalCellLayout.urbanSpacing), significantChanges: significant,
        description: "synthetic cells every \(Int(HexagonalCellLayout.urbanSpacing)) m (no tower file)")
    }
    return nil
  }

  /// The app (`--app`) and what it is sent and used for (`--pushes`, `--usage`, `--feed`,
  /// `--connectivity`), if an app is given.
  func appInputs() throws -> DeviceTimeline.App? {
    guard let app else { return nil }
    var inputs: DeviceTimeline.App
    let scenario: AppScenario
    do { scenario = try ScenarioReader.read(path: app, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    inputs = DeviceTimeline.App(scenario: PlatformOption.scenario(scenario, from: app, on: platform))
    do {
      if let connectivity { inputs.conditions = try DeviceConditionsCSVReader.read(path: connectivity, assumeUTC: assumeUTC) }
      if let pushes { inputs.pushes = try PushScheduleReader.read(path: pushes, assumeUTC: assumeUTC) }
      if let usage { inputs.launches = try UsageCSVReader.read(path: usage, assumeUTC: assumeUTC) }
      if let feed { inputs.feed = try FeedCSVReader.read(path: feed, assumeUTC: assumeUTC) }
    } catch {
      throw Diagnostics.fail(error)
    }
    return inputs
  }
}

extension AnalyzeCommand {
  /// The region events of the track under each of `--seeds` seeds from `--seed`: the track read
  /// once per seed, through a monitor of the same regions and profile.
  func seedSpread(_ regions: RegionSet, _ notifications: [RegionIdentifier: RegionNotifications]) throws -> SeedSpread {
    let list = (0..<UInt64(seeds)).map { seed + $0 }
    var all: [[RegionEvent]] = []
    // The track is read again for each seed: a bar of its own, over every pass.
    var progress = ProgressBar(path: tracks.first ?? "-", label: "seeds", output: output, passes: list.count)
    defer { progress.finish() }
    var done = 0
    for s in list {
      var monitor = try RegionMonitor(regions: regions, profile: platform.regionMonitoring, notifications: notifications, seed: s)
      var events: [RegionEvent] = []
      do {
        guard case .one(var reader, let first) = try DeviceTrackSource.open(tracks, options: .init(lenient: lenient, assumeUTC: assumeUTC)) else {
          throw ValidationError("--seeds needs one track")
        }
        if let fix = try first.get() { monitor.process(fix, into: &events) }
        var count = 0
        while let fix = try reader.next() {
          monitor.process(fix, into: &events)
          count += 1
          if count & 4_095 == 0 { progress.update(bytes: done + reader.bytesRead) }
        }
        done += reader.bytesRead
        progress.update(bytes: done)
        _ = reader.takeWarnings()
      } catch let error as TrackIOError { throw Diagnostics.fail(error) }
      monitor.finish(into: &events)
      all.append(events)
    }
    return SeedSpread(seeds: list, events: all)
  }
}
