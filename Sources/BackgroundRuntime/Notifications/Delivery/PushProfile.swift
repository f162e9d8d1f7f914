/// Every number of the APNs and device model, named (docs/platform-rules.md, remote and silent notifications). Limits Apple documents
/// are cited; the rest are GeoWake's stated assumptions.
public struct PushProfile: Hashable, Sendable {
  public var name: String
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
  /// The silent-push budget, a token bucket: at most `silentPushBurst` delivered back to back,
  /// then one more every `silentPushInterval` seconds (Apple: "don't send more than two or three
  /// per hour"; assumption: a burst of 2, then one per 30 min). The interval stretches as the
  /// app's track record falls (interval / score).
  public var silentPushBurst: Int
  public var silentPushInterval: Double
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
    deviceTokenDigits: ClosedRange<Int> = 64...400, topicLimit: Int = 255
  ) {
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

  /// The iOS-like numbers above.
  public static let ios = PushProfile(
    name: "ios", payloadLimit: 4_096, voipPayloadLimit: 5_120, collapseIDLimit: 64, defaultStorage: 2_592_000,
    maximumStorage: 2_592_000, silentPushBurst: 2, silentPushInterval: 1_800, keepAliveInterval: 1_800)
}
