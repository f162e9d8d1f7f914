// One device's run of `analyze`: its timeline, its writer, and the warnings about its input.
import BackgroundRuntime
import CellHandoff
import GeoWake
import GeoWakeReports
import Geofencing
import TrackIO

extension AnalyzeCommand {
  /// One device's timeline over the regions read, with its cells and app.
  func deviceTimeline(_ regionFile: RegionFile, cells: CellTimeline.Configuration?, app: DeviceTimeline.App?) throws -> DeviceTimeline {
    do {
      return try DeviceTimeline(
        regions: RegionSet(regionFile.regions), platform: platform, notifications: regionFile.notifications,
        seed: seed, cells: cells, app: app)
    } catch {
      Diagnostics.error("\(regions ?? "regions"): \(error)")
      throw SysExit.dataError
    }
  }

  /// The writer of one device's timeline in the chosen format.
  func timelineWriter(to out: ByteSink, track: String, timeline: DeviceTimeline, cells: CellTimeline.Configuration?) -> TimelineWriter {
    TimelineWriter(
      format: TimelineWriter.Format(rawValue: format) ?? .table, sink: out,
      // Only the formats that draw or list regions need them (a copy of 100,000 regions is ~8 MB).
      regions: ["geojson", "html"].contains(format) ? timeline.monitor.monitoredRegions + timeline.monitor.failedRegions : [],
      title: "GeoWake: \(Self.fileName(track))",
      subtitle: [regions.map { "regions \(Self.fileName($0)), platform \(platformName.rawValue)" }, cells?.description].compactMap { $0 }.joined(separator: "; "))
  }

  /// Warnings about input read without error that cannot be what was meant (see
  /// ``InputChecks``); status 65 when nothing could be analysed.
  func warnAboutInput(
    _ summary: DeviceTimeline.Summary, _ checks: InputChecks, pointsWithoutTime: Int, track: String, hasApp: Bool
  ) throws {
    let m = summary.monitor
    // The regions as the monitor holds them, each made when the far check reaches it (it stops at
    // the first near one): not the whole list again.
    let regionList = [AnySequence(m.regions.lazyRegions), AnySequence(m.failedRegions)].joined()
    var nothingToAnalyse = false
    if m.fixCount == 0 {
      Diagnostics.error(InputChecks.noFixWarning(track: track))
      nothingToAnalyse = true
    }
    if let regions, m.regions.isEmpty && m.failedRegions.isEmpty {
      Diagnostics.error(InputChecks.noRegionWarning(regions: regions))
      if summary.cells == nil && !hasApp { nothingToAnalyse = true }
    }
    if let regions, let far = checks.farWarning(track: track, regions: regions, regionList) { Diagnostics.error(far) }
    checks.fixWarnings(track: track).forEach(Diagnostics.error)
    if let rejected = InputChecks.rejectedWarning(
      track: track, used: m.fixCount, rejections: m.rejections, pointsWithoutTime: pointsWithoutTime)
    {
      Diagnostics.error(rejected)
    }
    if let towers, let cells = summary.cells, cells.cellsSeen.isEmpty, m.fixCount > 0 {
      Diagnostics.error("warning: no cell of \(towers) reaches the track \(track): no handoff and no significant change can happen")
    }
    if nothingToAnalyse { throw SysExit.dataError }
  }

  func warn(_ warnings: [TrackIOError], _ progress: inout ProgressBar) {
    guard !warnings.isEmpty else { return }
    progress.clear()
    warnings.forEach(Diagnostics.warning)
  }

}
