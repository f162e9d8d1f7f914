import SeededRandom

/// The user opening the app: when, for how long, on which clock.
public struct UserLaunch: Hashable, Sendable {
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
public enum FetchStrategy: Hashable, Sendable, CustomStringConvertible {
  /// The system's ``FetchScheduler`` under the app's policy.
  case system
  /// A baseline: every `interval` seconds, all day, whatever the habits, from the first launch in
  /// the window on (an app-driven timer started when the user first opened the app, so its phase
  /// is not lined up with anything by construction).
  case fixed(interval: Double)
  /// A baseline that knows the future: one fetch `lead` seconds before each launch.
  case oracle(lead: Double)

  public var description: String {
    switch self {
    case .system: return "scheduler"
    case .fixed(let interval):
      let s = Int(interval.rounded())
      return s % 3_600 == 0 ? "fixed \(s / 3_600) h" : s % 60 == 0 ? "fixed \(s / 60) min" : "fixed \(s) s"
    case .oracle: return "oracle"
    }
  }
}

/// One step of a fetch simulation, besides the app runtime's own steps.
public struct FetchEvent: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable {
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

  public enum Facts: Hashable, Sendable {
    case diagnostic(String)
    case launch(staleness: Double, waiting: Int, snapshotAge: Double?)
    case decision(FetchDecision)
    case baseline(FetchStrategy)
    case skippedBaseline(String)
    case completed(FetchOutcome, seconds: Double, newItems: Int, score: Double?)
    case terminated(seconds: Double, score: Double?)
    case lost
    case killedByForceQuit
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
    public var summary: FetchSummary
  }

  /// Runs `strategy` over the window.
  public func run(_ strategy: FetchStrategy) -> Run {
    var state = RunState(simulation: self, strategy: strategy)
    state.run()
    let stale = state.events.compactMap(\.staleness)
    var outcomes: [FetchOutcome: Int] = [:]
    for e in state.events { if let o = e.outcome { outcomes[o, default: 0] += 1 } }
    let summary = FetchSummary(
      strategy: strategy, days: (window.upperBound - window.lowerBound) / LocalTime.secondsPerDay, staleness: StalenessSummary(stale),
      fetches: state.events.lazy.filter { $0.kind == .fetchRequested }.count, outcomes: outcomes,
      skipped: state.events.lazy.filter { $0.kind == .fetchSkipped }.count,
      lost: state.events.lazy.filter { $0.kind == .fetchLost }.count,
      backgroundSeconds: state.runtime.summary.backgroundSeconds[.fetch] ?? 0, terminations: state.runtime.summary.terminations)
    return Run(events: state.events, runtimeEvents: state.runtimeEvents, summary: summary)
  }
}

/// The moving parts of one run.
private struct RunState {
  let sim: FetchSimulation
  let strategy: FetchStrategy
  var runtime: AppRuntime
  var scheduler: FetchScheduler
  var events: [FetchEvent] = []
  var runtimeEvents: [RuntimeEvent] = []
  var scanned = 0
  /// Launches in the window: the next one.
  var nextLaunch: Int
  var fetchedThrough: Double
  var snapshot: Double?
  /// The start of the fetch in progress, until its outcome is seen (a handler on screen may run
  /// past the background deadline).
  var inFlight: Double?
  var plan: [FetchDecision] = []
  var planIndex = 0
  var review: Double?
  var needsPlan = true
  var nextFixed: Double
  var random: SeededGenerator
  /// The last refusal of a BGTaskScheduler submission, reported once until it changes.
  var lastRefusal: TaskSchedulerError?

  init(simulation sim: FetchSimulation, strategy: FetchStrategy) {
    self.sim = sim
    self.strategy = strategy
    runtime = AppRuntime(profile: sim.runtimeProfile, behaviours: [.fetch: sim.handler], seed: sim.seed)
    scheduler = FetchScheduler(configuration: sim.configuration, profile: sim.fetchProfile)
    var first = sim.launches.count
    var last: Double?
    for (k, l) in sim.launches.enumerated() {
      if l.time < sim.window.lowerBound {
        scheduler.observeLaunch(at: l.time, utcOffset: l.utcOffset)
        last = l.time
      } else if first == sim.launches.count {
        first = k
      }
    }
    nextLaunch = first
    for t in sim.forceQuits where sim.window.contains(t) { runtime.schedule(SystemEvent(time: t, kind: .forceQuit)) }
    fetchedThrough = last ?? sim.window.lowerBound
    nextFixed = first < sim.launches.count ? sim.launches[first].time : sim.window.lowerBound
    if case .fixed(let interval) = strategy {
      // Back from the first launch to the window's start, keeping the phase.
      nextFixed -= ((nextFixed - sim.window.lowerBound) / interval).rounded(.down) * interval
    }
    random = SeededGenerator(seed: sim.seed ^ 0x5EED_FE7C_0000_0001)
  }

  mutating func run() {
    let end = sim.window.upperBound
    if strategy == .system, let why = sim.configuration.fetchDiagnostic {
      events.append(FetchEvent(time: sim.window.lowerBound, kind: .fetchUnavailable, facts: .diagnostic(why)))
    }
    var now = sim.window.lowerBound
    if strategy == .system { submitRefresh(at: now) }
    while true {
      if strategy == .system, needsPlan {
        // The phone's clock is on the zone of the user's next launch (it changed on arrival).
        scheduler.clockOffset = nextLaunch < sim.launches.count ? sim.launches[nextLaunch].utcOffset : nil
        (plan, review) = scheduler.plan(after: now, conditions: sim.conditions)
        planIndex = 0
        needsPlan = false
      }
      let launchTime = nextLaunch < sim.launches.count ? sim.launches[nextLaunch].time : .infinity
      let decisionTime = nextDecisionTime(after: now)
      // While a fetch runs, step with the runtime so its outcome (and what the app does then,
      // such as submitting its next request) is seen when it happens.
      let runtimeTime = inFlight != nil ? runtime.nextStepTime ?? .infinity : .infinity
      let t = min(launchTime, decisionTime, runtimeTime)
      guard t < end else { break }
      advance(to: t)
      now = t
      if launchTime == t {
        launch(sim.launches[nextLaunch])
        nextLaunch += 1
      } else if decisionTime == t {
        decide(at: t)
      }
    }
    advance(to: end)
    // A fetch still running at the end is followed to its outcome.
    if inFlight != nil { advance(to: nil) }
  }

  func nextDecisionTime(after now: Double) -> Double {
    switch strategy {
    case .system:
      if planIndex < plan.count { return max(now, plan[planIndex].time) }
      return review.map { max(now, $0) } ?? .infinity
    case .fixed: return nextFixed
    case .oracle(let lead):
      var k = nextLaunch
      while k < sim.launches.count {
        let at = sim.launches[k].time - lead
        if at >= now, at > (scheduler.lastFetch ?? -.infinity) { return at }
        k += 1
      }
      return .infinity
    }
  }

  /// Runs the app up to `time` (to its last step when nil) and reads the fetch's outcome from
  /// the runtime's steps.
  mutating func advance(to time: Double?) {
    runtime.run(until: time, into: &runtimeEvents)
    while scanned < runtimeEvents.count {
      let e = runtimeEvents[scanned]
      scanned += 1
      guard let start = inFlight else { continue }
      switch e.kind {
      case .handlerFinished where e.reason == .fetch:
        inFlight = nil
        var outcome = FetchOutcome.noData
        var items = 0
        if sim.handler.failureRate > 0, random.unit() < sim.handler.failureRate {
          outcome = .failed
        } else {
          items = sim.feed.unfetched(after: fetchedThrough, through: start).count
          if items > 0 {
            outcome = .newData
            fetchedThrough = start
            snapshot = e.time
          }
        }
        scheduler.fetchEnded(startedAt: start, at: e.time, outcome: outcome)
        events.append(FetchEvent(
          time: e.time, kind: .fetchCompleted,
          facts: .completed(outcome, seconds: e.time - start, newItems: items, score: score(at: e.time))))
        if strategy == .system { submitRefresh(at: e.time) }
      case .terminated:
        inFlight = nil
        scheduler.fetchEnded(startedAt: start, at: e.time, outcome: .terminated)
        events.append(FetchEvent(time: e.time, kind: .fetchTerminated, facts: .terminated(seconds: e.time - start, score: score(at: e.time))))
      case .deliveredInForeground where e.reason == .fetch:
        inFlight = nil
        events.append(FetchEvent(time: e.time, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: the app is on screen and refreshes itself")))
      case .lost where e.reason == .fetch:
        inFlight = nil
        events.append(FetchEvent(time: e.time, kind: .fetchLost, facts: .lost))
      case .forceQuit:
        inFlight = nil
        events.append(FetchEvent(time: e.time, kind: .fetchLost, facts: .killedByForceQuit))
      default: break
      }
    }
  }

  func score(at time: Double) -> Double? { strategy == .system ? scheduler.trackRecord.score(at: time) : nil }

  mutating func launch(_ l: UserLaunch) {
    let waiting = sim.feed.unfetched(after: fetchedThrough, through: l.time)
    // The snapshot is taken when the user leaves the app, and by NewData fetches.
    let left = nextLaunch > 0 ? sim.launches[nextLaunch - 1].time + sim.launches[nextLaunch - 1].duration : nil
    let shot = [snapshot, left].compactMap { $0 }.max()
    events.append(FetchEvent(
      time: l.time, kind: .launch,
      facts: .launch(staleness: waiting.oldest.map { l.time - $0 } ?? 0, waiting: waiting.count, snapshotAge: shot.map { l.time - $0 })))
    fetchedThrough = max(fetchedThrough, l.time)
    // Scheduled as the loop reaches it, so the runtime's outside events arrive in time order.
    runtime.schedule(SystemEvent(time: l.time, kind: .userSession(duration: l.duration), label: "launch"))
    advance(to: l.time)
    scheduler.observeLaunch(at: l.time, utcOffset: l.utcOffset)
    if strategy == .system { submitRefresh(at: l.time) }
    needsPlan = true
  }

  /// With BGAppRefreshTask, the app submits its request (when opened, and after each refresh).
  mutating func submitRefresh(at t: Double) {
    guard let use = sim.configuration.appRefresh else { return }
    let request = TaskRequest(identifier: use.identifier, kind: .appRefresh, earliestBeginDate: t + use.earliestBeginAfter)
    let refreshOff = sim.conditions.intervals.contains { $0.condition == .backgroundRefreshOff && $0.start <= t && t < $0.end }
    do throws(TaskSchedulerError) {
      try scheduler.submit(request, backgroundRefreshEnabled: !refreshOff)
      lastRefusal = nil
      events.append(FetchEvent(time: t, kind: .taskSubmitted, facts: .submitted(request)))
    } catch {
      if error != lastRefusal { events.append(FetchEvent(time: t, kind: .fetchUnavailable, facts: .diagnostic(error.description))) }
      lastRefusal = error
    }
    needsPlan = true
  }

  mutating func decide(at t: Double) {
    switch strategy {
    case .system:
      if planIndex >= plan.count {
        needsPlan = true  // the review time came
        return
      }
      let d = plan[planIndex]
      planIndex += 1
      if d.action == .skip {
        events.append(FetchEvent(time: t, kind: .fetchSkipped, facts: .decision(d)))
        return
      }
      needsPlan = true
      fetch(at: t, facts: .decision(d))
    case .fixed(let interval):
      nextFixed += interval
      if let blocked = sim.conditions.blocking(at: t) {
        events.append(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: \(blocked.condition.sentence)")))
        return
      }
      fetch(at: t, facts: .baseline(strategy))
    case .oracle:
      if let blocked = sim.conditions.blocking(at: t) {
        scheduler.fetchStarted(at: t)  // consumed: the oracle does not retry
        events.append(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: \(blocked.condition.sentence)")))
        return
      }
      fetch(at: t, facts: .baseline(strategy))
    }
  }

  mutating func fetch(at t: Double, facts: FetchEvent.Facts) {
    scheduler.fetchStarted(at: t)
    if runtime.state == .foreground {
      events.append(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: the app is on screen and refreshes itself")))
      return
    }
    if inFlight != nil {
      events.append(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: the previous one is still running")))
      return
    }
    events.append(FetchEvent(time: t, kind: .fetchRequested, facts: facts))
    inFlight = t
    runtime.schedule(SystemEvent(time: t, kind: .fetch, label: "background fetch"))
  }
}
