/// How often an app asks to be woken for background fetch
/// (`setMinimumBackgroundFetchInterval`, docs/platform-rules.md, background fetch).
public enum FetchPolicy: Hashable, Sendable, Codable, CustomStringConvertible {
  /// No fetches at all: the default of every app.
  case never
  /// As often as the system decides (`UIApplicationBackgroundFetchIntervalMinimum`).
  case minimum
  /// Never more often than every `interval` seconds; after that, the system decides.
  case custom(interval: Double)

  public var description: String {
    switch self {
    case .never: return "never"
    case .minimum: return "minimum"
    case .custom(let interval): return "custom:\(Int(interval.rounded()))"
    }
  }

  /// Parses `never`, `minimum` or `custom:SECONDS` (seconds a whole number > 0); nil otherwise.
  public init?(text: String) {
    switch text {
    case "never": self = .never
    case "minimum": self = .minimum
    default:
      guard text.hasPrefix("custom:"), let seconds = Int(text.dropFirst("custom:".count)), seconds > 0 else { return nil }
      self = .custom(interval: Double(seconds))
    }
  }
}

/// A background mode an app declares in its Info.plist (`UIBackgroundModes`).
public enum BackgroundMode: String, Hashable, Sendable, CaseIterable {
  case location
  case fetch
  case remoteNotification = "remote-notification"
  case processing
}

/// How an app uses `BGAppRefreshTask` (the modern API) instead of the fetch interval: it submits
/// a `BGAppRefreshTaskRequest` for `identifier` with `earliestBeginDate` `earliestBeginAfter`
/// seconds ahead when the user opens it and at the end of each refresh.
public struct AppRefreshUse: Hashable, Sendable {
  public var identifier: String
  public var earliestBeginAfter: Double

  public init(identifier: String, earliestBeginAfter: Double) {
    self.identifier = identifier
    self.earliestBeginAfter = earliestBeginAfter
  }
}

/// What an app declares and asks for, mirroring its Info.plist and its launch-time calls: the
/// background modes, the fetch interval policy, the task identifiers it may schedule
/// (`BGTaskSchedulerPermittedIdentifiers`) and its use of app-refresh tasks.
public struct AppConfiguration: Hashable, Sendable {
  public var backgroundModes: Set<BackgroundMode>
  public var fetchPolicy: FetchPolicy
  public var permittedTaskIdentifiers: Set<String>
  /// When set, refreshes come from BGTaskScheduler requests and ``fetchPolicy`` is ignored (an
  /// app that registers task identifiers cannot use the legacy fetch API).
  public var appRefresh: AppRefreshUse?

  public init(
    backgroundModes: Set<BackgroundMode> = [], fetchPolicy: FetchPolicy = .never, permittedTaskIdentifiers: Set<String> = [],
    appRefresh: AppRefreshUse? = nil
  ) {
    self.backgroundModes = backgroundModes
    self.fetchPolicy = fetchPolicy
    self.permittedTaskIdentifiers = permittedTaskIdentifiers
    self.appRefresh = appRefresh
  }

  /// Why this app gets no background fetch, when it gets none; nil when fetches may happen.
  /// (With ``appRefresh``, a refused request is reported when it is submitted.)
  public var fetchDiagnostic: String? {
    if appRefresh != nil { return nil }
    if fetchPolicy == .never { return "the fetch interval policy is never (the default): the system does not fetch" }
    if !backgroundModes.contains(.fetch) {
      return "the fetch policy is \(fetchPolicy) but UIBackgroundModes does not declare \"fetch\": the system does not fetch"
    }
    return nil
  }
}
