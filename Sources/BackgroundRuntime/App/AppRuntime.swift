import SeededRandom

/// One app's life on a virtual clock: launches, wakes, budgets, background tasks, expirations,
/// terminations and foreground sessions, under a ``RuntimeProfile``.
///
/// Schedule ``SystemEvent``s (in any order), then ``run(until:into:)``: the runtime pops one
/// ordered queue and appends a ``RuntimeEvent`` for every step.
///
/// **Rules.**
/// - A location event gives ``RuntimeProfile/locationWakeBudget`` seconds, a remote notification
///   ``RuntimeProfile/handlerDeadline``, a fetch ``RuntimeProfile/fetchDeadline`` (its handler must
///   call completion by then).
///   A not-running app is launched, a suspended one resumed; an app already running in the
///   background gets the event without a new wake, and its budget becomes at least the event's.
/// - The handler (a ``HandlerBehaviour`` per launch reason) works for its time; a background task
///   it begins raises the budget to ``RuntimeProfile/backgroundTaskLimit`` seconds after the wake
///   (never lowers it). ``RuntimeProfile/expirationLeadTime`` before the budget ends, the
///   expiration handlers of open tasks run (and end them, when the behaviour says so).
/// - When no handler runs and no task is open, the app is suspended. When the budget ends with
///   work still running, the watchdog terminates it; the next event launches it again.
/// - On screen (a user session) events are delivered without a wake and no budget applies; when
///   the user leaves, open work gets ``RuntimeProfile/leaveGracePeriod`` (or the task limit).
/// - A force-quit stops the app; fetches and notifications are then lost until the user opens it
///   again; location events still relaunch it on iOS, and are lost too on Android
///   (``RuntimeProfile/forceQuitStopsLocation``; docs/platform-rules.md, background execution).
///
/// **Ties.** Items at the same instant are handled in this order: the app's own work finishing
/// (a handler or task that ends exactly at the deadline made it), then expiration, then the
/// budget's end, then events from outside in the order they were scheduled, then the end of a
/// foreground session.
///
/// Events from outside wait in a time-sorted array, the runtime's own deadlines in a small heap
/// of plain values: a million scheduled events cost a sort, not a million heap operations.
///
/// Deterministic: durations vary only through ``HandlerBehaviour/variation``, drawn from the seed
/// in event order.
public struct AppRuntime: Sendable {
  public let profile: RuntimeProfile
  public internal(set) var state: AppState = .notRunning
  /// The virtual clock: the time of the last step.
  public internal(set) var now = -Double.infinity
  public internal(set) var summary = RuntimeSummary()

  let behaviours: [LaunchReason: HandlerBehaviour]
  var queue = EventQueue<Item>()
  /// Events from outside, kept sorted by (time, order scheduled) from `nextExternal` on.
  var external: [SystemEvent] = []
  var nextExternal = 0
  var externalSorted = true
  var random: SeededGenerator
  var forceQuit = false
  /// Whether the stop was the system's (deep sleep) rather than the user's.
  var stoppedBySystem = false
  /// The wake in progress: its reason and start, the budget's end and its version (deadlines of
  /// older versions are stale).
  var wake: (reason: LaunchReason, start: Double)?
  var budgetEnd = 0.0
  var budgetVersion = 0
  /// Work in progress: handlers and tasks by id, with the reason of their event.
  var handlers: [Int: (reason: LaunchReason, label: String)] = [:]
  var tasks: [Int: (reason: LaunchReason, endsOnExpiration: Bool)] = [:]
  var nextWorkID = 0

  // MARK: Handlers driven from outside (``AppSimulation``)

  /// When set, a started handler is reported in ``handlerRequests`` instead of running its
  /// ``HandlerBehaviour``; the driver then reports what it does.
  var drivesHandlersExternally = false
  /// What the outside driver must do next, in order.
  enum HandlerRequest: Equatable, Sendable {
    case start(id: Int, reason: LaunchReason, label: String, time: Double)
    case resume(id: Int)
    case kill(id: Int)
  }
  var handlerRequests: [HandlerRequest] = []
  var backgroundSince: Double?
  /// The current foreground session (its end is ignored once another began or the app stopped).
  var sessionNumber = 0
  var foregroundSince: Double?

  enum Item: Sendable, Codable, Hashable {
    case handlerFinishes(id: Int)
    case handlerResumes(id: Int)
    case taskEnds(id: Int)
    case expiration(version: Int)
    case budgetEnds(version: Int)
    case foregroundEnds(session: Int)
  }

  enum Rank: Int {
    case appWork = 0
    case expiration = 1
    case budget = 2
    case external = 3
  }

  /// - Parameters:
  ///   - behaviours: what the app does per launch reason (missing: returns at once).
  ///   - seed: seeds the variation of durations.
  public init(profile: RuntimeProfile = .ios, behaviours: [LaunchReason: HandlerBehaviour] = [:], seed: UInt64 = 0) {
    self.profile = profile
    self.behaviours = behaviours
    random = SeededGenerator(seed: seed)
  }

  /// Adds an event from outside.
  public mutating func schedule(_ event: SystemEvent) {
    if let last = external.last, event.time < last.time, external.count > nextExternal { externalSorted = false }
    external.append(event)
  }

  /// Runs every step up to `time` (everything when `nil`), appending them to `events`.
  public mutating func run(until time: Double? = nil, into events: inout [RuntimeEvent]) {
    if !externalSorted {
      // Stable: events at the same time keep the order they were scheduled in.
      let pending = external[nextExternal...].enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
      external.replaceSubrange(nextExternal..., with: pending.map(\.element))
      externalSorted = true
    }
    if nextExternal > 4_096 && nextExternal * 2 > external.count {
      external.removeFirst(nextExternal)
      nextExternal = 0
    }
    while handlerRequests.isEmpty {
      let internalNext = queue.first
      let externalNext = nextExternal < external.count ? external[nextExternal] : nil
      // The earlier of the two; at one instant the runtime's deadlines (ranks below external)
      // come first, a session's end after the outside events.
      let takeExternal: Bool
      switch (internalNext, externalNext) {
      case (nil, nil): takeExternal = false
      case (nil, _): takeExternal = true
      case (_, nil): takeExternal = false
      case (let i?, let e?): takeExternal = e.time < i.time || (e.time == i.time && i.rank >= Rank.external.rawValue)
      }
      if takeExternal, let e = externalNext {
        guard time.map({ e.time <= $0 }) ?? true else { break }
        nextExternal += 1
        now = max(now, e.time)
        receive(e, into: &events)
        continue
      }
      guard let next = internalNext, time.map({ next.time <= $0 }) ?? true, let entry = queue.pop() else { break }
      now = max(now, entry.time)
      switch entry.item {
      case .handlerFinishes(let id): finishHandler(id, into: &events)
      case .handlerResumes(let id): if handlers[id] != nil { handlerRequests.append(.resume(id: id)) }
      case .taskEnds(let id): endTask(id, byExpirationHandler: false, into: &events)
      case .expiration(let version): expire(version, into: &events)
      case .budgetEnds(let version): budgetRunsOut(version, into: &events)
      case .foregroundEnds(let session): if session == sessionNumber { leaveForeground(into: &events) }
      }
    }
    if let time { now = max(now, time) }
  }

  /// When the next step is due (an outside event or one of the runtime's deadlines), if any.
  /// Deadlines that turn out stale still count: the time is a lower bound of the next real step.
  public var nextStepTime: Double? {
    var next = queue.first?.time
    if nextExternal < external.count {
      let e = externalSorted ? external[nextExternal].time : external[nextExternal...].lazy.map(\.time).min() ?? .infinity
      next = min(next ?? e, e)
    }
    return next
  }

  /// Whether events from outside are still waiting to be handled.
  public var hasPendingEvents: Bool { nextExternal < external.count }

  /// Sets the clock to `time` without a step (a runtime that starts then).
  mutating func advanceClock(to time: Double) { now = max(now, time) }

  /// Seconds of background time left now, when running in the background.
  public var budgetRemaining: Double? { state == .background ? max(0, budgetEnd - now) : nil }

  // MARK: - Steps

  private mutating func record(
    _ kind: RuntimeEvent.Kind, _ reason: LaunchReason?, from before: AppState, _ facts: RuntimeEvent.Facts, into events: inout [RuntimeEvent]
  ) {
    events.append(RuntimeEvent(
      time: now, kind: kind, reason: reason, stateBefore: before, stateAfter: state,
      budgetRemaining: state == .background ? budgetEnd - now : nil, facts: facts, lifecycle: profile.lifecycle))
  }

  private mutating func setState(_ new: AppState) {
    if state == .foreground, new != .foreground, let since = foregroundSince {
      summary.foregroundSeconds += now - since
      foregroundSince = nil
    }
    if new == .foreground && state != .foreground {
      foregroundSince = now
      summary.sessions += 1
    }
    if state == .background, new != .background, let since = backgroundSince, let reason = wake?.reason {
      summary.backgroundSeconds[reason, default: 0] += now - since
      backgroundSince = nil
    }
    if new == .background && state != .background { backgroundSince = now }
    state = new
  }

  private mutating func receive(_ event: SystemEvent, into events: inout [RuntimeEvent]) {
    let before = state
    let label = event.label
    switch event.kind {
    case .forceQuit, .deepSleep:
      stopWork()
      setState(.notRunning)
      wake = nil
      forceQuit = true
      if case .deepSleep(let unused) = event.kind {
        stoppedBySystem = true
        record(.forceQuit, nil, from: before, .deepSleep(unusedFor: unused), into: &events)
      } else {
        stoppedBySystem = false
        record(.forceQuit, nil, from: before, .none, into: &events)
      }
    case .userSession(let duration):
      forceQuit = false
      stoppedBySystem = false
      setState(.foreground)
      sessionNumber += 1
      queue.push(.foregroundEnds(session: sessionNumber), at: now + max(0, duration), rank: Rank.external.rawValue)
      record(.foregroundStarted, .user, from: before, .label(label), into: &events)
    case .location, .remoteNotification, .fetch:
      guard let reason = event.reason else { return }
      if forceQuit && (reason != .location || profile.forceQuitStopsLocation) {
        summary.lost[reason, default: 0] += 1
        record(.lost, reason, from: before, stoppedBySystem ? .lostInDeepSleep(label: label) : .label(label), into: &events)
        return
      }
      if state == .foreground {
        record(.deliveredInForeground, reason, from: before, .label(label), into: &events)
        return
      }
      let budget = profile.budget(for: reason)
      if state == .background {
        if now + budget > budgetEnd { setBudget(now + budget) }
        record(.deliveredWhileRunning, reason, from: before, .delivered(label: label, budget: budget), into: &events)
      } else {
        wake = (reason, now)
        setState(.background)
        setBudget(now + budget)
        summary.wakes[reason, default: 0] += 1
        record(.wake, reason, from: before, .wake(label: label, budget: budget), into: &events)
      }
      startHandler(reason, label: label, into: &events)
    }
  }

  private mutating func startHandler(_ reason: LaunchReason, label: String, into events: inout [RuntimeEvent]) {
    let behaviour = behaviours[reason] ?? .instant
    let id = nextWorkID
    nextWorkID += 1
    handlers[id] = (reason, label)
    if drivesHandlersExternally {
      record(.handlerStarted, reason, from: state, .none, into: &events)
      handlerRequests.append(.start(id: id, reason: reason, label: label, time: now))
      return
    }
    let work = vary(behaviour.work, behaviour.variation)
    record(.handlerStarted, reason, from: state, .work(work), into: &events)
    if let task = behaviour.backgroundTask {
      let taskID = nextWorkID
      nextWorkID += 1
      tasks[taskID] = (reason, behaviour.endsTaskOnExpiration)
      let length = vary(task, behaviour.variation)
      queue.push(.taskEnds(id: taskID), at: now + length, rank: Rank.appWork.rawValue)
      record(.taskBegan, reason, from: state, .work(length), into: &events)
      extendForTask(reason, into: &events)
    }
    queue.push(.handlerFinishes(id: id), at: now + work, rank: Rank.appWork.rawValue)
  }

  /// A background task raises the budget to the task limit from the wake (never lowers it).
  private mutating func extendForTask(_ reason: LaunchReason, into events: inout [RuntimeEvent]) {
    guard state == .background, let start = wake?.start, start + profile.backgroundTaskLimit > budgetEnd else { return }
    let before = budgetEnd - now
    setBudget(start + profile.backgroundTaskLimit)
    record(
      .budgetExtended, reason, from: state,
      .budgetExtended(from: before, to: budgetEnd - now, profile: profile.name, limit: profile.backgroundTaskLimit), into: &events)
  }

  // MARK: Driver interface (handlers driven from outside)

  /// The next thing the outside driver must do, if any.
  mutating func takeHandlerRequest() -> HandlerRequest? {
    handlerRequests.isEmpty ? nil : handlerRequests.removeFirst()
  }

  /// Whether handler `id` is still alive (not returned, not killed).
  func isRunning(handler id: Int) -> Bool { handlers[id] != nil }

  /// Handler `id` works for `seconds` of virtual time before it continues.
  mutating func handler(_ id: Int, worksFor seconds: Double) {
    queue.push(.handlerResumes(id: id), at: now + max(0, seconds), rank: Rank.appWork.rawValue)
  }

  /// Handler `id` returned.
  mutating func handlerReturned(_ id: Int, into events: inout [RuntimeEvent]) {
    finishHandler(id, into: &events)
  }

  /// Handler `id` begins a background task; returns its id (nil when the handler is not running).
  mutating func beginTask(for handler: Int, endsOnExpiration: Bool, into events: inout [RuntimeEvent]) -> Int? {
    guard let reason = handlers[handler]?.reason else { return nil }
    let id = nextWorkID
    nextWorkID += 1
    tasks[id] = (reason, endsOnExpiration)
    record(.taskBegan, reason, from: state, .none, into: &events)
    extendForTask(reason, into: &events)
    return id
  }

  /// The app ends background task `id`.
  mutating func endTaskFromApp(_ id: Int, into events: inout [RuntimeEvent]) {
    endTask(id, byExpirationHandler: false, into: &events)
  }

  private mutating func finishHandler(_ id: Int, into events: inout [RuntimeEvent]) {
    guard let (reason, label) = handlers.removeValue(forKey: id) else { return }
    // The label says which event's handler finished (the sentence does not show it).
    record(.handlerFinished, reason, from: state, .label(label), into: &events)
    suspendIfIdle(into: &events)
  }

  private mutating func endTask(_ id: Int, byExpirationHandler: Bool, into events: inout [RuntimeEvent]) {
    guard let task = tasks.removeValue(forKey: id) else { return }
    record(.taskEnded, task.reason, from: state, .taskEnded(byExpirationHandler: byExpirationHandler), into: &events)
    suspendIfIdle(into: &events)
  }

  private mutating func expire(_ version: Int, into events: inout [RuntimeEvent]) {
    guard version == budgetVersion, state == .background, !tasks.isEmpty else { return }
    summary.expirations += 1
    record(.expiration, wake?.reason, from: state, .expiration(openTasks: tasks.count, lead: profile.expirationLeadTime), into: &events)
    for id in tasks.keys.sorted() where tasks[id]?.endsOnExpiration == true {
      endTask(id, byExpirationHandler: true, into: &events)
    }
  }

  private mutating func budgetRunsOut(_ version: Int, into events: inout [RuntimeEvent]) {
    guard version == budgetVersion, state == .background, !handlers.isEmpty || !tasks.isEmpty else { return }
    let before = state
    let facts = RuntimeEvent.Facts.terminated(handlers: handlers.count, tasks: tasks.count)
    summary.terminations += 1
    summary.interrupted += handlers.count
    stopWork()
    setState(.notRunning)
    let reason = wake?.reason
    wake = nil
    record(.terminated, reason, from: before, facts, into: &events)
  }

  private mutating func leaveForeground(into events: inout [RuntimeEvent]) {
    guard state == .foreground else { return }
    let before = state
    wake = (.user, now)
    setState(.background)
    var end = now + profile.leaveGracePeriod
    if !tasks.isEmpty { end = max(end, now + profile.backgroundTaskLimit) }
    setBudget(end)
    record(.foregroundEnded, .user, from: before, .none, into: &events)
    suspendIfIdle(into: &events)
  }

  private mutating func suspendIfIdle(into events: inout [RuntimeEvent]) {
    guard state == .background, handlers.isEmpty, tasks.isEmpty else { return }
    let before = state
    setState(.suspended)
    budgetVersion += 1  // pending deadlines are void
    record(.suspended, wake?.reason, from: before, .none, into: &events)
  }

  private mutating func setBudget(_ end: Double) {
    budgetEnd = end
    budgetVersion += 1
    queue.push(.expiration(version: budgetVersion), at: max(now, end - profile.expirationLeadTime), rank: Rank.expiration.rawValue)
    queue.push(.budgetEnds(version: budgetVersion), at: end, rank: Rank.budget.rawValue)
  }

  /// Drops every handler and task. Their pending ends stay queued and are ignored when they come
  /// (ids are never reused), as are stale deadlines and the end of an interrupted session: no
  /// search through the queue.
  private mutating func stopWork() {
    if drivesHandlersExternally { for id in handlers.keys.sorted() { handlerRequests.append(.kill(id: id)) } }
    handlers.removeAll()
    tasks.removeAll()
    budgetVersion += 1
    sessionNumber += 1
  }

  /// `duration` times a seeded factor in 1 ± variation.
  private mutating func vary(_ duration: Double, _ variation: Double) -> Double {
    guard variation > 0 else { return max(0, duration) }
    let unit = random.unit()
    return max(0, duration * (1 - variation + 2 * variation * unit))
  }

}
