/// One phone with one app on one clock: location wakes, a provider's pushes (through APNs), the
/// system's background fetch and the user's launches and force-quits all reach the same app
/// runtime, as they happen, in one time-ordered loop; the app's handlers' results feed one track
/// record, which both the silent-push budget and the fetch scheduler read.
///
/// ```swift
/// let t0 = 1_714_550_400.0
/// let alert = ProviderRequest(
///   time: t0 + 600, token: String(repeating: "ab", count: 32), headers: [.init("apns-topic", "com.example.news")],
///   payload: Array(#"{"aps":{"alert":"news"}}"#.utf8))
/// var device = Device(Device.Configuration(scenario: scenario), start: t0, pushes: [alert])
/// var events: [DeviceEvent] = []
/// device.wake(forLocationAt: t0 + 60, label: "enter plaza")
/// device.run(until: t0 + 3_600, into: &events)   // everything up to then, in time order
/// device.finish(at: t0 + 7_200, into: &events)   // the rest, and work in progress to its end
/// ```
///
/// **One clock.** Every source — the app runtime's own deadlines, APNs' stored push expiring,
/// force-quits, launches, connectivity and Low Power Mode, keep-alives, pushes, fetch
/// opportunities — is asked when it next acts; the earliest acts, and what it does (a wake, a
/// termination, a force-quit) is what every later step finds. At one instant the runtime's steps
/// come first, then the sources in that order. Events come out in non-decreasing time order, and
/// how a run is cut into ``run(until:into:)`` calls never changes them.
///
/// **Inputs.** Pushes, launches, force-quits and conditions given at the start are taken as the
/// clock reaches them; pushes can also arrive live (``send(_:into:)``) and location events are
/// handed in as they are delivered (``wake(forLocationAt:label:)``). Launches before `start` are
/// the history the fetch scheduler learned from; the scenario's sessions and force-quits before
/// `start` are before the device's life and are left out.
///
/// Deterministic: the same configuration and inputs give the same events.
public struct Device: Sendable {
  /// Everything that is the same over a device's life.
  public struct Configuration: Sendable {
    /// The app and its user: the runtime profile, the handlers, the seed, the declared background
    /// modes and fetch policy, foreground sessions and force-quits.
    public var scenario: AppScenario
    /// The APNs and device rules for pushes, and the fetch scheduler's.
    public var push: PushProfile
    public var fetch: FetchProfile
    /// Offline periods, Low Power Mode, Background App Refresh off.
    public var conditions: DeviceConditions
    /// The device's token and the app's topic as APNs knows them.
    public var identity: PushIdentity
    /// Background fetch with its policy and the content it fetches; nil: the device's fetches are
    /// not simulated.
    public var fetching: Fetching?

    public init(
      scenario: AppScenario, push: PushProfile = .ios, fetch: FetchProfile = .ios, conditions: DeviceConditions = DeviceConditions(),
      identity: PushIdentity = PushIdentity(), fetching: Fetching? = nil
    ) {
      self.scenario = scenario
      self.push = push
      self.fetch = fetch
      self.conditions = conditions
      self.identity = identity
      self.fetching = fetching
    }
  }

  /// Who the device and the app are to APNs.
  public struct PushIdentity: Hashable, Sendable {
    /// The device's token and the app's bundle ID (nil: the first well-formed ones sent).
    public var deviceToken: String?
    public var topic: String?
    /// When the app was removed (requests after it: 410 Unregistered).
    public var uninstalledAt: Double?
    /// Whether requests must carry a provider token (`authorization: bearer <JWT>`).
    public var requiresProviderToken: Bool

    public init(deviceToken: String? = nil, topic: String? = nil, uninstalledAt: Double? = nil, requiresProviderToken: Bool = false) {
      self.deviceToken = deviceToken
      self.topic = topic
      self.uninstalledAt = uninstalledAt
      self.requiresProviderToken = requiresProviderToken
    }
  }

  /// Background fetch as simulated: who decides (the system's scheduler, or a baseline) and the
  /// publications whose staleness each launch measures.
  public struct Fetching: Sendable {
    public var strategy: FetchStrategy
    public var feed: ContentFeed

    public init(strategy: FetchStrategy = .system, feed: ContentFeed) {
      self.strategy = strategy
      self.feed = feed
    }
  }

  /// What every part of the device acts on: the one app runtime, the one track record, the
  /// events emitted so far.
  struct Core: Sendable {
    var runtime: AppRuntime
    var trackRecord: FetchTrackRecord
    /// What Doze and the standby buckets know of the device (Android).
    var power: PowerState
    var events: [DeviceEvent] = []
  }

  /// The sources of steps, in the order they act at one instant.
  enum Source: Int, Sendable {
    case runtime = 0, storedExpiry, forceQuit, deepSleep, launch, online, offline, lowPowerOn, lowPowerOff, keepAlive, dozeRelease, push, fetch
  }

  /// A connectivity or power change, from the conditions.
  struct Change: Sendable {
    var time: Double
    var source: Source
  }

  public let configuration: Configuration
  /// When the device's life began: nothing happens before.
  public let start: Double
  var core: Core
  var push: PushLane
  var fetch: FetchLane?
  /// The user's launches from `start` on (the scenario's sessions among them), in time order, and
  /// whether each came from the scenario (labelled "user session") or the usage ("launch").
  let launches: [UserLaunch]
  let launchIsSession: [Bool]
  var nextLaunch = 0
  let forceQuits: [Double]
  var nextForceQuit = 0
  let changes: [Change]
  var nextChange = 0
  /// The pushes given at the start, in time order (stable).
  let pushes: [ProviderRequest]
  var nextPush = 0
  /// Fetch decisions and launches measured only before this time (the end of the fetch window).
  var fetchUntil = Double.infinity
  var begun = false
  public internal(set) var finished = false
  /// The device's clock: the time of its last step, or the time it was run to.
  public internal(set) var now: Double
  /// Totals so far.
  public internal(set) var pushTally = PushTally()
  public internal(set) var fetchTally = FetchTally()

  /// A device whose life begins at `start`.
  /// - Parameters:
  ///   - pushes: provider requests sent to it (in any order; taken in time order).
  ///   - launches: the user's launches (time, duration, the clock's UTC offset); those before
  ///     `start` are the fetch scheduler's history.
  public init(_ configuration: Configuration, start: Double, pushes: [ProviderRequest] = [], launches: [UserLaunch] = []) {
    self.configuration = configuration
    self.start = start
    now = start
    let scenario = configuration.scenario
    var runtime = AppRuntime(profile: scenario.profile, behaviours: scenario.behaviours, seed: scenario.seed)
    runtime.advanceClock(to: start)
    push = PushLane(profile: configuration.push, scenario: scenario, identity: configuration.identity)

    // The user: the usage's launches and the scenario's sessions, in time order (stable).
    let given = launches.sorted { $0.time < $1.time }
    let offset = given.last?.utcOffset ?? 0
    var all = given.map { ($0, false) }
    all += scenario.sessions.map { (UserLaunch(time: $0.start, duration: $0.duration, utcOffset: offset), true) }
    all = all.enumerated().sorted { ($0.element.0.time, $0.offset) < ($1.element.0.time, $1.offset) }.map(\.element)
    let history = all.filter { $0.0.time < start && !$0.1 }.map(\.0)
    let lastUse = history.map { $0.time + $0.duration }.max()
    core = Core(
      runtime: runtime, trackRecord: FetchTrackRecord(profile: configuration.fetch),
      power: PowerState(rules: scenario.profile.power, start: start, lastUse: lastUse))
    let life = all.filter { $0.0.time >= start }
    self.launches = life.map(\.0)
    launchIsSession = life.map(\.1)
    forceQuits = scenario.forceQuits.filter { $0 >= start }.sorted()
    var changes: [Change] = []
    for i in configuration.conditions.intervals {
      switch i.condition {
      case .offline: changes += [Change(time: i.start, source: .offline), Change(time: i.end, source: .online)]
      case .lowPowerMode: changes += [Change(time: i.start, source: .lowPowerOn), Change(time: i.end, source: .lowPowerOff)]
      case .backgroundRefreshOff: break
      }
    }
    self.changes = changes.sorted { ($0.time, $0.source.rawValue) < ($1.time, $1.source.rawValue) }
    let times = pushes.map(\.time)
    self.pushes = times.indices.dropFirst().contains(where: { times[$0 - 1] > times[$0] })
      ? pushes.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element) : pushes
    if let fetching = configuration.fetching {
      fetch = FetchLane(
        strategy: fetching.strategy, feed: fetching.feed, conditions: configuration.conditions, scenario: scenario,
        profile: configuration.fetch, start: start, history: history, firstLaunch: self.launches.first)
    }
  }

  // MARK: - Inputs

  /// A location event (a region event or a significant change) reaches the app at `time`; no
  /// earlier than ``now`` (an earlier one is handled now).
  public mutating func wake(forLocationAt time: Double, label: String) {
    core.runtime.schedule(SystemEvent(time: max(time, now), kind: .location, label: label))
  }

  /// The device moved at `time` (a fix at walking speed or faster): Android's deep Doze needs a
  /// still device.
  public mutating func noteMotion(at time: Double) {
    core.power.motion(at: max(time, now))
  }

  /// A provider sends `request` now (its time; no earlier than ``now``): everything due before it
  /// happens first, then APNs answers. Returns the answer (``PushEvent/Kind/accepted`` or
  /// ``PushEvent/Kind/rejected``, with the status, reason and apns-id); what the device then does
  /// with it follows in `events`.
  @discardableResult
  public mutating func send(_ request: ProviderRequest, into events: inout [DeviceEvent]) -> PushEvent {
    var request = request
    request.time = max(request.time, now)
    run(until: request.time, into: &events)
    let answer = push.receive(request, &core)
    emit(into: &events)
    return answer
  }

  // MARK: - The clock

  /// Every step due at `time` or before, appended to `events` in time order.
  public mutating func run(until time: Double, into events: inout [DeviceEvent]) {
    guard !finished else { return }
    beginIfNeeded()
    while let (t, source) = nextSource(), t <= time {
      step(source, at: t)
      // A keep-alive with nothing deferred or held does nothing, nor do those after it until
      // another source acts: they are stepped over in one go, so that a schedule whose dates
      // lie years apart (a push dated 4036, say) is not walked thirty minutes at a time. (With
      // fetches simulated, whose decisions read the clock, each one is still stepped.)
      if source == .keepAlive, fetch == nil, push.keepAliveDoesNothing {
        let limit = min(nextSource(skippingKeepAlive: true)?.0 ?? .infinity, time)
        if limit.isFinite { push.skipKeepAlives(before: limit) }
      }
    }
    now = max(now, time)
    emit(into: &events)
  }

  /// Ends the device's life at `end` (no earlier than ``now``): every step up to then, the pushes
  /// still waiting as `held`, then the app's work in progress followed to its end (handlers and
  /// tasks running, location events still to be delivered). Fetch opportunities and launches
  /// are measured only before `fetchUntil` (default `end`). A second call appends nothing.
  public mutating func finish(at end: Double, fetchUntil: Double? = nil, into events: inout [DeviceEvent]) {
    guard !finished else { return }
    let end = max(end, now)
    self.fetchUntil = min(self.fetchUntil, fetchUntil ?? end)
    run(until: end, into: &events)
    push.finish(at: end, &core)
    while core.runtime.hasPendingEvents || core.runtime.state == .background || fetch?.inFlight != nil || !push.waking.isEmpty,
      let t = core.runtime.nextStepTime
    {
      runRuntime(until: t)
    }
    finished = true
    emit(into: &events)
  }

  /// The app runtime's totals (wakes, background time, terminations, sessions).
  public var runtimeSummary: RuntimeSummary { core.runtime.summary }
  /// The app's state now.
  public var appState: AppState { core.runtime.state }
  /// The one track record (fetch and push handlers' results).
  public var trackRecord: FetchTrackRecord { core.trackRecord }
  /// The fetch summary over `days` days, when fetches are simulated.
  public func fetchSummary(days: Double) -> FetchSummary? {
    configuration.fetching.map { fetchTally.summary(strategy: $0.strategy, days: days, runtime: core.runtime.summary) }
  }

  // MARK: - Steps

  private mutating func beginIfNeeded() {
    guard !begun else { return }
    begun = true
    fetch?.begin(&core)
  }

  /// The source that acts next and when: the earliest, and at one instant the first in
  /// ``Source`` order.
  private mutating func nextSource(skippingKeepAlive: Bool = false) -> (Double, Source)? {
    var best: (Double, Source)?
    func consider(_ time: Double?, _ source: Source) {
      guard let time, time.isFinite else { return }
      if let b = best, (b.0, b.1.rawValue) <= (time, source.rawValue) { return }
      best = (time, source)
    }
    consider(core.runtime.nextStepTime, .runtime)
    consider(push.storedExpiry, .storedExpiry)
    if nextForceQuit < forceQuits.count { consider(forceQuits[nextForceQuit], .forceQuit) }
    consider(deepSleepTime, .deepSleep)
    if nextLaunch < launches.count { consider(launches[nextLaunch].time, .launch) }
    if nextChange < changes.count { consider(changes[nextChange].time, changes[nextChange].source) }
    if !skippingKeepAlive { consider(push.nextKeepAlive, .keepAlive) }
    consider(push.dozeRelease(now: now, core), .dozeRelease)
    if nextPush < pushes.count { consider(pushes[nextPush].time, .push) }
    if fetch != nil, let t = fetch?.nextDecisionTime(upcoming: launches[nextLaunch...], core, clock: now), t < fetchUntil { consider(t, .fetch) }
    return best
  }

  /// When the vendor's battery manager stops the app (``AndroidPowerRules/deepSleepAfter`` after
  /// its last use, or the device's start); nil without one, or once the app is stopped.
  private var deepSleepTime: Double? {
    guard let after = core.power.rules?.deepSleepAfter, !core.runtime.forceQuit else { return nil }
    return max(now, (core.power.lastUse ?? core.power.start) + after)
  }

  private mutating func step(_ source: Source, at t: Double) {
    now = max(now, t)
    switch source {
    case .runtime: runRuntime(until: t)
    case .storedExpiry: push.expireStored(at: t, &core)
    case .forceQuit:
      nextForceQuit += 1
      core.runtime.schedule(SystemEvent(time: t, kind: .forceQuit))
      push.forceQuit(at: t, &core)
    case .deepSleep:
      let unused = core.power.rules?.deepSleepAfter ?? 0
      core.runtime.schedule(SystemEvent(time: t, kind: .deepSleep(unusedFor: unused)))
      push.forceQuit(at: t, bySystem: true, &core)
    case .launch:
      let l = launches[nextLaunch]
      let label = launchIsSession[nextLaunch] ? "user session" : "launch"
      nextLaunch += 1
      let measured = fetch != nil && t < fetchUntil
      if measured { fetch?.measure(l, &core) }
      core.power.session(at: t, duration: l.duration)
      core.runtime.schedule(SystemEvent(time: t, kind: .userSession(duration: l.duration), label: label))
      runRuntime(until: t)
      if measured { fetch?.learn(l, &core) }
    case .online, .offline, .lowPowerOn, .lowPowerOff:
      nextChange += 1
      switch source {
      case .online: push.goOnline(at: t, &core)
      case .offline: push.goOffline()
      case .lowPowerOn: push.lowPowerOn()
      default: push.lowPowerOff(at: t, &core)
      }
    case .keepAlive: push.keepAlive(at: t, &core)
    case .dozeRelease: push.releaseDozeHeld(at: t, &core)
    case .push:
      let request = pushes[nextPush]
      nextPush += 1
      push.receive(request, &core)
    case .fetch: fetch?.decide(at: t, &core)
    }
  }

  /// Runs the app's steps up to `t`; each step, then what the push and fetch sides make of it.
  private mutating func runRuntime(until t: Double) {
    var steps: [RuntimeEvent] = []
    core.runtime.run(until: t, into: &steps)
    for step in steps {
      core.events.append(.app(step))
      push.observe(step, &core)
      fetch?.observe(step, &core)
    }
  }

  /// Moves the events emitted so far to `events`, counting them.
  private mutating func emit(into events: inout [DeviceEvent]) {
    guard !core.events.isEmpty else { return }
    for e in core.events {
      switch e {
      case .push(let p): pushTally.add(p)
      case .fetch(let f): fetchTally.add(f)
      case .app: break
      }
    }
    events.append(contentsOf: core.events)
    core.events.removeAll(keepingCapacity: true)
  }
}
