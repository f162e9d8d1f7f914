import SeededRandom

/// The user opening the app: when, for how long, on which clock.
public struct UserLaunch: Hashable, Sendable, Codable {
  /// Seconds since the Unix epoch.
  public var time: Double
  /// Seconds on screen.
  public var duration: Double
  /// The device clock's offset from UTC (seconds, east positive) at the launch.
  public var utcOffset: Int

  public init(time: Double, duration: Double, utcOffset: Int = 0) {
    self.time = time
    self.duration = duration
    self.utcOffset = utcOffset
  }
}

/// Who decides when to fetch.
public enum FetchStrategy: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The system's ``FetchScheduler`` under the app's policy.
  case system
  /// A baseline: every `interval` seconds, all day, whatever the habits, from the first launch in
  /// the window on (an app-driven timer started when the user first opened the app, so its phase
  /// is not lined up with anything by construction).
  case fixed(interval: Double)
  /// A baseline that knows the future: one fetch `lead` seconds before each launch.
  case oracle(lead: Double)
  /// A blind timer: every `interval` seconds from `phase` seconds after the window's start, all
  /// day (the yardstick of what a number of fetches is worth when spread evenly).
  case evenly(interval: Double, phase: Double)

  public var description: String {
    switch self {
    case .system: return "scheduler"
    case .fixed(let interval):
      let s = Int(interval.rounded())
      return s % 3_600 == 0 ? "fixed \(s / 3_600) h" : s % 60 == 0 ? "fixed \(s / 60) min" : "fixed \(s) s"
    case .oracle: return "oracle"
    case .evenly(let interval, _): return "even every \(FetchEvent.duration(interval))"
    }
  }
}

/// One step of a fetch simulation, besides the app runtime's own steps.
public struct FetchEvent: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable {
    /// The app gets no fetch at all (policy or configuration).
    case fetchUnavailable
    /// The user opened the app: staleness measured.
    case launch
    /// The system passed over an opportunity.
    case fetchSkipped
    /// The system woke the app for a fetch.
    case fetchRequested
    /// The handler called completion.
    case fetchCompleted
    /// The handler overran its deadline: the app was terminated.
    case fetchTerminated
    /// The fetch never reached the app, or the user killed it (force-quit).
    case fetchLost
    /// The app submitted a BGAppRefreshTaskRequest.
    case taskSubmitted
  }

  public enum Facts: Hashable, Sendable, Codable {
    case diagnostic(String)
    case launch(staleness: Double, waiting: Int, snapshotAge: Double?)
    case decision(FetchDecision)
    case baseline(FetchStrategy)
    case skippedBaseline(String)
    case completed(FetchOutcome, seconds: Double, newItems: Int, score: Double?)
    case terminated(seconds: Double, score: Double?)
    case lost
    case killedByForceQuit
    case lostInDeepSleep
    case killedByDeepSleep
    case submitted(TaskRequest)
  }

  /// Seconds since the Unix epoch.
  public var time: Double
  public var kind: Kind
  public var facts: Facts

  public init(time: Double, kind: Kind, facts: Facts) {
    self.time = time
    self.kind = kind
    self.facts = facts
  }

  /// Staleness at launch, for launches.
  public var staleness: Double? {
    if case .launch(let s, _, _) = facts { return s }
    return nil
  }

  /// The fetch's outcome, for completed and terminated fetches.
  public var outcome: FetchOutcome? {
    switch facts {
    case .completed(let outcome, _, _, _): return outcome
    case .terminated: return .terminated
    default: return nil
    }
  }

  /// A duration rounded to the second: `42 s`, `3 min 5 s`, `2 h 10 min`; tenths below 10 s.
  static func duration(_ seconds: Double) -> String {
    if seconds < 10 { return RuntimeEvent.seconds(seconds) }
    let s = Int(seconds.rounded())
    return s >= 3_600 ? "\(s / 3_600) h \(s / 60 % 60) min" : s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s"
  }

  /// What happened, in a sentence.
  public var detail: String {
    let minutes = Self.duration
    switch facts {
    case .diagnostic(let text): return text
    case .launch(let staleness, let waiting, let snapshotAge):
      var text = staleness == 0
        ? "the user opened the app: content fresh"
        : "the user opened the app: \(waiting) item\(waiting == 1 ? "" : "s") not yet fetched, the oldest waiting \(minutes(staleness))"
      if let snapshotAge { text += "; app-switcher snapshot \(minutes(snapshotAge)) old" }
      return text
    case .decision(let d): return d.detail
    case .baseline(let strategy):
      if case .oracle(let lead) = strategy { return "oracle: fetch \(minutes(lead)) before the next launch" }
      return "\(strategy) baseline fetch"
    case .skippedBaseline(let why): return why
    case .completed(let outcome, let seconds, let items, let score):
      var text = "completion(.\(outcome.rawValue)) after \(minutes(seconds))"
      if outcome == .newData { text += ": \(items) new item\(items == 1 ? "" : "s"), app-switcher snapshot updated" }
      if let score { text += "; track record \(FetchDecision.number(score))" }
      return text
    case .terminated(let seconds, let score):
      var text = "no completion within the deadline: terminated after \(minutes(seconds))"
      if let score { text += "; track record \(FetchDecision.number(score))" }
      return text
    case .lost: return "the fetch was not delivered: the app was force-quit"
    case .killedByForceQuit: return "the user force-quit the app while the fetch was running"
    case .lostInDeepSleep: return "the fetch was not delivered: the battery manager keeps the app in deep sleep"
    case .killedByDeepSleep: return "the battery manager put the app into deep sleep while the fetch was running"
    case .submitted(let request):
      return "BGAppRefreshTaskRequest \"\(request.identifier)\" submitted"
        + (request.earliestBeginDate.map { ", not before \(Self.duration($0 - time)) from now" } ?? "")
    }
  }
}

/// Totals of one strategy's run.
public struct FetchSummary: Hashable, Sendable {
  public var strategy: FetchStrategy
  public var days: Double
  public var staleness: StalenessSummary
  /// Fetches the app was woken for, and how they ended.
  public var fetches: Int
  public var outcomes: [FetchOutcome: Int]
  /// Opportunities passed over.
  public var skipped: Int
  public var lost: Int
  /// Seconds in the background for fetches, and terminations of any kind.
  public var backgroundSeconds: Double
  public var terminations: Int

  public var fetchesPerDay: Double { days > 0 ? Double(fetches) / days : 0 }
}

/// One simulated device, app and user under a fetch strategy: launches from the usage, fetches
/// from the strategy, content from the feed, the app's fetch handler run by an ``AppRuntime``
/// (deadline, termination, states), and staleness measured at every launch.
///
/// **Content.** A fetch that completes fetches everything published up to its start (NewData
/// when that was anything, else NoData; Failed, drawn with the handler's failure rate, fetches
/// nothing). Opening the app refreshes it too: at a launch, staleness is measured first, then
/// everything published up to the launch counts as fetched. The app starts fresh as of the last
/// launch before the window (or the window's start). The app-switcher snapshot is updated by a
/// NewData fetch and when the user leaves the app.
///
/// **History.** Launches before `window.start` are the device's history: the scheduler learns from
/// them, nothing is measured. Launches in the window are simulated; the scheduler keeps learning.
public struct FetchSimulation: Sendable {
  public var configuration: AppConfiguration
  public var fetchProfile: FetchProfile
  public var runtimeProfile: RuntimeProfile
  /// The app's fetch handler.
  public var handler: HandlerBehaviour
  public var seed: UInt64
  /// Sorted by time.
  public var launches: [UserLaunch]
  public var window: Range<Double>
  public var feed: ContentFeed
  public var conditions: DeviceConditions
  /// Times the user force-quits the app.
  public var forceQuits: [Double]

  public init(
    configuration: AppConfiguration, fetchProfile: FetchProfile = .ios, runtimeProfile: RuntimeProfile = .ios,
    handler: HandlerBehaviour = HandlerBehaviour(work: 2), seed: UInt64 = 0, launches: [UserLaunch], window: Range<Double>,
    feed: ContentFeed, conditions: DeviceConditions = DeviceConditions(), forceQuits: [Double] = []
  ) {
    self.configuration = configuration
    self.fetchProfile = fetchProfile
    self.runtimeProfile = runtimeProfile
    self.handler = handler
    self.seed = seed
    self.launches = launches.sorted { $0.time < $1.time }
    self.window = window
    self.feed = feed
    self.conditions = conditions
    self.forceQuits = forceQuits
  }

  /// The app of a scenario (configuration, fetch handler — returning at once when it has none —,
  /// runtime profile, seed, force-quits) with these launches, window, feed and conditions.
  public init(scenario: AppScenario, launches: [UserLaunch], window: Range<Double>, feed: ContentFeed, conditions: DeviceConditions = DeviceConditions()) {
    self.init(
      configuration: scenario.configuration, runtimeProfile: scenario.profile, handler: scenario.behaviours[.fetch] ?? .instant,
      seed: scenario.seed, launches: launches, window: window, feed: feed, conditions: conditions, forceQuits: scenario.forceQuits)
  }

  /// The result of one run.
  public struct Run: Sendable {
    public var events: [FetchEvent]
    public var runtimeEvents: [RuntimeEvent]
    /// Everything the device did, in time order: the fetch side's steps and the app's.
    public var timeline: [DeviceEvent]
    public var summary: FetchSummary
  }

  /// The device of a run of `strategy`: its life is the window.
  public func configuration(_ strategy: FetchStrategy) -> Device.Configuration {
    let scenario = AppScenario(
      profile: runtimeProfile, seed: seed, behaviours: [.fetch: handler], forceQuits: forceQuits.filter { window.contains($0) },
      configuration: configuration)
    return Device.Configuration(
      scenario: scenario, fetch: fetchProfile, conditions: conditions, fetching: Device.Fetching(strategy: strategy, feed: feed))
  }

  /// Runs `strategy` over the window.
  public func run(_ strategy: FetchStrategy) -> Run {
    var device = Device(configuration(strategy), start: window.lowerBound, launches: launches)
    var timeline: [DeviceEvent] = []
    device.finish(at: window.upperBound, into: &timeline)
    let days = (window.upperBound - window.lowerBound) / LocalTime.secondsPerDay
    return Run(
      events: timeline.compactMap { if case .fetch(let f) = $0 { f } else { nil } },
      runtimeEvents: timeline.compactMap { if case .app(let r) = $0 { r } else { nil } }, timeline: timeline,
      summary: device.fetchSummary(days: days) ?? FetchTally().summary(strategy: strategy, days: days, runtime: RuntimeSummary()))
  }
}
