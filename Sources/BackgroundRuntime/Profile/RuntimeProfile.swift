/// The background-execution rules of a platform: every number the ``AppRuntime`` uses, named
/// (docs/platform-rules.md, background execution; LMPG = Apple *Location and Maps Programming Guide*).
public struct RuntimeProfile: Hashable, Sendable {
  /// Whose app lifecycle: iOS's (wakes with budgets, background tasks, the watchdog) or Android's
  /// (broadcast receivers, FCM's `onMessageReceived`, jobs; ANRs; standby buckets and Doze).
  public enum Lifecycle: String, Hashable, Sendable, Codable {
    case ios, android
  }

  /// Short name used in explanations.
  public var name: String
  public var lifecycle: Lifecycle
  /// Seconds an app woken by a location event may run (iOS, LMPG: "about 10 seconds"; Android:
  /// a broadcast receiver's `onReceive`).
  public var locationWakeBudget: Double
  /// Seconds a remote-notification handler has to call its completion handler before the app is
  /// terminated (iOS: Apple docs of `didReceiveRemoteNotification`, 30 seconds; Android: FCM's
  /// `onMessageReceived` window).
  public var handlerDeadline: Double
  /// Seconds a background fetch may run (iOS: `performFetchWithCompletionHandler`, 30 seconds;
  /// Android: a WorkManager worker, 10 minutes).
  public var fetchDeadline: Double
  /// Seconds of background time, counted from the wake, that background tasks can extend the
  /// budget to (iOS `beginBackgroundTask`: ≈ 30 s, DTS forum 391799; ios7 180 s, ios6 600 s;
  /// Android: a receiver's `goAsync()`, up to the background broadcast timeout).
  public var backgroundTaskLimit: Double
  /// Seconds before the budget runs out at which expiration handlers of open tasks are called
  /// ("shortly before", Apple doc of `beginBackgroundTask(expirationHandler:)`; 5 s is GeoWake's
  /// assumption; Android has no such warning: 0).
  public var expirationLeadTime: Double
  /// Seconds an app keeps running after the user leaves it before it is suspended, when it has no
  /// task open (iOS assumption: 5 s; Android: the background settle time).
  public var leaveGracePeriod: Double
  /// Whether a force-quit also stops location events until the user opens the app (Android's
  /// stopped state receives no broadcasts; iOS still relaunches the app for location events).
  public var forceQuitStopsLocation: Bool
  /// Doze and the app standby buckets (Android); nil where the platform has neither.
  public var power: AndroidPowerRules?

  public init(
    name: String, lifecycle: Lifecycle = .ios, locationWakeBudget: Double, handlerDeadline: Double, fetchDeadline: Double? = nil,
    backgroundTaskLimit: Double, expirationLeadTime: Double, leaveGracePeriod: Double, forceQuitStopsLocation: Bool = false,
    power: AndroidPowerRules? = nil
  ) {
    self.name = name
    self.lifecycle = lifecycle
    self.locationWakeBudget = locationWakeBudget
    self.handlerDeadline = handlerDeadline
    self.fetchDeadline = fetchDeadline ?? handlerDeadline
    self.backgroundTaskLimit = backgroundTaskLimit
    self.expirationLeadTime = expirationLeadTime
    self.leaveGracePeriod = leaveGracePeriod
    self.forceQuitStopsLocation = forceQuitStopsLocation
    self.power = power
  }

  /// Seconds of background time an event of `reason` gives.
  public func budget(for reason: LaunchReason) -> Double {
    switch reason {
    case .location: locationWakeBudget
    case .remoteNotification: handlerDeadline
    case .fetch: fetchDeadline
    case .user: leaveGracePeriod
    }
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

  /// Android (docs/platform-rules.md, Android's app runtime):
  /// - a geofence transition reaches the app's broadcast receiver, whose `onReceive` has 10 s (the
  ///   guideline, and the foreground broadcast's ANR limit `BROADCAST_FG_TIMEOUT`, AOSP
  ///   ActivityManagerService); `goAsync()` — the scenario's background task — keeps the broadcast
  ///   alive up to 60 s from the wake (`BROADCAST_BG_TIMEOUT`); past the budget with work still
  ///   running, the ANR kills the process. Vendor (AOSP).
  /// - an FCM data message reaches `onMessageReceived`, which has 10 s ("a short execution window",
  ///   10 s when Android 8 came out: Firebase blog, 2017-03). Vendor.
  /// - background fetch is a WorkManager job, which runs at most 10 minutes ("A Worker is given a
  ///   maximum of ten minutes to finish its execution", androidx.work.Worker). Vendor.
  /// - no expiration warning (a stopped job's `onStopped` comes at its end): 0 s. Vendor.
  /// - after the user leaves the app, background work is allowed for 60 s
  ///   (`DEFAULT_BACKGROUND_SETTLE_TIME`, AOSP ActivityManagerConstants). Vendor.
  /// - a force-stopped app receives no broadcasts (no FCM, no geofence intents) until the user
  ///   opens it (developer.android.com, app manifest `stopped state`). Vendor.
  /// - Doze and the standby buckets: ``AndroidPowerRules/android13``.
  public static let android = RuntimeProfile(
    name: "android", lifecycle: .android, locationWakeBudget: 10, handlerDeadline: 10, fetchDeadline: 600, backgroundTaskLimit: 60,
    expirationLeadTime: 0, leaveGracePeriod: 60, forceQuitStopsLocation: true, power: .android13)

  /// ``android`` on a Samsung phone: its battery manager puts an app unused for 3 days to sleep
  /// (the restricted bucket's limits) and one unused for 16 days into deep sleep (stopped until
  /// opened): ``AndroidPowerRules/samsung``.
  public static let androidSamsung: RuntimeProfile = {
    var profile = android
    profile.name = "android-samsung"
    profile.power = .samsung
    return profile
  }()

  /// The profiles by name: `ios`, `ios7`, `ios6`, `android`, `android-samsung`.
  public static let named: [String: RuntimeProfile] = [
    "ios": .ios, "ios7": .ios7, "ios6": .ios6, "android": .android, "android-samsung": .androidSamsung,
  ]
}
