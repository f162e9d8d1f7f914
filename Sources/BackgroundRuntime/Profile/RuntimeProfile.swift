/// The background-execution rules of a platform: every number the ``AppRuntime`` uses, named
/// (docs/platform-rules.md, background execution; LMPG = Apple *Location and Maps Programming Guide*).
public struct RuntimeProfile: Hashable, Sendable {
  /// Short name used in explanations.
  public var name: String
  /// Seconds an app woken by a location event may run (LMPG: "about 10 seconds").
  public var locationWakeBudget: Double
  /// Seconds a fetch or remote-notification handler has to call its completion handler before
  /// the app is terminated (Apple docs of `performFetchWithCompletionHandler` and
  /// `didReceiveRemoteNotification`: 30 seconds).
  public var handlerDeadline: Double
  /// Seconds of background time, counted from the wake, that background tasks can extend the
  /// budget to (`beginBackgroundTask`): ios ≈ 30 s (DTS forum 391799), ios7 180 s, ios6 600 s.
  public var backgroundTaskLimit: Double
  /// Seconds before the budget runs out at which expiration handlers of open tasks are called
  /// ("shortly before", Apple doc of `beginBackgroundTask(expirationHandler:)`; 5 s is GeoWake's
  /// assumption).
  public var expirationLeadTime: Double
  /// Seconds an app keeps running after the user leaves it before it is suspended, when it has no
  /// task open (assumption: 5 s).
  public var leaveGracePeriod: Double

  public init(
    name: String, locationWakeBudget: Double, handlerDeadline: Double, backgroundTaskLimit: Double, expirationLeadTime: Double,
    leaveGracePeriod: Double
  ) {
    self.name = name
    self.locationWakeBudget = locationWakeBudget
    self.handlerDeadline = handlerDeadline
    self.backgroundTaskLimit = backgroundTaskLimit
    self.expirationLeadTime = expirationLeadTime
    self.leaveGracePeriod = leaveGracePeriod
  }

  /// Modern iOS: 10 s location wakes, 30 s handler deadline, background tasks up to 30 s.
  public static let ios = RuntimeProfile(
    name: "ios", locationWakeBudget: 10, handlerDeadline: 30, backgroundTaskLimit: 30, expirationLeadTime: 5, leaveGracePeriod: 5)
  /// iOS 7: background tasks up to 180 s.
  public static let ios7 = RuntimeProfile(
    name: "ios7", locationWakeBudget: 10, handlerDeadline: 30, backgroundTaskLimit: 180, expirationLeadTime: 5, leaveGracePeriod: 5)
  /// iOS 6: background tasks up to 600 s.
  public static let ios6 = RuntimeProfile(
    name: "ios6", locationWakeBudget: 10, handlerDeadline: 30, backgroundTaskLimit: 600, expirationLeadTime: 5, leaveGracePeriod: 5)

  /// The profiles by name: `ios`, `ios7`, `ios6`.
  public static let named: [String: RuntimeProfile] = ["ios": .ios, "ios7": .ios7, "ios6": .ios6]
}
