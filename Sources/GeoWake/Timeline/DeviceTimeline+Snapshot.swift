public import BackgroundRuntime
import CellHandoff
import Geodesy
public import Geofencing
public import SavedState

extension DeviceTimeline {
  /// A timeline's state, to be saved (`Codable`) when a server restarts or a long replay is
  /// split, and restored with the same regions, profile, notifications, seed, cell
  /// configuration and app: the restored timeline appends exactly the events the original would
  /// have appended from then on, in the same order.
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
  /// state, the cell side's, the totals per region, the clock, the events made and not yet
  /// appended, where the device was since the last one placed, and the whole app's device
  /// (``Device/Snapshot``). A finished timeline has nothing left to resume and is refused on
  /// restore.
  public struct Snapshot: Codable, Sendable, Hashable {
    var monitor: RegionMonitor.Snapshot
    var cells: CellTimeline.Snapshot?
    var activity: RegionActivity
    var firstTime: Double?
    var lastTime: Double?
    var clock: Double?
    var order: TimelineOrder
    var places: PlaceTrail
    var hasApp: Bool
    var device: Device.Snapshot?
    var finished: Bool
  }

  /// The timeline's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    Snapshot(
      monitor: monitor.snapshot(), cells: cells?.snapshot(), activity: activity, firstTime: firstTime, lastTime: lastTime,
      clock: clock.isFinite ? clock : nil, order: order, places: places, hasApp: app != nil, device: device?.snapshot(),
      finished: finished)
  }

  /// A timeline in the state of `snapshot`, over the settings it was saved with.
  /// - Throws: ``SnapshotError`` when the regions, the profile, the seed, the cell configuration
  ///   or the app (whether there is one, its inputs) differ from the snapshot's, when a field is
  ///   out of range, or when the timeline had finished; ``RegionMonitoringProfile/InvalidValue``
  ///   for an invalid profile; ``CellLayoutError`` for a cell layout that cannot be built.
  public init(
    restoring snapshot: Snapshot, regions: RegionSet, profile: RegionMonitoringProfile,
    notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0,
    cells: CellTimeline.Configuration? = nil, app: App? = nil, push: PushProfile = .ios, fetch: FetchProfile = .ios
  ) throws {
    guard !snapshot.finished else { throw SnapshotError(.invalidField("finished", "the timeline had finished: nothing is left to resume")) }
    try self.init(
      regions: regions, profile: profile, notifications: notifications, seed: seed, cells: nil, app: app, push: push, fetch: fetch)
    guard snapshot.hasApp == (app != nil) else {
      throw SnapshotError(.settingsDiffer(snapshot.hasApp ? "setting: it had an app, none is given" : "setting: it had no app, one is given"))
    }
    monitor = try RegionMonitor(restoring: snapshot.monitor, regions: regions, profile: profile, notifications: notifications, seed: seed)
    switch (snapshot.cells, cells) {
    case (nil, nil): break
    case (let saved?, let configuration?): self.cells = try CellTimeline(restoring: saved, configuration)
    default: throw SnapshotError(.settingsDiffer(snapshot.cells == nil ? "setting: it followed no cells" : "setting: it followed cells"))
    }
    for (field, time) in [("firstTime", snapshot.firstTime), ("lastTime", snapshot.lastTime), ("clock", snapshot.clock)] {
      if let time, !time.isFinite { throw SnapshotError(.invalidField(field, "not finite")) }
    }
    guard (snapshot.firstTime == nil) == (snapshot.lastTime == nil) else {
      throw SnapshotError(.invalidField("firstTime", "given without lastTime, or the other way round"))
    }
    guard snapshot.order.isConsistent else { throw SnapshotError(.invalidField("order", "not a heap of events in time order")) }
    guard snapshot.places.isConsistent else { throw SnapshotError(.invalidField("places", "not in time order")) }
    activity = snapshot.activity
    firstTime = snapshot.firstTime
    lastTime = snapshot.lastTime
    clock = snapshot.clock ?? -.infinity
    order = snapshot.order
    places = snapshot.places
    if let saved = snapshot.device, let app {
      try startDevice(at: saved.start)
      guard let configuration = device?.configuration else { return }
      device = try Device(restoring: saved, configuration, pushes: app.pushes ?? [], launches: app.launches ?? [])
    }
  }
}

extension DeviceTimeline {
  /// A timeline in the state of `snapshot`, over the platform and settings it was saved with.
  /// - Throws: as ``init(restoring:regions:profile:notifications:seed:cells:app:push:fetch:)``.
  public init(
    restoring snapshot: Snapshot, regions: RegionSet, platform: Platform, notifications: [RegionIdentifier: RegionNotifications] = [:],
    seed: UInt64 = 0, cells: CellTimeline.Configuration? = nil, app: App? = nil
  ) throws {
    try self.init(
      restoring: snapshot, regions: regions, profile: platform.regionMonitoring, notifications: notifications, seed: seed, cells: cells,
      app: app.map { platform.adapting($0) }, push: platform.push, fetch: platform.fetch)
  }
}

extension PlaceTrail {
  /// Whether the places are in time order with finite times and the cursor within them.
  var isConsistent: Bool {
    places.allSatisfy { $0.time.isFinite } && zip(places, places.dropFirst()).allSatisfy { $0.time <= $1.time }
      && (places.isEmpty ? head == 0 : head < places.count) && head >= 0
  }
}
