/// One decision of the system about background fetch, with the facts that explain it.
public struct FetchDecision: Hashable, Sendable, Codable {
  public enum Action: String, Hashable, Sendable, Codable {
    /// The system wakes the app for a fetch at ``FetchDecision/time``.
    case fetch
    /// The system passes over an opportunity.
    case skip
  }

  /// Why.
  public enum Basis: Hashable, Sendable, Codable {
    /// One of the fetches granted through a launch window, `spacing` seconds apart from
    /// ``FetchProfile/launchLead`` before it opens (`deferredBy`: a device condition or the
    /// interval moved it later).
    case habit(LaunchHabit, spacing: Double, deferredBy: Deferral?)
    /// No launch for ``FetchProfile/dormancyDays``: no fetch until the user opens the app.
    case dormant(lastLaunch: Double)
    /// Outside the launch windows: ``FetchProfile/idleInterval`` after the last fetch or launch.
    case idle(interval: Double)
    /// Outside the launch windows, where `launchesPerDay` launches a day come at no set time
    /// (``LaunchHistory/launchesOutsideWindows(forDay:)``, at least the support a window needs):
    /// `interval` (a quiet window's spacing) after the last fetch or launch.
    case unpredicted(interval: Double, launchesPerDay: Double)
    /// Before the day's first launch: ``FetchProfile/launchLead`` before the early edge of the
    /// first launches (`edge`, seconds after local midnight;
    /// ``LaunchHistory/firstLaunchEdge(forDay:)``), nothing fetched or opened that day yet.
    case firstLaunch(edge: Double)
    /// Still before the day's first launch, fetched that day already: `spacing` after the last
    /// fetch while within the span of first launches (from `edge` to `late`, seconds after local
    /// midnight; ``LaunchHistory/firstLaunchSpan(forDay:)``).
    case firstLaunchSpan(edge: Double, late: Double, spacing: Double)
    /// Habits are not known yet: fetches are spread every ``FetchProfile/coldStartInterval``.
    case coldStart(observedDays: Int, interval: Double)
    /// A habit passed over: the track record needs more support than it has.
    case trackRecord(LaunchHabit, score: Double, required: Double)
    /// A habit passed over: the interval policy allows the next fetch only after its span.
    case interval(LaunchHabit, policy: FetchPolicy, next: Double)
    /// A habit passed over: the app-refresh request is not due before its span ends.
    case notYetDue(LaunchHabit, earliestBeginDate: Double)
    /// A habit passed over: a device condition lasts past its span.
    case condition(LaunchHabit, DeviceCondition, until: Double)
    /// Android: the periodic job, due every `period` seconds, run in the app's standby `bucket`
    /// (`deferredBy`: a condition, Doze or the bucket's job quota moved it later).
    case job(period: Double, bucket: StandbyBucket, deferredBy: Deferral?)
  }

  /// What moved a fetch later.
  public enum Deferral: Hashable, Sendable, Codable {
    case condition(DeviceCondition, until: Double)
    case interval(FetchPolicy, next: Double)
    /// The pending app-refresh request's `earliestBeginDate`.
    case earliestBeginDate(Double)
    /// Android: Doze held it to the maintenance window at that time.
    case doze(windowAt: Double)
    /// Android: the standby bucket's job quota was spent (per `window` seconds; nil: a day's one
    /// job in the restricted bucket).
    case quota(StandbyBucket, window: Double?, until: Double)
  }

  public var time: Double
  public var action: Action
  public var basis: Basis

  public init(time: Double, action: Action, basis: Basis) {
    self.time = time
    self.action = action
    self.basis = basis
  }
}

/// The system's background-fetch scheduler for one app (docs/platform-rules.md, background fetch): fetches through
/// the windows of the day in which the user's history says they open the app, more often in busy
/// windows, never more often than the interval policy allows, not in Low Power Mode, with
/// Background App Refresh off or offline, none for an app left unopened for days, and fewer for
/// an app with a poor track record.
///
/// **Rules** (numbers in ``FetchProfile``):
/// - No fetch at all when ``AppConfiguration/fetchDiagnostic`` says why (policy `never`, the
///   `fetch` background mode not declared), and none while the last launch is more than
///   ``FetchProfile/dormancyDays`` old.
/// - Each launch window (``LaunchHabit``) of the day is granted fetches from
///   ``FetchProfile/launchLead`` before it opens until it closes, on a grid through
///   ``FetchProfile/launchLead`` before its early edge (the launch it predicts), spaced by
///   ``FetchProfile/busyWindowInterval`` / its peak launches per day (one a day or more: the busy
///   spacing), at most ``FetchProfile/quietWindowInterval``: the next fetch is the first grid
///   point after the last fetch or launch (either leaves the content fresh); once the user opened
///   the app in a window it gets no more unless its history expects at least
///   ``FetchProfile/repeatLaunchSupport`` more launches a day after such a launch
///   (``LaunchHistory/launchesExpected(after:in:day:)``). A window whose launches came before its
///   early-edge fetch (``LaunchHabit/earlyShare``) gets a fetch as it opens too when that share of
///   the content's age is a spacing or more. The window must have
///   support ≥ ``FetchProfile/habitSupport`` / score, where the score is the
///   ``FetchTrackRecord``: a perfect app is served in windows seen one day in four, an app at
///   score 0.5 only in windows seen every other day, and with its fetches twice as far apart.
/// - Outside its windows the app gets a fetch ``FetchProfile/idleInterval`` after the last fetch
///   or launch, within the hours the user opens it (``LaunchHistory/activeHours``): a few a day
///   for an app used little. When the launches a day that came outside the windows of their day
///   (``LaunchHistory/launchesOutsideWindows(forDay:)``) reach the support a window needs
///   (``FetchProfile/habitSupport`` / score), the hours between the windows are served as a quiet
///   window: a fetch ``FetchProfile/quietWindowInterval`` / score after the last fetch or launch
///   (an app opened often at no set time).
/// - When nothing was fetched or opened on a day yet, a fetch comes ``FetchProfile/launchLead``
///   before the early edge of the days' first launches (``LaunchHistory/firstLaunchEdge(forDay:)``):
///   the day's first launch finds all that was published since the night before. Until the user
///   opens the app that day, another follows every ``FetchProfile/quietWindowInterval`` / score
///   through the span in which the day's first launch comes (``LaunchHistory/firstLaunchSpan(forDay:)``):
///   a user whose first launch comes at any hour of the morning does not find it hours old.
/// - Two fetches are at least the policy's interval apart (`custom`, floored at
///   ``FetchProfile/minimumInterval``; `minimum`: the floor). A fetch due earlier moves later
///   while still within its habit's span; otherwise the habit is passed over.
/// - A blocking ``DeviceCondition`` moves the fetch to its end while still within the span.
/// - While fewer than ``FetchProfile/minimumHistoryDays`` days are observed, fetches are spread
///   every ``FetchProfile/coldStartInterval`` (or the policy's interval when longer).
///
/// - With ``AppConfiguration/appRefresh`` (BGTaskScheduler), a fetch needs a pending app-refresh
///   request (``requests``) and comes no earlier than its `earliestBeginDate`; the fetch consumes
///   it. The legacy interval policy is then ignored.
///
/// Fetches therefore cluster before the user's launches: uneven over the day by design.
public struct FetchScheduler: Sendable {
  public let configuration: AppConfiguration
  public let profile: FetchProfile
  public internal(set) var history: LaunchHistory
  public internal(set) var trackRecord: FetchTrackRecord
  /// When the last fetch started, and the last launch.
  public internal(set) var lastFetch: Double?
  public internal(set) var lastLaunch: Double?
  /// The app's pending BGTaskScheduler requests.
  public internal(set) var requests: BackgroundTaskScheduler

  public init(configuration: AppConfiguration, profile: FetchProfile = .ios) {
    self.configuration = configuration
    self.profile = profile
    requests = BackgroundTaskScheduler(configuration: configuration)
    history = LaunchHistory(profile: profile)
    trackRecord = FetchTrackRecord(profile: profile)
  }

  /// Seconds two fetches are at least apart under the app's policy.
  public var interval: Double {
    if configuration.appRefresh == nil, case .custom(let seconds) = configuration.fetchPolicy { return max(seconds, profile.minimumInterval) }
    return profile.minimumInterval
  }

  /// Seconds between the fetches granted through `window`: the busy spacing divided by its peak
  /// launches per day (capped at one), at most the quiet spacing, never under the interval.
  public func windowSpacing(_ window: LaunchHabit) -> Double {
    let busy = profile.busyWindowInterval / min(1, max(window.peakDensity, 1e-9))
    return max(interval, min(profile.quietWindowInterval, busy))
  }

  /// The device clock's offset from UTC (seconds, east positive) when it differs from the last
  /// launch's: a phone that crossed time zones plans in the new local time before the user opens
  /// the app there. Nil: the last launch's.
  public var clockOffset: Int?

  /// The user opened the app at `time` (in time order).
  public mutating func observeLaunch(at time: Double, utcOffset: Int) {
    history.observe(launchAt: time, utcOffset: utcOffset)
    lastLaunch = time
  }

  /// The app submits a BGTaskScheduler request.
  public mutating func submit(_ request: TaskRequest, backgroundRefreshEnabled: Bool = true) throws(TaskSchedulerError) {
    try requests.submit(request, backgroundRefreshEnabled: backgroundRefreshEnabled)
  }

  /// A fetch started at `start` (it counts for the interval from then on, and consumes the
  /// pending app-refresh request).
  public mutating func fetchStarted(at start: Double) {
    lastFetch = start
    if let identifier = configuration.appRefresh?.identifier { _ = requests.take(identifier: identifier) }
  }

  /// The fetch that started at `start` ended at `end` with `outcome`.
  public mutating func fetchEnded(startedAt start: Double, at end: Double, outcome: FetchOutcome) {
    trackRecord.record(outcome, seconds: end - start, at: end)
  }

  /// The decisions from `time` on: opportunities passed over, up to and including the next fetch
  /// (if any within the day of `time` and the next), and when to plan again if there is none.
  /// Empty with `review` nil when the app gets no fetch at all.
  public mutating func plan(after time: Double, conditions: DeviceConditions) -> (decisions: [FetchDecision], review: Double?) {
    let planned = planFetch(after: time, conditions: conditions)
    // Nothing is planned past the day the app falls dormant.
    guard let lastLaunch, let fetch = planned.decisions.last, fetch.action == .fetch,
      fetch.time - lastLaunch > profile.dormancyDays * LocalTime.secondsPerDay
    else { return planned }
    let dormant = lastLaunch + profile.dormancyDays * LocalTime.secondsPerDay
    return (planned.decisions.dropLast() + [FetchDecision(time: max(time, dormant), action: .skip, basis: .dormant(lastLaunch: lastLaunch))], nil)
  }

  private mutating func planFetch(after time: Double, conditions: DeviceConditions) -> (decisions: [FetchDecision], review: Double?) {
    guard configuration.fetchDiagnostic == nil else { return ([], nil) }
    if let lastLaunch, time - lastLaunch > profile.dormancyDays * LocalTime.secondsPerDay {
      return ([FetchDecision(time: time, action: .skip, basis: .dormant(lastLaunch: lastLaunch))], nil)
    }
    var notBefore = (lastFetch ?? -.infinity) + interval
    var dueDate: Double?
    if configuration.appRefresh != nil {
      // Nothing until the app submits a request.
      guard let request = requests.appRefresh else { return ([], nil) }
      if let date = request.earliestBeginDate, date > notBefore {
        notBefore = date
        dueDate = date
      }
    }
    let earliest = max(time, notBefore)
    let offset = clockOffset ?? history.utcOffset
    let today = LocalTime(time, utcOffset: offset).day
    var decisions: [FetchDecision] = []
    // Outside its launch windows an app in use still gets a fetch now and then, in the hours of
    // the day the user opens it; as often as in a quiet window when many of its launches come
    // there, at no set time.
    let outside = history.launchesOutsideWindows(forDay: today)
    let score = trackRecord.score(at: time)
    let unpredicted = outside >= profile.habitSupport / max(score, 1e-9) * (1 - 1e-12)
    let idleInterval = unpredicted ? max(interval, profile.quietWindowInterval) / max(score, 0.05) : profile.idleInterval
    let idleBasis: FetchDecision.Basis =
      unpredicted ? .unpredicted(interval: idleInterval, launchesPerDay: outside) : .idle(interval: idleInterval)
    let refreshed = max(lastFetch ?? -.infinity, lastLaunch ?? -.infinity)
    var idle = max(earliest, refreshed + idleInterval)
    if let hours = history.activeHours {
      let local = LocalTime(idle, utcOffset: offset)
      if local.secondOfDay < hours.lowerBound {
        idle = LocalTime.time(day: local.day, secondOfDay: hours.lowerBound, utcOffset: offset)
      } else if local.secondOfDay > hours.upperBound {
        idle = LocalTime.time(day: local.day + 1, secondOfDay: hours.lowerBound, utcOffset: offset)
      }
    }
    if let (_, until) = conditions.blocking(at: idle) { idle = until }
    var early = (time: idle, basis: idleBasis)
    // The day's first launch finds all that was published since the night before: a fetch
    // launchLead before its early edge unless a fetch or launch came that day already, then
    // one every quiet spacing through the span of first launches until the user opens the app.
    for day in today...(today + 1) {
      guard let span = history.firstLaunchSpan(forDay: day) else { continue }
      let midnight = LocalTime.time(day: day, secondOfDay: 0, utcOffset: offset)
      guard (lastLaunch ?? -.infinity) < midnight else { continue }
      let opens = LocalTime.time(day: day, secondOfDay: max(0, span.lowerBound - profile.launchLead), utcOffset: offset)
      let closes = LocalTime.time(day: day, secondOfDay: span.upperBound, utcOffset: offset)
      var at = opens
      var basis = FetchDecision.Basis.firstLaunch(edge: span.lowerBound)
      if refreshed >= midnight {
        // Fetched today already: the next of the span's fetches, if the span is still open.
        let spacing = max(interval, profile.quietWindowInterval) / max(score, 0.05)
        at = max(opens, refreshed + spacing)
        guard at <= closes else { continue }
        basis = .firstLaunchSpan(edge: span.lowerBound, late: span.upperBound, spacing: spacing)
      }
      if at < time {
        // The edge passed with nothing fetched (the plan was made late): now, if still in the span.
        guard time <= closes else { continue }
        at = time
      }
      at = max(at, earliest)
      if let (_, until) = conditions.blocking(at: at) { at = until }
      if at < early.time { early = (at, basis) }
      break
    }
    func idleFetch(before: Double) -> (decisions: [FetchDecision], review: Double?)? {
      guard early.time < before, !history.isLearning(day: LocalTime(early.time, utcOffset: offset).day) else { return nil }
      return (decisions.filter { $0.time <= early.time } + [FetchDecision(time: early.time, action: .fetch, basis: early.basis)], nil)
    }
    for day in today...(today + 1) {
      let habits = history.habits(forDay: day)
      if history.isLearning(day: day) {
        let spacing = max(profile.coldStartInterval, interval)
        var at = max(earliest, (lastFetch ?? time - spacing) + spacing)
        if let blocked = conditions.blocking(at: at) { at = blocked.until }
        let basis = FetchDecision.Basis.coldStart(observedDays: history.observedDays(before: day), interval: spacing)
        return (decisions + [FetchDecision(time: at, action: .fetch, basis: basis)], nil)
      }
      for habit in habits {
        let opens = LocalTime.time(day: day, secondOfDay: habit.start - profile.launchLead, utcOffset: offset)
        let end = LocalTime.time(day: day, secondOfDay: habit.end, utcOffset: offset)
        guard end > time else { continue }
        // Once the user opened the app in a window, it is served on only while the history
        // expects more launches in it after such a launch (not for a habit of one a day).
        if let lastLaunch, lastLaunch >= opens, lastLaunch < end,
          history.launchesExpected(after: LocalTime(lastLaunch, utcOffset: offset).secondOfDay, in: habit, day: day) < profile.repeatLaunchSupport
        { continue }
        // A poor track record spreads the window's fetches out in proportion.
        let spacing = windowSpacing(habit) / max(trackRecord.score(at: time), 0.05)
        // Fetches fall on a grid through the window, one of them launchLead before its early
        // edge (the launch the habit predicts); the next is the first grid point after the last
        // fetch or launch (either leaves the content fresh), once the window is open.
        let anchor = LocalTime.time(day: day, secondOfDay: habit.earlyEdge - profile.launchLead, utcOffset: offset)
        let from = max(time, anchor, lastFetch.map { $0 + 1 } ?? -.infinity, lastLaunch.map { $0 + 1 } ?? -.infinity)
        var target = anchor + ((from - anchor) / spacing).rounded(.up) * spacing
        // When launches came before the early edge's fetch (its early share) and the content
        // would then be so old that this share of its age is a spacing or more, the window gets
        // a fetch as it opens too.
        if time <= opens, opens < anchor, (opens - refreshed) * habit.earlyShare >= spacing { target = opens }
        guard target < end else { continue }
        let opportunity = target
        let score = trackRecord.score(at: opportunity)
        let required = profile.habitSupport / max(score, 1e-9)
        guard habit.support >= required * (1 - 1e-12) else {
          decisions.append(FetchDecision(time: opportunity, action: .skip, basis: .trackRecord(habit, score: score, required: required)))
          continue
        }
        var at = opportunity
        var deferral: FetchDecision.Deferral?
        if at < earliest {
          guard earliest < end else {
            let basis: FetchDecision.Basis = dueDate == earliest
              ? .notYetDue(habit, earliestBeginDate: earliest) : .interval(habit, policy: configuration.fetchPolicy, next: earliest)
            decisions.append(FetchDecision(time: opportunity, action: .skip, basis: basis))
            continue
          }
          at = earliest
          deferral = dueDate == earliest ? .earliestBeginDate(earliest) : .interval(configuration.fetchPolicy, next: earliest)
        }
        if let (condition, until) = conditions.blocking(at: at) {
          guard until < end else {
            decisions.append(FetchDecision(time: at, action: .skip, basis: .condition(habit, condition, until: until)))
            continue
          }
          at = until
          deferral = .condition(condition, until: until)
        }
        if let earlier = idleFetch(before: at) { return earlier }
        decisions.append(FetchDecision(time: at, action: .fetch, basis: .habit(habit, spacing: spacing, deferredBy: deferral)))
        return (decisions, nil)
      }
    }
    let review = LocalTime.time(day: today + 2, secondOfDay: 0, utcOffset: offset)
    if let earlier = idleFetch(before: review) { return earlier }
    return (decisions, review)
  }
}

extension FetchDecision {
  /// The decision in a sentence.
  public var detail: String {
    func clock(_ second: Double) -> String {
      let minutes = Int((second / 60).rounded(.down))
      let h = minutes / 60
      let m = minutes % 60
      return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
    func habitText(_ h: LaunchHabit) -> String {
      let kind = h.dayKind == .all ? "" : " on \(h.dayKind.rawValue)s"
      return "the launch window \(clock(h.start))–\(clock(h.end))\(kind) (\(Self.number(h.support)) launches/day, \(h.launches) seen)"
    }
    switch basis {
    case .habit(let h, let spacing, let deferral):
      var text = "fetch in " + habitText(h).dropLast() + "; a fetch every \(FetchEvent.duration(spacing)))"
      switch deferral {
      case .condition(let c, _)?: text += "; deferred until \(c.ending)"
      case .interval(let policy, _)?: text += "; moved later by the \(policy) interval"
      case .earliestBeginDate?: text += "; moved later to the request's earliestBeginDate"
      case .doze?, .quota?, nil: break
      }
      return text
    case .job(let period, let bucket, let deferral):
      var text = "the periodic job (every \(FetchEvent.duration(period))), standby bucket \(bucket.rawValue)"
      switch deferral {
      case .condition(let c, _)?: text += "; deferred until \(c.ending)"
      case .doze?: text += "; held by Doze until a maintenance window"
      case .quota(let b, let window, _)?:
        text += window.map { "; deferred: the \(b.rawValue) bucket's 10 min of jobs per \(FetchEvent.duration($0)) were spent" }
          ?? "; deferred: the \(b.rawValue) bucket runs one job a day"
      case .interval?, .earliestBeginDate?, nil: break
      }
      return text
    case .idle(let interval):
      return "outside the launch windows: a fetch \(FetchEvent.duration(interval)) after the last fetch or launch"
    case .firstLaunch(let edge):
      return "before the day's first launch (its early edge \(clock(edge))): nothing fetched since the night before"
    case .firstLaunchSpan(let edge, let late, let spacing):
      return "before the day's first launch, which the history puts between \(clock(edge)) and \(clock(late)): a fetch \(FetchEvent.duration(spacing)) after the last fetch"
    case .unpredicted(let interval, let launches):
      return "outside the launch windows, where \(Self.number(launches)) launches/day come at no set time: a fetch \(FetchEvent.duration(interval)) after the last fetch or launch"
    case .dormant(let lastLaunch):
      return "no fetch: the app was last opened \(FetchEvent.duration(time - lastLaunch)) ago"
    case .coldStart(let days, let interval):
      return "no launch habits yet (\(days) day\(days == 1 ? "" : "s") observed): fetches spread every \(RuntimeEvent.seconds(interval))"
    case .trackRecord(let h, let score, let required):
      return "passed over \(habitText(h)): the app's track record (score \(Self.number(score))) needs \(Self.number(required)) launches/day"
    case .interval(let h, let policy, _):
      return "passed over \(habitText(h)): the \(policy) interval allows the next fetch only after it"
    case .notYetDue(let h, _):
      return "passed over \(habitText(h)): the app-refresh request's earliestBeginDate comes after it"
    case .condition(let h, let c, _):
      return "passed over \(habitText(h)): \(c.sentence) past it"
    }
  }

  /// Two decimals.
  static func number(_ x: Double) -> String {
    let hundredths = Int((x * 100).rounded())
    let frac = hundredths % 100
    return "\(hundredths / 100)." + (frac < 10 ? "0" : "") + "\(frac)"
  }
}

extension FetchScheduler {
  /// What a scheduler holds besides its configuration and profile.
  struct Snapshot: Codable, Sendable, Hashable {
    var history: LaunchHistory.Snapshot
    var trackRecord: FetchTrackRecord.Snapshot
    var lastFetch: Double?
    var lastLaunch: Double?
    var pendingRequests: [TaskRequest]
    var clockOffset: Int?
  }

  var snapshot: Snapshot {
    Snapshot(
      history: history.snapshot, trackRecord: trackRecord.snapshot, lastFetch: lastFetch, lastLaunch: lastLaunch,
      pendingRequests: requests.pending, clockOffset: clockOffset)
  }

  init(restoring snapshot: Snapshot, configuration: AppConfiguration, profile: FetchProfile) {
    self.init(configuration: configuration, profile: profile)
    history = LaunchHistory(restoring: snapshot.history, profile: profile)
    trackRecord = FetchTrackRecord(restoring: snapshot.trackRecord, profile: profile)
    lastFetch = snapshot.lastFetch
    lastLaunch = snapshot.lastLaunch
    requests.pending = snapshot.pendingRequests
    clockOffset = snapshot.clockOffset
  }
}
