import CellHandoff
import Geodesy
public import Geofencing

extension CellTimeline {
  /// The cell side's state: the serving-cell tracker's, the significant-change monitor's, the
  /// cells seen so far.
  public struct Snapshot: Codable, Sendable, Hashable {
    var tracker: ServingCellTracker.Snapshot
    var significantChanges: SignificantChangeMonitor.Snapshot?
    /// Sorted, so that equal states encode alike.
    var cellsSeen: [CellIdentity]
    var outOfOrder: Int
    /// The time of the last fix followed (nil before the first).
    var lastTime: Double?
  }

  /// The state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    Snapshot(
      tracker: tracker.snapshot(), significantChanges: monitor?.snapshot(), cellsSeen: cellsSeen.sorted(),
      outOfOrder: outOfOrder, lastTime: lastTime.isFinite ? lastTime : nil)
  }

  /// The cell side in the state of `snapshot`, with the configuration it was saved with.
  /// - Throws: ``SnapshotError`` when the configuration differs or a field is out of range;
  ///   ``CellLayoutError`` for a layout that cannot be built.
  public init(restoring snapshot: Snapshot, _ configuration: Configuration) throws {
    try self.init(configuration)
    tracker = try ServingCellTracker(restoring: snapshot.tracker, layout: configuration.layout)
    switch (snapshot.significantChanges, configuration.significantChanges) {
    case (nil, nil): break
    case (let saved?, let profile?): monitor = try SignificantChangeMonitor(restoring: saved, profile: profile)
    default: throw SnapshotError(.settingsDiffer(snapshot.significantChanges == nil ? "setting: significant changes were off" : "setting: significant changes were on"))
    }
    guard snapshot.outOfOrder >= 0 else { throw SnapshotError(.invalidField("outOfOrder", "negative")) }
    if let time = snapshot.lastTime, !time.isFinite { throw SnapshotError(.invalidField("lastTime", "not finite")) }
    cellsSeen = Set(snapshot.cellsSeen)
    outOfOrder = snapshot.outOfOrder
    lastTime = snapshot.lastTime ?? -.infinity
  }
}
