import SeededRandom

/// The device, its app and its user, for a push simulation.
public struct PushDevice: Hashable, Sendable {
  /// `offline` and `lowPowerMode` intervals matter here.
  public var conditions: DeviceConditions
  public var configuration: AppConfiguration
  /// The app's remote-notification handler.
  public var handler: HandlerBehaviour
  public var runtimeProfile: RuntimeProfile
  public var seed: UInt64
  /// Foreground sessions (opening the app ends a force-quit) and force-quits.
  public var sessions: [(start: Double, duration: Double)]
  public var forceQuits: [Double]
  /// The device's token and the app's bundle ID (nil: taken from the first well-formed request),
  /// and when the app was removed (requests after it: 410 Unregistered).
  public var deviceToken: String?
  public var topic: String?
  public var uninstalledAt: Double?

  public init(
    conditions: DeviceConditions = DeviceConditions(),
    configuration: AppConfiguration = AppConfiguration(backgroundModes: [.remoteNotification]),
    handler: HandlerBehaviour = HandlerBehaviour(work: 2), runtimeProfile: RuntimeProfile = .ios, seed: UInt64 = 0,
    sessions: [(start: Double, duration: Double)] = [], forceQuits: [Double] = [], deviceToken: String? = nil, topic: String? = nil,
    uninstalledAt: Double? = nil
  ) {
    self.conditions = conditions
    self.configuration = configuration
    self.handler = handler
    self.runtimeProfile = runtimeProfile
    self.seed = seed
    self.sessions = sessions
    self.forceQuits = forceQuits
    self.deviceToken = deviceToken
    self.topic = topic
    self.uninstalledAt = uninstalledAt
  }

  /// The device of an app scenario: its background modes, remote-notification handler (returns at
  /// once when it has none), runtime profile, seed, sessions and force-quits.
  public init(scenario: AppScenario, conditions: DeviceConditions = DeviceConditions(), deviceToken: String? = nil, topic: String? = nil) {
    self.init(
      conditions: conditions, configuration: scenario.configuration, handler: scenario.behaviours[.remoteNotification] ?? .instant,
      runtimeProfile: scenario.profile, seed: scenario.seed, sessions: scenario.sessions, forceQuits: scenario.forceQuits,
      deviceToken: deviceToken, topic: topic)
  }

  public static func == (a: PushDevice, b: PushDevice) -> Bool {
    a.conditions == b.conditions && a.configuration == b.configuration && a.handler == b.handler && a.runtimeProfile == b.runtimeProfile
      && a.seed == b.seed && a.sessions.map(\.start) == b.sessions.map(\.start) && a.sessions.map(\.duration) == b.sessions.map(\.duration)
      && a.forceQuits == b.forceQuits && a.deviceToken == b.deviceToken && a.topic == b.topic && a.uninstalledAt == b.uninstalledAt
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(conditions)
    hasher.combine(seed)
    hasher.combine(forceQuits)
  }
}

/// APNs and one device on a virtual clock, for a provider's schedule (docs/platform-rules.md,
/// remote and silent notifications): a ``Device`` with only pushes, its life from the first input
/// to ``runsPast`` seconds after the last request. Every provider request is validated, then
/// delivered, stored, coalesced, rate limited, held, piggybacked or dropped; delivered
/// content-available pushes wake the app through the device's ``AppRuntime`` (30 s handler
/// deadline).
///
/// **APNs.** While the device is offline, APNs keeps only the newest notification for the app
/// (an older one with the same collapse ID is `coalesced`, any other `dropped`) until its
/// expiration (`apns-expiration` 0: one attempt, never stored; absent:
/// ``PushProfile/defaultStorage``), and delivers it when the device is back.
///
/// **Device.** Priority 10 is delivered at once and wakes the radio: the held silent push rides
/// along (`piggybacked`), and deferred notifications go with it. Priority 5 waits while Low Power
/// Mode is on (until it ends or a priority-10 notification comes); priority 1 waits for a wake (a
/// priority-10 notification or a keep-alive). Silent pushes spend the budget (a token bucket:
/// ``PushProfile/silentPushBurst``, one more every ``PushProfile/silentPushInterval`` divided by the
/// app's track-record score; or a sliding window); past it the device holds only the newest one
/// (an older held one is `dropped`) and releases it at a keep-alive when the budget allows, or
/// with a priority-10 notification. A force-quit discards the held push, and the app is not
/// launched in the background until the user opens it again. Without the `remote-notification`
/// background mode, content-available pushes do not wake the app.
///
/// **App.** The handler's result feeds the device's ``FetchTrackRecord`` (the same as fetch):
/// failing, slow and terminated handlers stretch the silent budget.
///
/// What is still waiting at the end is `held`; handlers still running are followed to their end.
public struct PushSimulation: Sendable {
  public var profile: PushProfile
  public var fetchProfile: FetchProfile
  public var device: PushDevice
  public var requests: [ProviderRequest]
  /// Whether APNs requires provider tokens (`authorization: bearer <JWT>`) from this provider.
  public var requiresProviderToken: Bool

  /// Seconds simulated after the last request.
  public static let runsPast = 3_600.0

  public init(
    requests: [ProviderRequest], device: PushDevice = PushDevice(), profile: PushProfile = .ios, fetchProfile: FetchProfile = .ios,
    requiresProviderToken: Bool = false
  ) {
    self.requiresProviderToken = requiresProviderToken
    self.requests = requests
    self.device = device
    self.profile = profile
    self.fetchProfile = fetchProfile
  }

  public struct Run: Sendable {
    /// One per request, in schedule order (each request's steps folded).
    public var outcomes: [PushOutcome]
    /// The app's steps (wakes, handlers, terminations).
    public var runtimeEvents: [RuntimeEvent]
    /// Everything the device did, in time order: the requests' steps and the app's.
    public var timeline: [DeviceEvent]
    public var trackRecord: FetchTrackRecord
    public var runtimeSummary: RuntimeSummary
    public var tally: PushTally
    /// The profile the run used.
    public var profile: PushProfile
  }

  /// The device these requests are sent to.
  public var configuration: Device.Configuration {
    let scenario = AppScenario(
      profile: device.runtimeProfile, seed: device.seed, behaviours: [.remoteNotification: device.handler], sessions: device.sessions,
      forceQuits: device.forceQuits, configuration: device.configuration)
    return Device.Configuration(
      scenario: scenario, push: profile, fetch: fetchProfile, conditions: device.conditions,
      identity: Device.PushIdentity(
        deviceToken: device.deviceToken, topic: device.topic, uninstalledAt: device.uninstalledAt,
        requiresProviderToken: requiresProviderToken))
  }

  public func run() -> Run {
    let times = requests.map(\.time)
    guard let first = times.min(), let last = times.max() else {
      return Run(
        outcomes: [], runtimeEvents: [], timeline: [], trackRecord: FetchTrackRecord(profile: fetchProfile),
        runtimeSummary: RuntimeSummary(), tally: PushTally(), profile: profile)
    }
    // The device lives from its first input on: the user's sessions and force-quits, and the
    // conditions, before the first request count too.
    let start = ([first] + device.sessions.map(\.start) + device.forceQuits + device.conditions.intervals.map(\.start)).min() ?? first
    var phone = Device(configuration, start: start, pushes: requests)
    var timeline: [DeviceEvent] = []
    phone.finish(at: last + Self.runsPast, into: &timeline)
    let steps = timeline.lazy.compactMap { if case .push(let p) = $0 { p } else { nil } }
    return Run(
      outcomes: PushOutcome.fold(steps), runtimeEvents: timeline.compactMap { if case .app(let r) = $0 { r } else { nil } },
      timeline: timeline, trackRecord: phone.trackRecord, runtimeSummary: phone.runtimeSummary, tally: phone.pushTally,
      profile: profile)
  }
}
