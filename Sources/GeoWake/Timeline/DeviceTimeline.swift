public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// Everything a backgrounded app on one device would live through along a track: region
/// monitoring, the serving cell and significant location changes, a provider's pushes, background
/// fetch against the user's launches, and the app's wakes, budgets and terminations, on one
/// clock — the whole of `geowake analyze`, as a library.
///
/// ```swift
/// var timeline = try DeviceTimeline(regions: fences, platform: .ios, app: .init(scenario: scenario))
/// var events: [TimelineEvent] = []
/// for fix in fixes { timeline.process(fix, into: &events) }
/// try timeline.finish(into: &events)
/// let summary = timeline.summary
/// ```
///
/// **One device.** Region events and significant changes the app is told of wake the device's
/// app (a ``Device``) when they are delivered; the same app gets the pushes and the fetches, so
/// a termination, a force-quit or a long handler changes what every later event finds.
///
/// **Order.** Events come out in time order (``TimelineEvent/time``: a region event's delivery,
/// or the platform's decision when the app is not told), as the track streams: ``process(_:reportedCell:into:)``
/// and ``advance(to:into:)`` append every event that nothing still to come can precede — those
/// before the clock (the newest fix's time, or the time advanced to) less the profile's reorder
/// window, and before a handoff still pending — and ``finish(into:)`` appends the rest. At one
/// instant events keep the order they were made in. Deterministic for the same inputs and seeds,
/// however the fixes are cut between calls.
public struct DeviceTimeline {
  /// The app woken by the timeline's events, and what it is sent and used for.
  public struct App: Sendable {
    public var scenario: AppScenario
    /// A provider's push requests; delivered content-available pushes wake the app.
    public var pushes: [ProviderRequest]?
    /// The user's launches, for background fetch; those before the device's start are history.
    public var launches: [UserLaunch]?
    /// Publication times for the fetch timeline; `nil`: news every 30 minutes, 06:00–22:00 at the
    /// launches' UTC offset.
    public var feed: ContentFeed?
    /// Offline periods, Low Power Mode, Background App Refresh off.
    public var conditions: DeviceConditions

    public init(
      scenario: AppScenario, pushes: [ProviderRequest]? = nil, launches: [UserLaunch]? = nil, feed: ContentFeed? = nil,
      conditions: DeviceConditions = DeviceConditions()
    ) {
      self.scenario = scenario
      self.pushes = pushes
      self.launches = launches
      self.feed = feed
      self.conditions = conditions
    }
  }

  /// The totals of a timeline: what the summary of `geowake analyze` reports.
  public struct Summary {
    /// The region monitor at the end (fixes used and rejected, regions monitored and refused,
    /// suppressed flaps).
    public var monitor: RegionMonitor
    /// Events and time inside, per region.
    public var activity: RegionActivity
    /// The times of the first and last fixes used.
    public var span: ClosedRange<Double>?
    public var cells: CellTimeline?
    public var fetch: FetchSummary?
    /// The pushes' totals, with the rules they ran under, when the app has pushes.
    public var pushes: PushTally?
    public var pushProfile: PushProfile?
    /// The app's one track record (fetch and push handlers' results).
    public var trackRecord: FetchTrackRecord?
    public var app: RuntimeSummary?
    /// The app's scenario, when there is an app.
    public var appScenario: AppScenario?
  }

  public internal(set) var monitor: RegionMonitor
  public internal(set) var cells: CellTimeline?
  public let app: App?
  let pushProfile: PushProfile
  let fetchProfile: FetchProfile
  /// Whether the device's power management needs to know when it moves (Android's Doze).
  let tracksMotion: Bool
  /// The region profile's reorder window (read once: the profile is a large value).
  let reorderWindow: Double
  /// The app's device, from the first fix (or the first push or session, when earlier) on.
  var device: Device?
  var activity = RegionActivity()
  var firstTime: Double?
  var lastTime: Double?
  var finished = false
  /// The clock: the newest fix's time, or the time advanced to.
  var clock = -Double.infinity
  /// Events made and not yet appended, in the order they will be.
  var order = TimelineOrder()
  /// Where the device was, from the fix at or before the last device event placed on.
  var places = PlaceTrail()
  private var regionEvents: [RegionEvent] = []
  private var cellEvents: [TimelineEvent] = []
  private var delivered: [SignificantChangeEvent] = []
  private var deviceEvents: [DeviceEvent] = []

  /// A timeline over a shared region set.
  /// - Parameters:
  ///   - notifications: per region, which transitions the app wants (default: all).
  ///   - seed: seeds the region events' delivery latencies.
  ///   - cells: the serving-cell model, if the timeline should follow cells.
  ///   - app: the app the events wake, if any.
  ///   - push, fetch: the platform's push and fetch rules for the app.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` for an invalid profile, ``CellLayoutError``
  ///   for a cell layout that cannot be built.
  public init(
    regions: RegionSet, profile: RegionMonitoringProfile, notifications: [RegionIdentifier: RegionNotifications] = [:],
    seed: UInt64 = 0, cells: CellTimeline.Configuration? = nil, app: App? = nil, push: PushProfile = .ios, fetch: FetchProfile = .ios
  ) throws {
    monitor = try RegionMonitor(regions: regions, profile: profile, notifications: notifications, seed: seed)
    self.cells = try cells.map { configuration throws(CellLayoutError) in try CellTimeline(configuration) }
    self.app = app
    pushProfile = push
    fetchProfile = fetch
    tracksMotion = app?.scenario.profile.power != nil
    reorderWindow = profile.reorderWindow
  }

  /// A timeline under every rule of `platform`: its region monitoring, its pushes and fetches,
  /// and its app runtime for the app (``Platform/adapting(_:)``).
  /// - Throws: as ``init(regions:profile:notifications:seed:cells:app:push:fetch:)``.
  public init(
    regions: RegionSet, platform: Platform, notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0,
    cells: CellTimeline.Configuration? = nil, app: App? = nil
  ) throws {
    try self.init(
      regions: regions, profile: platform.regionMonitoring, notifications: notifications, seed: seed, cells: cells,
      app: app.map { platform.adapting($0) }, push: platform.push, fetch: platform.fetch)
  }

  /// Takes the next fix and appends the events that are now certain to come first.
  /// - Parameter reportedCell: the serving cell the track names at this fix, if it does.
  /// - Returns: why region monitoring rejected the fix, or `nil` when it used it (or holds it for
  ///   reordering).
  @discardableResult
  public mutating func process(
    _ fix: LocationFix, reportedCell: CellIdentity? = nil, into events: inout [TimelineEvent]
  ) -> FixRejection? {
    regionEvents.removeAll(keepingCapacity: true)
    let rejection = monitor.process(fix, into: &regionEvents)
    let inWindow = fix.time >= clock - reorderWindow
    if rejection == nil {
      firstTime = min(firstTime ?? fix.time, fix.time)
      lastTime = max(lastTime ?? fix.time, fix.time)
      if app != nil {
        if device == nil { startDevice(firstFix: fix.time) }
        if tracksMotion, let last = places.last, fix.time > last.time,
          Self.planarDistance(last.coordinate, fix.coordinate) > (app?.scenario.profile.power?.motionSpeed ?? 0) * (fix.time - last.time)
        {
          device?.noteMotion(at: fix.time)
        }
        places.add(fix)
      }
    }
    if fix.time.isFinite { clock = max(clock, fix.time) }
    if !regionEvents.isEmpty {
      // Moved out of self while `add` (mutating) reads them: passing the stored array would copy
      // it. Most fixes have no event, and skip this.
      var batch: [RegionEvent] = []
      swap(&batch, &regionEvents)
      add(batch)
      swap(&batch, &regionEvents)
    }
    // A fix older than the clock less the reorder window is too late for every model: the cell
    // model too could not date what it shows in time order.
    if cells != nil && inWindow {
      cellEvents.removeAll(keepingCapacity: true)
      delivered.removeAll(keepingCapacity: true)
      cells?.process(fix, reportedCell: reportedCell, into: &cellEvents, delivered: &delivered)
      if !cellEvents.isEmpty { addCellEvents() }
    }
    release(into: &events)
    return rejection
  }

  /// Moves the clock to `time` without a fix (a server's wall clock): what the region monitor
  /// holds for reordering, dwells that are due, and the app's steps up to the new clock less the
  /// reorder window come out. A fix later arriving with a time more than the reorder window
  /// before `time` is rejected as out of order.
  /// - Returns: why the time was refused (not finite, or before a fix already used), or `nil`.
  @discardableResult
  public mutating func advance(to time: Double, into events: inout [TimelineEvent]) -> FixRejection? {
    guard !finished else { return nil }
    regionEvents.removeAll(keepingCapacity: true)
    if let refused = monitor.advance(to: time, into: &regionEvents) { return refused }
    clock = max(clock, time)
    if !regionEvents.isEmpty {
      var batch: [RegionEvent] = []
      swap(&batch, &regionEvents)
      add(batch)
      swap(&batch, &regionEvents)
    }
    release(into: &events)
    return nil
  }

  /// Ends the track: appends every event still to come — region events still held, the pushes
  /// still waiting, the app's work in progress to its end. A second call appends nothing.
  /// - Throws: ``ContentFeed/InvalidSchedule`` when the default feed cannot cover the span.
  public mutating func finish(into events: inout [TimelineEvent]) throws {
    guard !finished else { return }
    finished = true
    regionEvents.removeAll(keepingCapacity: true)
    monitor.finish(into: &regionEvents)
    add(regionEvents)
    activity.finish(at: lastTime ?? 0)
    if let app {
      if device == nil, let start = Self.deviceStart(app, firstFix: nil) { try startDevice(at: start) }
      if var device {
        let pushEnd = app.pushes.flatMap { $0.map(\.time).max() }.map { $0 + PushSimulation.runsPast } ?? -.infinity
        let end = max(lastTime ?? device.start, pushEnd, device.now)
        deviceEvents.removeAll(keepingCapacity: true)
        device.finish(at: end, fetchUntil: lastTime ?? device.start, into: &deviceEvents)
        self.device = device
        place(deviceEvents)
      }
    }
    order.release(before: .infinity, into: &events)
  }

  /// The events made and not yet appended, in the order they will be: those a fix still to come
  /// could precede (the reorder window) or a handoff still pending holds back. A server shows
  /// them as a device's pending events.
  public var pendingEvents: [TimelineEvent] {
    var copy = order
    var events: [TimelineEvent] = []
    copy.release(before: .infinity, into: &events)
    return events
  }

  /// The totals so far (complete after ``finish(into:)``).
  public var summary: Summary {
    let span = firstTime.flatMap { first in lastTime.map { first...$0 } }
    let days = span.map { ($0.upperBound - $0.lowerBound) / LocalTime.secondsPerDay } ?? 0
    return Summary(
      monitor: monitor, activity: activity, span: span, cells: cells, fetch: device?.fetchSummary(days: days),
      pushes: app?.pushes == nil ? nil : device?.pushTally ?? PushTally(), pushProfile: app?.pushes == nil ? nil : pushProfile,
      trackRecord: device?.trackRecord, app: app == nil ? nil : device?.runtimeSummary ?? RuntimeSummary(), appScenario: app?.scenario)
  }

  // MARK: - Order

  /// No event still to come can be earlier than this: the clock less the reorder window (a fix
  /// older than that is rejected), and a handoff still pending.
  var horizon: Double {
    // Read through the optional in place: a binding would copy the cell side for every fix.
    guard cells != nil else { return clock - reorderWindow }
    return min(clock - reorderWindow, cells?.tracker.earliestPendingChange ?? .infinity)
  }

  /// Runs the device to just before the horizon and appends what is released.
  mutating func release(into events: inout [TimelineEvent]) {
    let horizon = self.horizon
    if device != nil {
      deviceEvents.removeAll(keepingCapacity: true)
      device?.run(until: horizon.nextDown, into: &deviceEvents)
      if !deviceEvents.isEmpty { place(deviceEvents) }
      // The device's later events are no earlier than the horizon: older places are not needed.
      places.forget(before: horizon)
    }
    if let first = order.first, first < horizon { order.release(before: horizon, into: &events) }
  }

  mutating func add(_ regionEvents: [RegionEvent]) {
    for e in regionEvents {
      activity.add(e)
      if let delivered = e.deliveredAt, device != nil {
        device?.wake(forLocationAt: delivered, label: "\(e.kind.rawValue) \(e.region.rawValue)")
      }
      order.add(.region(e))
    }
  }

  private mutating func addCellEvents() {
    for e in cellEvents { order.add(e) }
    if device != nil {
      for s in delivered { device?.wake(forLocationAt: s.time, label: "significant change") }
    }
  }

  /// Adds the device's events, each where the device was then.
  private mutating func place(_ deviceEvents: [DeviceEvent]) {
    for e in deviceEvents {
      let at = places.coordinate(at: e.time)
      switch e {
      case .app(let r): order.add(.app(r, at: at))
      case .push(let p): order.add(.push(p, at: at))
      case .fetch(let f): order.add(.fetch(f, at: at))
      }
    }
  }

  /// Metres between two nearby positions on a sphere of the Earth's mean radius (equirectangular:
  /// for the metres between two fixes, within 0.5 % under a few kilometres; enough to tell a
  /// device moving at walking speed from a still one).
  static func planarDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
    let radians = Double.pi / 180
    let x = (b.longitude - a.longitude) * radians * Double.cos((a.latitude + b.latitude) / 2 * radians)
    let y = (b.latitude - a.latitude) * radians
    return 6_371_008.8 * (x * x + y * y).squareRoot()
  }

  // MARK: - The device

  /// When the app's device begins: the first fix, or the app's first push or session when
  /// earlier.
  static func deviceStart(_ app: App, firstFix: Double?) -> Double? {
    let times = [firstFix, app.pushes?.map(\.time).min(), app.scenario.sessions.map(\.start).min(), app.scenario.forceQuits.min()]
    return times.compactMap { $0 }.min()
  }

  /// Starts the app's device at the first fix used (or earlier, see ``deviceStart(_:firstFix:)``).
  private mutating func startDevice(firstFix: Double) {
    guard let app, let start = Self.deviceStart(app, firstFix: firstFix) else { return }
    // The default feed only fails for a start that is not finite, and a fix's time is finite.
    try? startDevice(at: start)
  }

  /// The app's device from `start` on, with its pushes, launches and fetches.
  /// - Throws: ``ContentFeed/InvalidSchedule`` when the default feed cannot be made.
  mutating func startDevice(at start: Double) throws {
    guard let app else { return }
    var fetching: Device.Fetching?
    if let launches = app.launches {
      var feed: ContentFeed
      if let given = app.feed {
        feed = given
      } else {
        let first = min(launches.map(\.time).min() ?? start, start)
        // A feed long enough for any track: the days from the first launch to the last fix are
        // not known yet, so the feed covers a year past the start (publications are cheap).
        let span = max(launches.map(\.time).max() ?? start, start) - first
        feed = try .daytimeNews(
          from: first, days: Int((span / LocalTime.secondsPerDay).rounded(.up)) + 367, utcOffset: launches.last?.utcOffset ?? 0)
      }
      fetching = Device.Fetching(feed: feed)
    }
    let configuration = Device.Configuration(
      scenario: app.scenario, push: pushProfile, fetch: fetchProfile, conditions: app.conditions, fetching: fetching)
    device = Device(configuration, start: start, pushes: app.pushes ?? [], launches: app.launches ?? [])
  }
}

/// Where a device was at a time, for times asked in increasing order: the fixes used, kept from
/// the one at or before the last time asked.
struct PlaceTrail: Sendable, Codable, Hashable {
  struct Place: Sendable, Codable, Hashable {
    var time: Double
    var coordinate: Coordinate
  }

  private(set) var places: [Place] = []
  private(set) var head = 0

  /// The last place added.
  var last: Place? { places.last }

  /// A fix used (one earlier than the last one added is passed over).
  mutating func add(_ fix: LocationFix) {
    if let last = places.last, fix.time < last.time { return }
    places.append(Place(time: fix.time, coordinate: fix.coordinate))
  }

  /// The position of the last fix at or before `time` (the first fix's before it).
  mutating func coordinate(at time: Double) -> Coordinate {
    forget(before: time)
    return head < places.count ? places[head].coordinate : Coordinate(uncheckedLatitude: 0, longitude: 0)
  }

  /// Keeps only what times from `time` on can ask for: the last place at or before it, and later.
  mutating func forget(before time: Double) {
    while head + 1 < places.count && places[head + 1].time <= time { head += 1 }
    if head > 1_024 && head * 2 > places.count {
      places.removeFirst(head)
      head = 0
    }
  }
}
