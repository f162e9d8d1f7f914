/// A request to BGTaskScheduler: run the app's task with this identifier, not before
/// `earliestBeginDate` ("not before", never a promise; docs/platform-rules.md, background fetch).
public struct TaskRequest: Hashable, Sendable, Codable {
  public enum Kind: Hashable, Sendable, Codable {
    /// `BGAppRefreshTaskRequest`: a short refresh, scheduled like background fetch.
    case appRefresh
    /// `BGProcessingTaskRequest`: longer work, typically while charging and idle.
    case processing(requiresNetwork: Bool, requiresExternalPower: Bool)
  }

  public var identifier: String
  public var kind: Kind
  /// Seconds since the Unix epoch, or nil: as soon as the system sees fit.
  public var earliestBeginDate: Double?

  public init(identifier: String, kind: Kind, earliestBeginDate: Double? = nil) {
    self.identifier = identifier
    self.kind = kind
    self.earliestBeginDate = earliestBeginDate
  }

  public var isAppRefresh: Bool { kind == .appRefresh }
}

/// Why BGTaskScheduler refused a request (`BGTaskScheduler.Error.Code`).
public enum TaskSchedulerError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
  /// `.unavailable`: Background App Refresh is off (or the app runs where tasks are unavailable).
  case unavailable
  /// `.tooManyPendingTaskRequests`: already `limit` pending requests of this kind.
  case tooManyPendingTaskRequests(appRefresh: Bool, limit: Int)
  /// `.notPermitted`: the identifier is not in `BGTaskSchedulerPermittedIdentifiers`, or the
  /// background mode the kind needs (`fetch`, `processing`) is not declared.
  case notPermitted(identifier: String, missing: String)

  public var description: String {
    switch self {
    case .unavailable: return "BGTaskScheduler error unavailable: Background App Refresh is off"
    case .tooManyPendingTaskRequests(let refresh, let limit):
      return "BGTaskScheduler error tooManyPendingTaskRequests: at most \(limit) pending \(refresh ? "app refresh" : "processing") request\(limit == 1 ? "" : "s")"
    case .notPermitted(let identifier, let missing):
      return "BGTaskScheduler error notPermitted for \"\(identifier)\": \(missing)"
    }
  }
}

/// The app's pending BGTaskScheduler requests, with the system's rules: at most
/// ``maximumPendingRefreshRequests`` app-refresh and ``maximumPendingProcessingRequests``
/// processing requests pending; submitting an identifier already pending replaces that request;
/// identifiers must be permitted and the kind's background mode declared; nothing while
/// Background App Refresh is off.
public struct BackgroundTaskScheduler: Hashable, Sendable {
  /// Apple: "There can be a total of 1 refresh task and 10 processing tasks scheduled at any time."
  public static let maximumPendingRefreshRequests = 1
  public static let maximumPendingProcessingRequests = 10

  public let configuration: AppConfiguration
  /// In submission order.
  public internal(set) var pending: [TaskRequest] = []

  public init(configuration: AppConfiguration) { self.configuration = configuration }

  /// Submits `request` (`BGTaskScheduler.submit`).
  public mutating func submit(_ request: TaskRequest, backgroundRefreshEnabled: Bool = true) throws(TaskSchedulerError) {
    guard configuration.permittedTaskIdentifiers.contains(request.identifier) else {
      throw .notPermitted(identifier: request.identifier, missing: "not in BGTaskSchedulerPermittedIdentifiers")
    }
    let mode: BackgroundMode = request.isAppRefresh ? .fetch : .processing
    guard configuration.backgroundModes.contains(mode) else {
      throw .notPermitted(identifier: request.identifier, missing: "UIBackgroundModes does not declare \"\(mode.rawValue)\"")
    }
    guard backgroundRefreshEnabled else { throw .unavailable }
    let others = pending.filter { $0.identifier != request.identifier }
    let sameKind = others.lazy.filter { $0.isAppRefresh == request.isAppRefresh }.count
    let limit = request.isAppRefresh ? Self.maximumPendingRefreshRequests : Self.maximumPendingProcessingRequests
    guard sameKind < limit else { throw .tooManyPendingTaskRequests(appRefresh: request.isAppRefresh, limit: limit) }
    pending = others + [request]
  }

  /// Cancels the request with `identifier`, if pending.
  public mutating func cancel(identifier: String) { pending.removeAll { $0.identifier == identifier } }

  public mutating func cancelAll() { pending.removeAll() }

  /// The pending app-refresh request, if any.
  public var appRefresh: TaskRequest? { pending.first { $0.isAppRefresh } }

  /// Removes and returns the request with `identifier` (the system launches its task).
  public mutating func take(identifier: String) -> TaskRequest? {
    guard let k = pending.firstIndex(where: { $0.identifier == identifier }) else { return nil }
    return pending.remove(at: k)
  }
}
