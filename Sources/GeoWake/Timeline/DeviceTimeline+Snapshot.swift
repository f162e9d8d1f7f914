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

extension DeviceTimeline {
  /// A timeline's state, to be saved (`Codable`) when a server restarts or a long replay is
  /// split, and restored with the same regions, profile, notifications, seed, cell
  /// configuration and app: the restored timeline appends exactly the events the original would
  /// have appended from then on, and ``finish(into:)`` gives the same fetches, pushes and app
  /// steps.
  ///
  /// ```swift
  /// let saved = try JSONEncoder().encode(timeline.snapshot())
  /// // … later, in another process:
  /// var timeline = try DeviceTimeline(
  ///   restoring: JSONDecoder().decode(DeviceTimeline.Snapshot.self, from: saved),
  ///   regions: fences, profile: .ios, seed: 7, cells: cellConfiguration, app: app)
  /// ```
  ///
  /// Small beside the regions and the app's inputs (neither is in it): the region monitor's
  /// state, the cell side's, the totals per region, the location events that will wake the app
  /// and, when the app has pushes or launches, where the device was about every minute. A
  /// finished timeline has nothing left to resume and is refused on restore.
  public struct Snapshot: Codable, Sendable, Hashable {
    var monitor: RegionMonitor.Snapshot
    var cells: CellTimeline.Snapshot?
    var activity: RegionActivity
    var firstTime: Double?
    var lastTime: Double?
    var hasApp: Bool
    var keepsPlaces: Bool
    var places: [Place]
    var wakes: [Wake]
    var finished: Bool

    struct Place: Codable, Sendable, Hashable {
      var time: Double
      var coordinate: Coordinate
    }
  }

  /// The timeline's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    Snapshot(
      monitor: monitor.snapshot(), cells: cells?.snapshot(), activity: activity, firstTime: firstTime, lastTime: lastTime,
      hasApp: app != nil, keepsPlaces: keepsPlaces, places: places.map { Snapshot.Place(time: $0.time, coordinate: $0.coordinate) },
      wakes: wakes, finished: finished)
  }

  /// A timeline in the state of `snapshot`, over the settings it was saved with.
  /// - Throws: ``SnapshotError`` when the regions, the profile, the seed, the cell configuration
  ///   or the presence of an app (and whether it has pushes or launches) differ from the
  ///   snapshot's, when a field is out of range, or when the timeline had finished;
  ///   ``RegionMonitoringProfile/InvalidValue`` for an invalid profile; ``CellLayoutError`` for a
  ///   cell layout that cannot be built.
  public init(
    restoring snapshot: Snapshot, regions: RegionSet, profile: RegionMonitoringProfile,
    notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0,
    cells: CellTimeline.Configuration? = nil, app: App? = nil
  ) throws {
    guard !snapshot.finished else { throw SnapshotError(.invalidField("finished", "the timeline had finished: nothing is left to resume")) }
    try self.init(regions: regions, profile: profile, notifications: notifications, seed: seed, cells: nil, app: app)
    guard snapshot.hasApp == (app != nil) else {
      throw SnapshotError(.settingsDiffer(snapshot.hasApp ? "setting: it had an app, none is given" : "setting: it had no app, one is given"))
    }
    guard snapshot.keepsPlaces == keepsPlaces else {
      throw SnapshotError(.settingsDiffer("app: pushes or launches were \(snapshot.keepsPlaces ? "given" : "not given") then"))
    }
    monitor = try RegionMonitor(restoring: snapshot.monitor, regions: regions, profile: profile, notifications: notifications, seed: seed)
    switch (snapshot.cells, cells) {
    case (nil, nil): break
    case (let saved?, let configuration?): self.cells = try CellTimeline(restoring: saved, configuration)
    default: throw SnapshotError(.settingsDiffer(snapshot.cells == nil ? "setting: it followed no cells" : "setting: it followed cells"))
    }
    for (field, time) in [("firstTime", snapshot.firstTime), ("lastTime", snapshot.lastTime)] {
      if let time, !time.isFinite { throw SnapshotError(.invalidField(field, "not finite")) }
    }
    guard (snapshot.firstTime == nil) == (snapshot.lastTime == nil) else {
      throw SnapshotError(.invalidField("firstTime", "given without lastTime, or the other way round"))
    }
    guard snapshot.places.allSatisfy({ $0.time.isFinite }) else { throw SnapshotError(.invalidField("places", "a time is not finite")) }
    guard snapshot.wakes.allSatisfy({ $0.time.isFinite }) else { throw SnapshotError(.invalidField("wakes", "a time is not finite")) }
    activity = snapshot.activity
    firstTime = snapshot.firstTime
    lastTime = snapshot.lastTime
    places = snapshot.places.map { ($0.time, $0.coordinate) }
    wakes = snapshot.wakes
  }
}
