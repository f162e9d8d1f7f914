import SeededRandom

/// The background-fetch side of a ``Device``: the policy the device asks "when is the next
/// opportunity?" (the system's ``FetchScheduler``, or a baseline), the fetches it grants handed
/// to the device's app runtime, their results read back from the app's steps, and staleness
/// measured at every launch (docs/platform-rules.md, background fetch).
///
/// **Content.** A fetch that completes fetches everything published up to its start (NewData
/// when that was anything, else NoData; Failed, drawn with the handler's failure rate, fetches
/// nothing). Opening the app refreshes it too: at a launch, staleness is measured first, then
/// everything published up to the launch counts as fetched. The app starts fresh as of the last
/// launch before the device's start. The app-switcher snapshot is updated by a NewData fetch and
/// when the user leaves the app.
struct FetchLane: Sendable {
  let strategy: FetchStrategy
  let feed: ContentFeed
  let conditions: DeviceConditions
  let failureRate: Double
  var scheduler: FetchScheduler
  /// The lane's clock: the time of the last thing it handled.
  var now: Double
  var fetchedThrough: Double
  var switcherSnapshot: Double?
  /// When the user last left the app (a launch's end), for the snapshot's age.
  var lastLaunchEnd: Double?
  /// The start of the fetch in progress, until its outcome is seen (a handler on screen may run
  /// past the background deadline).
  var inFlight: Double?
  var plan: [FetchDecision] = []
  var planIndex = 0
  var review: Double?
  var needsPlan = true
  var nextFixed: Double
  /// The even timer's time left to its next fetch while the app is dormant (it fetches only
  /// where the system would: it runs on from the next launch).
  var evenPaused: Double?
  var random: SeededGenerator
  /// The last refusal of a BGTaskScheduler submission, reported once until it changes.
  var lastRefusal: TaskSchedulerError?
  /// Android: the periodic job's period (nil: the iOS scheduler or a baseline), when it is next
  /// due, and its recent runs (for the standby bucket's quota).
  let jobPeriod: Double?
  /// Whether the scheduler learns launch habits (the iOS scheduler; a baseline or Android's
  /// periodic job only needs the last launch).
  let learnsHabits: Bool
  var jobDue: Double
  var jobRuns: [JobRun] = []

  struct JobRun: Hashable, Sendable, Codable {
    var start: Double
    var end: Double
  }

  /// A lane from `start` on: `history` (launches before it) is what the scheduler learned from;
  /// `firstLaunch`, the first launch from `start` on, sets the fixed baselines' phase.
  init(
    strategy: FetchStrategy, feed: ContentFeed, conditions: DeviceConditions, scenario: AppScenario, profile: FetchProfile,
    start: Double, history: [UserLaunch], firstLaunch: UserLaunch?
  ) {
    self.strategy = strategy
    self.feed = feed
    self.conditions = conditions
    failureRate = scenario.behaviours[.fetch]?.failureRate ?? 0
    scheduler = FetchScheduler(configuration: scenario.configuration, profile: profile)
    if strategy == .system, case .periodicJob(let minimum) = profile.scheduler {
      if case .custom(let interval) = scenario.configuration.fetchPolicy { jobPeriod = max(minimum, interval) } else { jobPeriod = minimum }
    } else {
      jobPeriod = nil
    }
    learnsHabits = strategy == .system && jobPeriod == nil
    for l in history { Self.note(l, learningHabits: learnsHabits, &scheduler) }
    now = start
    fetchedThrough = history.last?.time ?? start
    lastLaunchEnd = history.last.map { $0.time + $0.duration }
    nextFixed = firstLaunch?.time ?? start
    if case .fixed(let interval) = strategy {
      // Back from the first launch to the start, keeping the phase.
      nextFixed -= ((nextFixed - start) / interval).rounded(.down) * interval
    }
    if case .evenly(_, let phase) = strategy { nextFixed = start + phase }
    random = SeededGenerator(seed: scenario.seed ^ 0x5EED_FE7C_0000_0001)
    jobDue = start
  }

  /// The scheduler hears of launch `l`: it learns it as history, or only keeps its time.
  static func note(_ l: UserLaunch, learningHabits: Bool, _ scheduler: inout FetchScheduler) {
    if learningHabits { scheduler.observeLaunch(at: l.time, utcOffset: l.utcOffset) } else { scheduler.lastLaunch = l.time }
  }

  /// What the lane says at its start: why there is no fetch at all, and the first app-refresh
  /// request.
  mutating func begin(_ c: inout Device.Core) {
    if jobPeriod != nil {
      if scheduler.configuration.fetchPolicy == .never {
        c.events.append(.fetch(FetchEvent(time: now, kind: .fetchUnavailable, facts: .diagnostic(Self.noPeriodicWork))))
      }
      return
    }
    if strategy == .system, let why = scheduler.configuration.fetchDiagnostic {
      c.events.append(.fetch(FetchEvent(time: now, kind: .fetchUnavailable, facts: .diagnostic(why))))
    }
    if strategy == .system { submitRefresh(at: now, &c) }
  }

  /// When the policy next decides (a fetch or a pass), at `now` or later; `upcoming` are the
  /// launches still to come (the oracle knows them; the phone's clock is on the zone of the next).
  mutating func nextDecisionTime(upcoming: ArraySlice<UserLaunch>, _ c: Device.Core, clock: Double) -> Double {
    if let period = jobPeriod {
      // The job's time moves with the device's state (a session ends Doze): never before the clock.
      guard scheduler.configuration.fetchPolicy != .never else { return .infinity }
      return max(clock, nextJob(period, c).time)
    }
    if strategy == .system, needsPlan {
      scheduler.clockOffset = upcoming.first?.utcOffset
      scheduler.trackRecord = c.trackRecord
      (plan, review) = scheduler.plan(after: now, conditions: conditions)
      planIndex = 0
      needsPlan = false
    }
    switch strategy {
    case .system:
      if planIndex < plan.count { return max(now, plan[planIndex].time) }
      return review.map { max(now, $0) } ?? .infinity
    case .fixed: return nextFixed
    case .evenly: return evenPaused == nil ? nextFixed : .infinity
    case .oracle(let lead):
      for l in upcoming {
        let at = l.time - lead
        if at >= now, at > (scheduler.lastFetch ?? -.infinity) { return at }
      }
      return .infinity
    }
  }

  /// The user opens the app at `l.time`: staleness is measured (before the app is opened).
  mutating func measure(_ l: UserLaunch, _ c: inout Device.Core) {
    now = l.time
    let waiting = feed.unfetched(after: fetchedThrough, through: l.time)
    // The snapshot is taken when the user leaves the app, and by NewData fetches.
    let shot = [switcherSnapshot, lastLaunchEnd].compactMap { $0 }.max()
    c.events.append(.fetch(FetchEvent(
      time: l.time, kind: .launch,
      facts: .launch(staleness: waiting.oldest.map { l.time - $0 } ?? 0, waiting: waiting.count, snapshotAge: shot.map { l.time - $0 }))))
    fetchedThrough = max(fetchedThrough, l.time)
    lastLaunchEnd = l.time + l.duration
  }

  /// The app is open: the scheduler learns the launch, and the app submits its next request.
  mutating func learn(_ l: UserLaunch, _ c: inout Device.Core) {
    Self.note(l, learningHabits: learnsHabits, &scheduler)
    if let left = evenPaused {
      nextFixed = l.time + left
      evenPaused = nil
    }
    if strategy == .system, jobPeriod == nil { submitRefresh(at: l.time, &c) }
    needsPlan = true
  }

  /// With BGAppRefreshTask, the app submits its request (when opened, and after each refresh).
  mutating func submitRefresh(at t: Double, _ c: inout Device.Core) {
    guard let use = scheduler.configuration.appRefresh else { return }
    let request = TaskRequest(identifier: use.identifier, kind: .appRefresh, earliestBeginDate: t + use.earliestBeginAfter)
    let refreshOff = conditions.intervals.contains { $0.condition == .backgroundRefreshOff && $0.start <= t && t < $0.end }
    do throws(TaskSchedulerError) {
      try scheduler.submit(request, backgroundRefreshEnabled: !refreshOff)
      lastRefusal = nil
      c.events.append(.fetch(FetchEvent(time: t, kind: .taskSubmitted, facts: .submitted(request))))
    } catch {
      if error != lastRefusal { c.events.append(.fetch(FetchEvent(time: t, kind: .fetchUnavailable, facts: .diagnostic(error.description)))) }
      lastRefusal = error
    }
    needsPlan = true
  }

  /// The policy's decision at `t` (``nextDecisionTime(upcoming:_:)``).
  mutating func decide(at t: Double, _ c: inout Device.Core) {
    now = t
    if let period = jobPeriod {
      runJobIfDue(period, at: t, &c)
      return
    }
    switch strategy {
    case .system:
      if planIndex >= plan.count {
        needsPlan = true  // the review time came
        return
      }
      let d = plan[planIndex]
      planIndex += 1
      if d.action == .skip {
        c.events.append(.fetch(FetchEvent(time: t, kind: .fetchSkipped, facts: .decision(d))))
        return
      }
      needsPlan = true
      fetch(at: t, facts: .decision(d), &c)
    case .fixed(let interval), .evenly(let interval, _):
      nextFixed += interval
      if case .evenly = strategy, let dormant = dormantFrom, nextFixed > dormant { evenPaused = nextFixed - dormant }
      if let blocked = conditions.blocking(at: t) {
        c.events.append(.fetch(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: \(blocked.condition.sentence)"))))
        return
      }
      fetch(at: t, facts: .baseline(strategy), &c)
    case .oracle:
      if let blocked = conditions.blocking(at: t) {
        scheduler.fetchStarted(at: t)  // consumed: the oracle does not retry
        c.events.append(.fetch(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: \(blocked.condition.sentence)"))))
        return
      }
      fetch(at: t, facts: .baseline(strategy), &c)
    }
  }

  /// When the app falls dormant (no fetch until the user opens it again) unless opened before.
  var dormantFrom: Double? {
    scheduler.lastLaunch.map { $0 + scheduler.profile.dormancyDays * LocalTime.secondsPerDay }
  }

  mutating func fetch(at t: Double, facts: FetchEvent.Facts, _ c: inout Device.Core) {
    scheduler.fetchStarted(at: t)
    if c.runtime.state == .foreground {
      c.events.append(.fetch(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: the app is on screen and refreshes itself"))))
      return
    }
    if inFlight != nil {
      c.events.append(.fetch(FetchEvent(time: t, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: the previous one is still running"))))
      return
    }
    c.events.append(.fetch(FetchEvent(time: t, kind: .fetchRequested, facts: facts)))
    inFlight = t
    c.runtime.schedule(SystemEvent(time: t, kind: .fetch, label: "background fetch"))
  }

  func score(at time: Double, _ c: Device.Core) -> Double? { strategy == .system ? c.trackRecord.score(at: time) : nil }

  /// Reads one of the app's steps: the fetch's outcome, when one is in flight.
  mutating func observe(_ e: RuntimeEvent, _ c: inout Device.Core) {
    guard let start = inFlight else { return }
    switch e.kind {
    case .handlerFinished where e.reason == .fetch:
      now = e.time
      inFlight = nil
      var outcome = FetchOutcome.noData
      var items = 0
      if failureRate > 0, random.unit() < failureRate {
        outcome = .failed
      } else {
        items = feed.unfetched(after: fetchedThrough, through: start).count
        if items > 0 {
          outcome = .newData
          fetchedThrough = start
          switcherSnapshot = e.time
        }
      }
      ended(startedAt: start, at: e.time, outcome, &c)
      c.events.append(.fetch(FetchEvent(
        time: e.time, kind: .fetchCompleted, facts: .completed(outcome, seconds: e.time - start, newItems: items, score: score(at: e.time, c)))))
      if strategy == .system, jobPeriod == nil { submitRefresh(at: e.time, &c) }
    case .terminated:
      inFlight = nil
      ended(startedAt: start, at: e.time, .terminated, &c)
      c.events.append(.fetch(FetchEvent(time: e.time, kind: .fetchTerminated, facts: .terminated(seconds: e.time - start, score: score(at: e.time, c)))))
    case .deliveredInForeground where e.reason == .fetch:
      inFlight = nil
      c.events.append(.fetch(FetchEvent(time: e.time, kind: .fetchSkipped, facts: .skippedBaseline("no fetch: the app is on screen and refreshes itself"))))
    case .lost where e.reason == .fetch:
      inFlight = nil
      let facts: FetchEvent.Facts
      if case .lostInDeepSleep = e.facts { facts = .lostInDeepSleep } else { facts = .lost }
      c.events.append(.fetch(FetchEvent(time: e.time, kind: .fetchLost, facts: facts)))
    case .forceQuit:
      inFlight = nil
      let facts: FetchEvent.Facts
      if case .deepSleep = e.facts { facts = .killedByDeepSleep } else { facts = .killedByForceQuit }
      c.events.append(.fetch(FetchEvent(time: e.time, kind: .fetchLost, facts: facts)))
    default: break
    }
  }

  /// A fetch's result goes to the device's one track record, which the scheduler plans with.
  private mutating func ended(startedAt start: Double, at end: Double, _ outcome: FetchOutcome, _ c: inout Device.Core) {
    if jobPeriod != nil { jobRuns.append(JobRun(start: start, end: end)) }
    c.trackRecord.record(outcome, seconds: end - start, at: end)
    scheduler.trackRecord = c.trackRecord
  }
}
