/// One decision of the system about background fetch, with the facts that explain it.
public struct FetchDecision: Hashable, Sendable {
  public enum Action: String, Hashable, Sendable {
    /// The system wakes the app for a fetch at ``FetchDecision/time``.
    case fetch
    /// The system passes over an opportunity.
    case skip
  }

  /// Why.
  public enum Basis: Hashable, Sendable {
    /// Placed ``FetchProfile/launchLead`` before a habit's early edge (`deferredBy`: a device
    /// condition or the interval moved it later, until `deferredUntil`).
    case habit(LaunchHabit, deferredBy: Deferral?)
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
  }

  /// What moved a fetch later.
  public enum Deferral: Hashable, Sendable {
    case condition(DeviceCondition, until: Double)
    case interval(FetchPolicy, next: Double)
    /// The pending app-refresh request's `earliestBeginDate`.
    case earliestBeginDate(Double)
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

/// The system's background-fetch scheduler for one app (docs/platform-rules.md, background fetch): fetches shortly before
/// the launches the user's habits predict, never more often than the interval policy allows, not
/// in Low Power Mode, with Background App Refresh off or offline, and fewer for an app with a
/// poor track record.
///
/// **Rules** (numbers in ``FetchProfile``):
/// - No fetch at all when ``AppConfiguration/fetchDiagnostic`` says why (policy `never`, the
///   `fetch` background mode not declared).
/// - Each ``LaunchHabit`` of the day gets one fetch at its early edge minus
///   ``FetchProfile/launchLead``, unless the user already opened the app or a fetch already ran
///   since then. The habit must have support ≥ ``FetchProfile/habitSupport`` / score, where the
///   score is the ``FetchTrackRecord``: a perfect app spends fetches on habits seen one day in four,
///   an app at score 0.5 only on habits seen every other day.
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
  public private(set) var history: LaunchHistory
  public private(set) var trackRecord: FetchTrackRecord
  /// When the last fetch started, and the last launch.
  public private(set) var lastFetch: Double?
  public private(set) var lastLaunch: Double?
  /// The app's pending BGTaskScheduler requests.
  public private(set) var requests: BackgroundTaskScheduler

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
    guard configuration.fetchDiagnostic == nil else { return ([], nil) }
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
    let offset = history.utcOffset
    let today = LocalTime(time, utcOffset: offset).day
    var decisions: [FetchDecision] = []
    for day in today...(today + 1) {
      let habits = history.habits(forDay: day)
      if habits.isEmpty {
        let spacing = max(profile.coldStartInterval, interval)
        var at = max(earliest, (lastFetch ?? time - spacing) + spacing)
        if let blocked = conditions.blocking(at: at) { at = blocked.until }
        let basis = FetchDecision.Basis.coldStart(observedDays: history.observedDays(before: day), interval: spacing)
        return (decisions + [FetchDecision(time: at, action: .fetch, basis: basis)], nil)
      }
      for habit in habits {
        let target = LocalTime.time(day: day, secondOfDay: habit.earlyEdge - profile.launchLead, utcOffset: offset)
        let end = LocalTime.time(day: day, secondOfDay: habit.end, utcOffset: offset)
        guard end > time else { continue }
        // Already served: the user opened the app, or a fetch ran, since the fetch point.
        if let lastLaunch, lastLaunch >= target { continue }
        if let lastFetch, lastFetch >= target { continue }
        let opportunity = max(target, time)
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
        decisions.append(FetchDecision(time: at, action: .fetch, basis: .habit(habit, deferredBy: deferral)))
        return (decisions, nil)
      }
    }
    let review = LocalTime.time(day: today + 2, secondOfDay: 0, utcOffset: offset)
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
      return "the launch habit around \(clock(h.median))\(kind) (\(Self.number(h.support)) launches/day, \(h.launches) seen)"
    }
    switch basis {
    case .habit(let h, let deferral):
      var text = "fetch before \(habitText(h))"
      switch deferral {
      case .condition(let c, _)?: text += "; deferred until \(c.ending)"
      case .interval(let policy, _)?: text += "; moved later by the \(policy) interval"
      case .earliestBeginDate?: text += "; moved later to the request's earliestBeginDate"
      case nil: break
      }
      return text
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
