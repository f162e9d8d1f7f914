import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing
import SeededRandom

/// Many devices over one shared region set under one platform: each device a timeline of its
/// own (``DeviceTimeline``), seeded from the fleet's seed and its name, so that a device's events
/// do not depend on which other devices share the run, nor on their order or partition.
///
/// ```swift
/// let fleet = Fleet(regions: fences, platform: .server, seed: 7)
/// let tracks = Fleet.tracks(of: fixes.map { (device: "van-1", fix: $0) })
/// let counts = try await fleet.run(tracks, jobs: 4) { device, events, timeline in events.count }
/// ```
///
/// A device's fixes are a file's, not a stream's: when some come earlier than the one before,
/// they are put in time order (stably) before the device's timeline sees them, and the run says
/// how many moved (``Track/moved``).
public struct Fleet: Sendable {
  public var regions: RegionSet
  public var platform: Platform
  public var notifications: [RegionIdentifier: RegionNotifications]
  public var seed: UInt64
  /// The cell model for every device (nil: none), and for devices whose tracks name their cells.
  public var cells: CellTimeline.Configuration?
  public var cellsFromTrack: CellTimeline.Configuration?
  public var app: DeviceTimeline.App?

  public init(
    regions: RegionSet, platform: Platform, notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0,
    cells: CellTimeline.Configuration? = nil, cellsFromTrack: CellTimeline.Configuration? = nil, app: DeviceTimeline.App? = nil
  ) {
    self.regions = regions
    self.platform = platform
    self.notifications = notifications
    self.seed = seed
    self.cells = cells
    self.cellsFromTrack = cellsFromTrack
    self.app = app
  }

  /// The seed of `device`'s draws in a fleet seeded with `seed`: a stable hash of both (the same
  /// on every platform and in every run).
  public static func seed(_ seed: UInt64, device: String) -> UInt64 {
    var hash = StableHash()
    hash.combine(seed)
    hash.combine(device)
    return hash.finalized
  }

  /// A new timeline for `device`, its seed drawn from the fleet's; `namesCells`: its track names
  /// its serving cells.
  /// - Throws: as ``DeviceTimeline/init(regions:platform:notifications:seed:cells:app:)``.
  public func timeline(for device: String, namesCells: Bool = false) throws -> DeviceTimeline {
    try DeviceTimeline(
      regions: regions, platform: platform, notifications: notifications, seed: Self.seed(seed, device: device),
      cells: namesCells ? (cellsFromTrack ?? cells) : cells, app: app)
  }

  /// One device's fixes, with the serving cell each names when its track names cells.
  public struct Track: Sendable {
    public var device: String
    public var fixes: [LocationFix]
    public var cells: [CellIdentity?]?
    /// How many fixes ``ordered()`` moved to put them in time order.
    public internal(set) var moved = 0

    public init(device: String, fixes: [LocationFix], cells: [CellIdentity?]? = nil) {
      self.device = device
      self.fixes = fixes
      self.cells = cells
    }

    /// The track in time order: stably sorted (fixes at one time keep their order) when some
    /// fix is earlier than the one before; ``moved`` counts the fixes not in their place before.
    public func ordered() -> Track {
      let times = fixes.map(\.time)
      guard times.indices.dropFirst().contains(where: { times[$0] < times[$0 - 1] }) else { return self }
      // A fix whose time is not finite goes last, where the timeline rejects it.
      let order = times.indices.sorted { a, b in
        let (x, y) = (times[a].isFinite ? times[a] : .infinity, times[b].isFinite ? times[b] : .infinity)
        return (x, a) < (y, b)
      }
      var sorted = self
      sorted.fixes = order.map { fixes[$0] }
      sorted.cells = cells.map { c in order.map { c[$0] } }
      sorted.moved = zip(order, order.indices).count { $0 != $1 }
      return sorted
    }
  }

  /// Fixes of many devices, in any interleaving, cut into one track per device, the devices in
  /// the order of their first fixes and each device's fixes in the order given.
  public static func tracks(of fixes: some Sequence<(device: String, fix: LocationFix)>) -> [Track] {
    var tracks: [Track] = []
    var index: [String: Int] = [:]
    for (device, fix) in fixes {
      if let k = index[device] {
        tracks[k].fixes.append(fix)
      } else {
        index[device] = tracks.count
        tracks.append(Track(device: device, fixes: [fix]))
      }
    }
    return tracks
  }

  /// Runs every track on up to `jobs` tasks (each device on its own timeline, its fixes put in
  /// time order) and returns what `report` makes of each, in the order of the tracks.
  /// - Parameter report: given the device, its events in time order and its finished timeline
  ///   (its summary, its monitor) — on the device's own task.
  /// - Throws: the first device whose timeline cannot be made or finished, with its name
  ///   (``DeviceError``).
  public func run<Output: Sendable>(
    _ tracks: [Track], jobs: Int,
    report: @escaping @Sendable (_ track: Track, _ events: [TimelineEvent], _ timeline: DeviceTimeline) -> Output
  ) async throws -> [Output] {
    var inputs = tracks.makeIterator()
    var outputs: [Result<Output, DeviceError>] = []
    outputs.reserveCapacity(tracks.count)
    let fleet = self
    try await OrderedParallelMap.run(inputs: &inputs, jobs: jobs) { (track: Track) -> Result<Output, DeviceError> in
      let ordered = track.ordered()
      do {
        var timeline = try fleet.timeline(for: ordered.device, namesCells: ordered.cells != nil)
        var events: [TimelineEvent] = []
        for (k, fix) in ordered.fixes.enumerated() { timeline.process(fix, reportedCell: ordered.cells?[k], into: &events) }
        try timeline.finish(into: &events)
        return .success(report(ordered, events, timeline))
      } catch {
        return .failure(DeviceError(device: ordered.device, description: "\(error)"))
      }
    } emit: { outputs.append($0) }
    return try outputs.map { try $0.get() }
  }

  /// A device that could not be run, and why.
  public struct DeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    public var device: String
    public var description: String
  }
}
