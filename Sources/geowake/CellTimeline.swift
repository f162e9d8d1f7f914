import CellHandoff
import Geodesy
import TrackIO

/// The cell side of `geowake analyze`: the serving cell along the track and, when asked, the
/// significant location changes its handoffs give; writes their events and sums them up.
struct CellTimeline {
  var tracker: ServingCellTracker
  var monitor: SignificantChangeMonitor?
  let description: String
  private var changes: [ServingCellChange] = []
  private var events: [SignificantChangeEvent] = []
  private var lastTime = -Double.infinity
  private var cellsSeen = Set<CellIdentity>()
  private(set) var outOfOrder = 0
  /// Significant changes delivered since the last ``takeDeliveries()`` (the start event excluded:
  /// the app is running when it starts monitoring).
  private var deliveries: [SignificantChangeEvent] = []

  mutating func takeDeliveries() -> [SignificantChangeEvent] {
    defer { deliveries.removeAll(keepingCapacity: true) }
    return deliveries
  }

  init(layout: CellLayout, significantChanges: SignificantChangeProfile?, description: String) throws(CellLayoutError) {
    tracker = try ServingCellTracker(layout: layout)
    monitor = significantChanges.map { SignificantChangeMonitor(profile: $0) }
    self.description = description
  }

  /// Follows one fix (fixes earlier than the last one are skipped and counted: the cell model
  /// needs time order) and writes the events it causes.
  mutating func process(_ fix: LocationFix, reportedCell: CellIdentity?, writer: inout TimelineWriter) throws(TrackIOError) {
    guard fix.time.isFinite, fix.time >= lastTime else {
      outOfOrder += 1
      return
    }
    lastTime = fix.time
    changes.removeAll(keepingCapacity: true)
    tracker.process(fix, reportedCell: reportedCell, into: &changes)
    for change in changes {
      if let to = change.to { cellsSeen.insert(to) }
      try writer.write(change)
    }
    guard monitor != nil else { return }
    events.removeAll(keepingCapacity: true)
    monitor?.process(fix, changes: changes, servingRange: tracker.servingTower?.range, into: &events)
    for event in events {
      try writer.write(event)
      if event.kind == .significantChange && event.trigger != .start { deliveries.append(event) }
    }
  }

  /// Lines for the summary.
  var summary: String {
    var text = "\ncells: \(description); \(counted(tracker.handoffCount, "handoff")) among \(counted(cellsSeen.count, "cell"))"
    text += ", \(counted(tracker.suppressedPingPongs, "ping-pong")) suppressed\n"
    if let monitor {
      text += "significant location changes (profile \(monitor.profile.name)): \(monitor.deliveredCount) delivered"
        + " (the first at the start), \(counted(monitor.suppressedCount, "handoff")) suppressed (under \(Int(monitor.profile.minimumDistance)) m or"
        + " \(Int(monitor.profile.minimumInterval)) s from the last)"
        + (monitor.profile.periodicWakeInterval.map { ", a periodic wake after \(Int($0)) s without one" } ?? "") + "\n"
    }
    if outOfOrder > 0 { text += "fixes out of time order left out of the cell model: \(outOfOrder)\n" }
    return text
  }
}
