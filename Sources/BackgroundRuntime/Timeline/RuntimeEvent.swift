/// One step of the app's life on the virtual clock.
public struct RuntimeEvent: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable {
    /// Launched (from not running) or resumed (from suspended) into the background.
    case wake
    /// An event reached an app already running in the background: no new wake.
    case deliveredWhileRunning
    /// An event reached the app on screen: delivered without a wake.
    case deliveredInForeground
    /// An event the app never got (force-quit: no relaunch for fetch and notifications).
    case lost
    case handlerStarted
    case handlerFinished
    case taskBegan
    case taskEnded
    /// A background task raised the budget.
    case budgetExtended
    /// Expiration handlers of open tasks were called, shortly before the budget ran out.
    case expiration
    case suspended
    /// The watchdog killed the app: work still running when its time ran out.
    case terminated
    case foregroundStarted
    case foregroundEnded
    case forceQuit
  }

  /// Seconds since the Unix epoch.
  public var time: Double
  public var kind: Kind
  /// The launch reason of the event or wake concerned, if any.
  public var reason: LaunchReason?
  public var stateBefore: AppState
  public var stateAfter: AppState
  /// Seconds of background time left, when the app is in the background (never negative).
  public var budgetRemaining: Double?
  /// The facts behind ``detail`` (kept as values: the sentence is made only when asked for).
  public var facts: Facts
  /// Whose lifecycle the app lives by (the words of ``detail`` follow it).
  public var lifecycle: RuntimeProfile.Lifecycle

  /// The numbers and names an event's explanation needs.
  public enum Facts: Hashable, Sendable, Codable {
    case wake(label: String, budget: Double)
    case delivered(label: String, budget: Double)
    case label(String)
    case work(Double)
    case taskEnded(byExpirationHandler: Bool)
    case budgetExtended(from: Double, to: Double, profile: String, limit: Double)
    case expiration(openTasks: Int, lead: Double)
    case terminated(handlers: Int, tasks: Int)
    /// The system stopped the app, unused this many seconds (a vendor's battery manager).
    case deepSleep(unusedFor: Double)
    /// An event that did not reach an app the system stopped.
    case lostInDeepSleep(label: String)
    case none
  }

  public init(
    time: Double, kind: Kind, reason: LaunchReason?, stateBefore: AppState, stateAfter: AppState, budgetRemaining: Double?,
    facts: Facts, lifecycle: RuntimeProfile.Lifecycle = .ios
  ) {
    self.lifecycle = lifecycle
    self.time = time
    self.kind = kind
    self.reason = reason
    self.stateBefore = stateBefore
    self.stateAfter = stateAfter
    self.budgetRemaining = budgetRemaining
    self.facts = facts
  }

  /// What happened, in a sentence.
  public var detail: String {
    let what = reason?.rawValue ?? "an"
    func labelled(_ label: String) -> String { label.isEmpty ? "" : " (\(label))" }
    if lifecycle == .android, let sentence = androidDetail { return sentence }
    switch (kind, facts) {
    case (.wake, .wake(let label, let budget)):
      return "\(stateBefore == .notRunning ? "launched" : "resumed") in the background by a \(what) event\(labelled(label)) with \(Self.seconds(budget)) of background time"
    case (.deliveredWhileRunning, .delivered(let label, let budget)):
      return "\(what) event\(labelled(label)) delivered to the running app; budget at least \(Self.seconds(budget))"
    case (.deliveredInForeground, .label(let label)): return "\(what) event\(labelled(label)) delivered on screen, no wake"
    case (.lost, .label(let label)):
      return "\(what) event\(labelled(label)) not delivered: the app was force-quit (no relaunch until the user opens it)"
    case (.handlerStarted, .work(let work)): return "handler started: \(Self.seconds(work)) of work"
    case (.handlerStarted, _): return "handler started"
    case (.handlerFinished, _): return reason == .location ? "handler returned" : "handler called its completion handler"
    case (.taskBegan, .work(let length)): return "beginBackgroundTask: \(Self.seconds(length)) of work"
    case (.taskBegan, _): return "beginBackgroundTask"
    case (.taskEnded, .taskEnded(let byExpiration)):
      return byExpiration ? "the expiration handler ended the background task" : "the app ended its background task"
    case (.budgetExtended, .budgetExtended(let from, let to, let profile, let limit)):
      return "budget raised from \(Self.seconds(from)) to \(Self.seconds(to)) (the \(profile) task limit is \(Self.seconds(limit)) from the wake)"
    case (.expiration, .expiration(let open, let lead)):
      return "\(open == 1 ? "a background task is" : "\(open) background tasks are") still open \(Self.seconds(lead)) before the budget ends: expiration handler called"
    case (.suspended, _): return "no work left: suspended"
    case (.terminated, .terminated(let handlers, let tasks)):
      return "watchdog: the background time ran out with " + Self.work(handlers, tasks) + "; the next event launches the app again"
    case (.foregroundStarted, .label(let label)):
      return stateBefore == .notRunning ? "launched by the user\(labelled(label))" : "the user opened the app\(labelled(label))"
    case (.foregroundEnded, _): return "the user left the app"
    case (.forceQuit, .deepSleep(let unused)):
      return "the battery manager put the app into deep sleep, unused for \(Self.days(unused)): nothing is delivered until it is opened again"
    case (.lost, .lostInDeepSleep(let label)):
      return "\(reason?.rawValue ?? "event")\(labelled(label)) not delivered: the app is in deep sleep until the user opens it"
    case (.forceQuit, _): return "the user force-quit the app: fetches and notifications are not delivered until it is opened again"
    default: return kind.rawValue
    }
  }

  /// "a handler still working and 2 background tasks still open".
  static func work(_ handlers: Int, _ tasks: Int) -> String {
    var what: [String] = []
    if handlers > 0 { what.append(handlers == 1 ? "a handler still working" : "\(handlers) handlers still working") }
    if tasks > 0 { what.append(tasks == 1 ? "a background task still open" : "\(tasks) background tasks still open") }
    return what.joined(separator: " and ")
  }

  /// The entry point an Android app is woken through for a reason.
  static func androidEntry(_ reason: LaunchReason?) -> String {
    switch reason {
    case .location: "a geofence transition broadcast to the app's receiver"
    case .remoteNotification: "an FCM message to onMessageReceived"
    case .fetch: "a WorkManager job (background fetch)"
    case .user, nil: "the user"
    }
  }

  /// The sentence in Android's words, where they differ from iOS's.
  private var androidDetail: String? {
    func labelled(_ label: String) -> String { label.isEmpty ? "" : " (\(label))" }
    switch (kind, facts) {
    case (.wake, .wake(let label, let budget)):
      let process = stateBefore == .notRunning ? "the process started" : "the cached process"
      return "\(Self.androidEntry(reason))\(labelled(label)): \(process), \(Self.seconds(budget)) to finish"
    case (.deliveredWhileRunning, .delivered(let label, let budget)):
      return "\(Self.androidEntry(reason))\(labelled(label)) to the running app; at least \(Self.seconds(budget)) to finish"
    case (.lost, .label(let label)):
      return "\(Self.androidEntry(reason))\(labelled(label)) not delivered: the app is force-stopped (no broadcasts until the user opens it)"
    case (.taskBegan, .work(let length)):
      return reason == .location ? "goAsync(): \(Self.seconds(length)) of work past onReceive" : "background work: \(Self.seconds(length))"
    case (.budgetExtended, .budgetExtended(let from, let to, _, let limit)):
      return "goAsync() keeps the broadcast alive: \(Self.seconds(from)) raised to \(Self.seconds(to)) (the background broadcast limit is \(Self.seconds(limit)) from the wake)"
    case (.suspended, _): return "no work left: the process is cached"
    case (.terminated, .terminated(let handlers, let tasks)):
      let limit: String
      switch reason {
      case .location: limit = "ANR: the broadcast receiver ran past its limit"
      case .remoteNotification: limit = "onMessageReceived ran past its window"
      case .fetch: limit = "the job ran past its 10-minute limit"
      default: limit = "the time ran out"
      }
      return "\(limit) with \(Self.work(handlers, tasks)): the process was killed; the next event starts it again"
    case (.forceQuit, .deepSleep(let unused)):
      return "the battery manager put the app into deep sleep, unused for \(Self.days(unused)): no broadcasts, messages or jobs until it is opened again"
    case (.lost, .lostInDeepSleep(let label)):
      return "\(Self.androidEntry(reason))\(labelled(label)) not delivered: the battery manager keeps the app in deep sleep (no broadcasts until the user opens it)"
    case (.forceQuit, _): return "the user force-stopped the app: no broadcasts, messages or jobs until it is opened again"
    default: return nil
    }
  }

  /// Whole days, or hours under two days: "16 days", "30 h".
  static func days(_ s: Double) -> String {
    s >= 172_800 ? "\(Int((s / 86_400).rounded())) days" : "\(Int((s / 3_600).rounded())) h"
  }

  /// Seconds with at most one decimal: "10 s", "3.7 s".
  static func seconds(_ s: Double) -> String {
    let tenths = Int((s * 10).rounded())
    return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
  }
}

/// Totals of a runtime's timeline.
public struct RuntimeSummary: Hashable, Sendable, Codable {
  /// Wakes (launches and resumes into the background) by reason.
  public var wakes: [LaunchReason: Int] = [:]
  /// Seconds spent running in the background, by the reason of the wake.
  public var backgroundSeconds: [LaunchReason: Double] = [:]
  public var terminations = 0
  public var expirations = 0
  /// Events never delivered (force-quit), by reason.
  public var lost: [LaunchReason: Int] = [:]
  /// Events whose handler was cut short by a termination.
  public var interrupted = 0
  /// Foreground sessions and seconds on screen.
  public var sessions = 0
  public var foregroundSeconds = 0.0
  public init() {}
}
