/// Every number of the APNs and device model, named (docs/platform-rules.md, remote and silent notifications). Limits Apple documents
/// are cited; the rest are GeoWake's stated assumptions.
public struct PushProfile: Hashable, Sendable {
  /// Who carries pushes to the device, and by whose rules.
  public enum Delivery: String, Hashable, Sendable, Codable {
    /// APNs: the newest notification stored while offline, the silent-push budget, keep-alives.
    case apns
    /// Firebase Cloud Messaging: every message stored while offline (collapsible ones coalesced),
    /// high priority delivered through Doze within the standby bucket's quota, normal priority
    /// waiting for a maintenance window; only data messages wake the app.
    case fcm
  }

  public var name: String
  public var delivery: Delivery
  /// Messages FCM stores for an offline device at the most (FCM: "up to 100 messages").
  public var storedMessageLimit: Int
  /// Largest payload in bytes: 4 096 (5 120 for VoIP) — Apple, *Generating a remote notification*.
  public var payloadLimit: Int
  public var voipPayloadLimit: Int
  /// Longest `apns-collapse-id` in bytes: 64 (Apple, *Sending notification requests to APNs*).
  public var collapseIDLimit: Int
  /// Seconds APNs stores a notification for an offline device when `apns-expiration` is absent
  /// (assumption: 30 days, the longest storage Apple mentions).
  public var defaultStorage: Double
  /// Seconds APNs stores a notification at most, whatever its expiration (30 days).
  public var maximumStorage: Double
  /// The silent-push budget. Without ``silentPushWindow``, a token bucket: at most
  /// `silentPushBurst` delivered back to back, then one more every `silentPushInterval` seconds.
  /// With it, at most `silentPushBurst` in any `silentPushWindow` seconds (`silentPushInterval`
  /// unused). Either stretches as the app's track record falls (interval or window / score).
  public var silentPushBurst: Int
  public var silentPushInterval: Double
  /// When set, the budget is a sliding window of this many seconds (see ``silentPushBurst``).
  public var silentPushWindow: Double?
  /// Seconds after a silent push woke the app during which another is held, whatever the budget.
  /// 0: none.
  public var silentPushSpacing: Double
  /// Seconds between the device's keep-alives while online: each releases the held silent push
  /// when the budget allows, and delivers priority-1 and deferred priority-5 notifications
  /// (assumption: 1 800 s).
  public var keepAliveInterval: Double
  /// Seconds a provider token stays valid after its `iat` (Apple: "APNs doesn't accept tokens
  /// older than one hour": 3 600), and the least time between two token refreshes (Apple: "no
  /// more than once every 20 minutes": 1 200).
  public var providerTokenLifetime: Double
  public var providerTokenRefreshInterval: Double
  /// Seconds a token's `iat` may lie ahead of APNs' clock before the token counts as invalid
  /// (clock skew between provider and APNs; assumption: 60 s).
  public var providerTokenClockSkew: Double
  /// The lowest track-record score the silent budget is scaled by, so that a failing app's
  /// budget stretches (to 20× its interval) but never stops (assumption: 0.05).
  public var minimumBudgetScore: Double
  /// Device tokens APNs accepts: an even number of hexadecimal digits in this range (Apple: tokens
  /// are of variable length; today 32 bytes; assumption: 32 to 200 bytes).
  public var deviceTokenDigits: ClosedRange<Int>
  /// Longest `apns-topic` in bytes (a bundle ID; assumption: 255).
  public var topicLimit: Int

  public init(
    name: String, payloadLimit: Int, voipPayloadLimit: Int, collapseIDLimit: Int, defaultStorage: Double, maximumStorage: Double,
    silentPushBurst: Int, silentPushInterval: Double, keepAliveInterval: Double, providerTokenLifetime: Double = 3_600,
    providerTokenRefreshInterval: Double = 1_200, providerTokenClockSkew: Double = 60, minimumBudgetScore: Double = 0.05,
    deviceTokenDigits: ClosedRange<Int> = 64...400, topicLimit: Int = 255, silentPushWindow: Double? = nil,
    silentPushSpacing: Double = 0, delivery: Delivery = .apns, storedMessageLimit: Int = 1
  ) {
    self.delivery = delivery
    self.storedMessageLimit = storedMessageLimit
    self.silentPushWindow = silentPushWindow
    self.silentPushSpacing = silentPushSpacing
    self.providerTokenClockSkew = providerTokenClockSkew
    self.minimumBudgetScore = minimumBudgetScore
    self.deviceTokenDigits = deviceTokenDigits
    self.topicLimit = topicLimit
    self.providerTokenLifetime = providerTokenLifetime
    self.providerTokenRefreshInterval = providerTokenRefreshInterval
    self.name = name
    self.payloadLimit = payloadLimit
    self.voipPayloadLimit = voipPayloadLimit
    self.collapseIDLimit = collapseIDLimit
    self.defaultStorage = defaultStorage
    self.maximumStorage = maximumStorage
    self.silentPushBurst = silentPushBurst
    self.silentPushInterval = silentPushInterval
    self.keepAliveInterval = keepAliveInterval
  }

  /// iOS with the silent-push budget read from Apple's documentation alone (`ios-documented`): a
  /// token bucket of 2, then one per 30 minutes (Apple: "don't send more than two or three per
  /// hour"; the shape of the budget is an assumption).
  public static let iosDocumented = PushProfile(
    name: "ios-documented", payloadLimit: 4_096, voipPayloadLimit: 5_120, collapseIDLimit: 64, defaultStorage: 2_592_000,
    maximumStorage: 2_592_000, silentPushBurst: 2, silentPushInterval: 1_800, keepAliveInterval: 1_800)

  /// iOS as phones were seen doing it (`ios`): ``iosDocumented`` with the silent-push budget of
  /// the device logs. At most 3 silent pushes wake the app in any hour (Apple's "two or three
  /// per hour", the upper end: a flood of them gave bursts of 8–10 minutes, then about an hour of
  /// nothing — firebase/quickstart-ios issue #258, iOS 10), and none within 300 s of the previous
  /// one (dasd refused pushes "within 300 s" of a previous launch — Stack Overflow daemon logs).
  /// Developer reports (measured, not by an independent study).
  public static let ios: PushProfile = {
    var profile = iosDocumented
    profile.name = "ios"
    profile.silentPushBurst = 3
    profile.silentPushWindow = 3_600
    profile.silentPushSpacing = 300
    return profile
  }()

  /// The silent-push budget in words ("at most 3 in any hour, none within 300 s of the
  /// previous").
  public var silentBudgetText: String {
    func span(_ seconds: Double) -> String {
      if seconds == 3_600 { return "hour" }
      if seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
      return "\(Int(seconds)) s"
    }
    var text = silentPushWindow.map { "at most \(silentPushBurst) in any \(span($0))" }
      ?? "\(silentPushBurst) back to back, then one every \(span(silentPushInterval))"
    if silentPushSpacing > 0 { text += ", none within \(Int(silentPushSpacing)) s of the previous" }
    return text
  }

  /// Android's FCM (`fcm`), for a provider's schedule in APNs form: `apns-priority` 10 is high
  /// priority, any other normal; a content-available push without an alert is a data message
  /// (it reaches `onMessageReceived`), one with an alert a notification message (the system shows
  /// it; the app is not woken in the background); `apns-expiration` is the time to live (0: now
  /// or never), `apns-collapse-id` the collapse key.
  /// - up to 100 messages stored for an offline device, 4 weeks at the most (the default time to
  ///   live): Firebase docs, *Receive messages* and *Message lifespan*. Vendor.
  /// - the payload limit is 4,096 bytes (Firebase: "4000 bytes" for data; FCM's 4 KB): vendor.
  /// - Doze, the standby buckets' quotas and deprioritization come from the app runtime's
  ///   ``AndroidPowerRules``.
  public static let fcm: PushProfile = {
    var profile = iosDocumented
    profile.name = "fcm"
    profile.delivery = .fcm
    profile.defaultStorage = 2_419_200
    profile.maximumStorage = 2_419_200
    profile.storedMessageLimit = 100
    return profile
  }()

  /// The profiles by name: `ios` (as measured), `ios-documented`, `fcm`.
  public static let named: [String: PushProfile] = ["ios": .ios, "ios-documented": .iosDocumented, "fcm": .fcm]
}
