/// One step of the app's life on the virtual clock.
public struct RuntimeEvent: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable {
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
  /// What happened, in a sentence.
  public var detail: String

  public init(
    time: Double, kind: Kind, reason: LaunchReason?, stateBefore: AppState, stateAfter: AppState, budgetRemaining: Double?,
    detail: String
  ) {
    self.time = time
    self.kind = kind
    self.reason = reason
    self.stateBefore = stateBefore
    self.stateAfter = stateAfter
    self.budgetRemaining = budgetRemaining
    self.detail = detail
  }
}

/// Totals of a runtime's timeline.
public struct RuntimeSummary: Hashable, Sendable {
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
