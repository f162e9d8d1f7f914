/// Where the app is in its lifecycle.
public enum AppState: String, Hashable, Sendable, Codable {
  /// Not in memory: the next event launches it.
  case notRunning
  /// In memory, not running: the next event resumes it.
  case suspended
  /// Running in the background, on a budget.
  case background
  /// On screen: events are delivered without a wake, no budget applies.
  case foreground
}

/// Why the app was launched or woken.
public enum LaunchReason: String, Hashable, Sendable, CaseIterable, Codable, CodingKeyRepresentable {
  /// A region event or a significant location change.
  case location
  /// A remote (push) notification with `content-available`.
  case remoteNotification
  /// A background fetch.
  case fetch
  /// The user opened it.
  case user
}

/// What the app does when an event reaches it (the CLI's scenario gives one per event kind).
public struct HandlerBehaviour: Hashable, Sendable {
  /// Seconds of work before the handler returns (for fetch and notifications: calls its
  /// completion handler).
  public var work: Double
  /// When set, the handler begins a background task at its start and ends it this many seconds
  /// later.
  public var backgroundTask: Double?
  /// Whether the task's expiration handler ends the task (a well-behaved app does); when not, a
  /// task still open when the budget runs out gets the app terminated.
  public var endsTaskOnExpiration: Bool
  /// Each duration is multiplied by a factor drawn uniformly from 1 − variation … 1 + variation
  /// (seeded). 0: exact.
  public var variation: Double
  /// For fetch and notification handlers: the fraction of calls whose completion reports
  /// `failed` (seeded draws; 0: never).
  public var failureRate: Double

  public init(work: Double, backgroundTask: Double? = nil, endsTaskOnExpiration: Bool = true, variation: Double = 0, failureRate: Double = 0) {
    self.work = work
    self.backgroundTask = backgroundTask
    self.endsTaskOnExpiration = endsTaskOnExpiration
    self.variation = variation
    self.failureRate = failureRate
  }

  /// Returns at once.
  public static let instant = HandlerBehaviour(work: 0)
}

/// Something that happens to the app from outside.
public struct SystemEvent: Hashable, Sendable, Codable {
  public enum Kind: Hashable, Sendable, Codable {
    /// A location event (region or significant change) that wakes the app.
    case location
    /// A remote notification delivered to the app (`content-available`).
    case remoteNotification
    /// A background fetch the system grants.
    case fetch
    /// The user opens the app and uses it for this many seconds.
    case userSession(duration: Double)
    /// The user force-quits the app from the app switcher.
    case forceQuit
    /// The system stops an app left unused this many seconds, as a force-stop (a vendor's
    /// battery manager: ``AndroidPowerRules/deepSleepAfter``).
    case deepSleep(unusedFor: Double)
  }

  /// Seconds since the Unix epoch.
  public var time: Double
  public var kind: Kind
  /// What it is, for the timeline ("enter plaza", "handoff LTE …").
  public var label: String

  public init(time: Double, kind: Kind, label: String = "") {
    self.time = time
    self.kind = kind
    self.label = label
  }

  /// The launch reason this event gives, if it launches or wakes the app.
  public var reason: LaunchReason? {
    switch kind {
    case .location: return .location
    case .remoteNotification: return .remoteNotification
    case .fetch: return .fetch
    case .userSession: return .user
    case .forceQuit, .deepSleep: return nil
    }
  }
}
