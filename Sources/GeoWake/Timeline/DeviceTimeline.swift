public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// Everything a backgrounded app on one device would live through along a track: region
/// monitoring, the serving cell and significant location changes, a provider's pushes, background
/// fetch against the user's launches, and the app's wakes, budgets and terminations — the whole
/// of `geowake analyze`, as a library.
///
/// ```swift
/// var timeline = try DeviceTimeline(regions: fences, profile: .ios, app: .init(scenario: scenario))
/// var events: [TimelineEvent] = []
/// for fix in fixes { timeline.process(fix, into: &events) }
/// try timeline.finish(into: &events)
/// let summary = timeline.summary
/// ```
///
/// **Order.** ``process(_:reportedCell:into:)`` appends the location events a fix causes: region
/// events, then cell changes and significant changes. ``finish(into:)`` appends the rest: region
/// events still held, the fetch timeline (over the span of the fixes used), the pushes in the
/// order they were sent, and the app's steps in time order. Deterministic for the same inputs
/// and seeds.
public struct DeviceTimeline {
  /// The app woken by the timeline's events, and what it is sent and used for.
  public struct App: Sendable {
    public var scenario: AppScenario
    /// A provider's push requests; delivered content-available pushes wake the app.
    public var pushes: [ProviderRequest]?
    /// The user's launches, for background fetch; earlier launches are history.
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
    public var pushes: PushSimulation.Run?
    public var app: RuntimeSummary?
    /// The app's scenario, when there is an app.
    public var appScenario: AppScenario?
  }

  public internal(set) var monitor: RegionMonitor
  public internal(set) var cells: CellTimeline?
  public let app: App?
  private var runtime: AppRuntime?
  private var pushRun: PushSimulation.Run?
  var activity = RegionActivity()
  var firstTime: Double?
  var lastTime: Double?
  private var fetchSummary: FetchSummary?
  var finished = false
  /// Where the device was, about every minute (for pushes and fetches), kept only when needed.
  var places: [(time: Double, coordinate: Coordinate)] = []
  let keepsPlaces: Bool
  /// The location events that wake the app (delivered region events and significant changes),
  /// handed to the app's runtime at ``finish(into:)``.
  var wakes: [Wake] = []
  private var regionEvents: [RegionEvent] = []
  private var delivered: [SignificantChangeEvent] = []

  /// A timeline over a shared region set.
  /// - Parameters:
  ///   - notifications: per region, which transitions the app wants (default: all).
  ///   - seed: seeds the region events' delivery latencies.
  ///   - cells: the serving-cell model, if the timeline should follow cells.
  ///   - app: the app the events wake, if any.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` for an invalid profile, ``CellLayoutError``
  ///   for a cell layout that cannot be built.
  public init(
    regions: RegionSet, profile: RegionMonitoringProfile, notifications: [RegionIdentifier: RegionNotifications] = [:],
    seed: UInt64 = 0, cells: CellTimeline.Configuration? = nil, app: App? = nil
  ) throws {
    monitor = try RegionMonitor(regions: regions, profile: profile, notifications: notifications, seed: seed)
    self.cells = try cells.map { configuration throws(CellLayoutError) in try CellTimeline(configuration) }
    self.app = app
    keepsPlaces = app?.pushes != nil || app?.launches != nil
    guard let app else { return }
    runtime = app.scenario.makeRuntime()
    if let pushes = app.pushes {
      // APNs and the device decide delivery; the delivered content-available pushes wake the app.
      var device = PushDevice(scenario: app.scenario)
      device.conditions = app.conditions
      // The documented region profiles go with the silent-push budget read from Apple's
      // documentation, the others with the one phones were seen to keep.
      let pushProfile = profile.name.hasSuffix("-documented") ? PushProfile.iosDocumented : .ios
      let run = PushSimulation(requests: pushes, device: device, profile: pushProfile).run()
      for o in run.outcomes {
        guard o.wakesApp, let delivered = o.deliveredAt, o.app != .notWoken else { continue }
        runtime?.schedule(SystemEvent(time: delivered, kind: .remoteNotification, label: o.apnsID ?? "push"))
      }
      pushRun = run
    }
  }

  /// Takes the next fix and appends the location events it causes.
  /// - Parameter reportedCell: the serving cell the track names at this fix, if it does.
  /// - Returns: why region monitoring rejected the fix, or `nil` when it used it (or holds it for
  ///   reordering).
  @discardableResult
  public mutating func process(
    _ fix: LocationFix, reportedCell: CellIdentity? = nil, into events: inout [TimelineEvent]
  ) -> FixRejection? {
    regionEvents.removeAll(keepingCapacity: true)
    let rejection = monitor.process(fix, into: &regionEvents)
    if rejection == nil {
      firstTime = min(firstTime ?? fix.time, fix.time)
      lastTime = max(lastTime ?? fix.time, fix.time)
      if keepsPlaces, fix.time >= (places.last?.time ?? -.infinity) + 60 { places.append((fix.time, fix.coordinate)) }
    }
    if !regionEvents.isEmpty {
      // Moved out of self while `append` (mutating) reads them: passing the stored array would
      // copy it. Most fixes have no event, and skip this.
      var batch: [RegionEvent] = []
      swap(&batch, &regionEvents)
      append(batch, to: &events)
      swap(&batch, &regionEvents)
    }
    if cells != nil {
      delivered.removeAll(keepingCapacity: true)
      cells?.process(fix, reportedCell: reportedCell, into: &events, delivered: &delivered)
      if runtime != nil {
        for event in delivered { wakes.append(Wake(time: event.time, coordinate: event.location.coordinate, label: "significant change")) }
      }
    }
    return rejection
  }

  /// Ends the track: appends the region events still held, then the fetch timeline, the pushes
  /// and the app's steps. A second call appends nothing.
  /// - Throws: ``ContentFeed/InvalidSchedule`` when the default feed cannot cover the span.
  public mutating func finish(into events: inout [TimelineEvent]) throws {
    guard !finished else { return }
    finished = true
    regionEvents.removeAll(keepingCapacity: true)
    monitor.finish(into: &regionEvents)
    append(regionEvents, to: &events)
    activity.finish(at: lastTime ?? 0)
    for wake in wakes { runtime?.schedule(SystemEvent(time: wake.time, kind: .location, label: wake.label)) }
    if let app, let launches = app.launches, let firstTime, let lastTime, lastTime > firstTime {
      let window = firstTime..<lastTime
      var feed: ContentFeed
      if let given = app.feed {
        feed = given
      } else {
        let start = min(launches.first?.time ?? window.lowerBound, window.lowerBound)
        feed = try .daytimeNews(
          from: start, days: Int(((window.upperBound - start) / LocalTime.secondsPerDay).rounded(.up)) + 1,
          utcOffset: launches.last?.utcOffset ?? 0)
      }
      let run = FetchSimulation(scenario: app.scenario, launches: launches, window: window, feed: feed, conditions: app.conditions)
        .run(.system)
      var at = Placer(places)
      for e in run.events {
        events.append(.fetch(e, at: at.place(at: e.time)))
        if e.kind == .fetchRequested { runtime?.schedule(SystemEvent(time: e.time, kind: .fetch, label: "background fetch")) }
      }
      for l in launches where l.time >= firstTime && l.time < lastTime {
        runtime?.schedule(SystemEvent(time: l.time, kind: .userSession(duration: l.duration), label: "launch"))
      }
      fetchSummary = run.summary
    }
    if let pushRun {
      var at = Placer(places)
      for o in pushRun.outcomes.sorted(by: { ($0.time, $0.request) < ($1.time, $1.request) }) {
        events.append(.push(o, at: at.place(at: o.time)))
      }
    }
    if runtime != nil {
      var steps: [RuntimeEvent] = []
      runtime?.run(into: &steps)
      var wakePlaces = wakes.map { (time: $0.time, coordinate: $0.coordinate) }
      wakePlaces.sort { $0.time < $1.time }
      var at = Placer(wakePlaces)
      for step in steps { events.append(.app(step, at: at.place(at: step.time))) }
    }
  }

  /// The totals so far (complete after ``finish(into:)``).
  public var summary: Summary {
    Summary(
      monitor: monitor, activity: activity, span: firstTime.flatMap { first in lastTime.map { first...$0 } }, cells: cells,
      fetch: fetchSummary, pushes: pushRun, app: runtime?.summary, appScenario: app?.scenario)
  }

  private mutating func append(_ regionEvents: [RegionEvent], to events: inout [TimelineEvent]) {
    for e in regionEvents {
      activity.add(e)
      if runtime != nil, let delivered = e.deliveredAt {
        wakes.append(Wake(time: delivered, coordinate: e.coordinate, label: "\(e.kind.rawValue) \(e.region.rawValue)"))
      }
      events.append(.region(e))
    }
  }
}

/// A location event that wakes the app: when it is delivered, where the device was, what it is.
struct Wake: Codable, Sendable, Hashable {
  var time: Double
  var coordinate: Coordinate
  var label: String
}

/// Where the device was at a time, for times asked in increasing order: one pass over the places.
private struct Placer {
  let places: [(time: Double, coordinate: Coordinate)]
  var next = 0
  var current: Coordinate

  init(_ places: [(time: Double, coordinate: Coordinate)]) {
    self.places = places
    current = places.first?.coordinate ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
  }

  mutating func place(at time: Double) -> Coordinate {
    while next < places.count && places[next].time <= time {
      current = places[next].coordinate
      next += 1
    }
    return current
  }
}
