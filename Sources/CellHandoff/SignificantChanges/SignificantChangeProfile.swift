/// The rules that turn cell handoffs into significant-location-change events, every number named
/// (docs/platform-rules.md, significant location changes; "Apple doc" is the `startMonitoringSignificantLocationChanges()` page).
public struct SignificantChangeProfile: Hashable, Sendable {
  /// Short name used in explanations.
  public var name: String
  /// Metres the device must have moved from the last delivered location.
  public var minimumDistance: Double
  /// Seconds since the last delivery before another.
  public var minimumInterval: Double
  /// Delivered locations have cell-level accuracy: the serving cell's range, clamped to this
  /// interval (metres).
  public var deliveredAccuracy: ClosedRange<Double>
  /// When set, a wake every this many seconds without a delivery, even without movement. `nil`:
  /// none (the default; Apple's energy guide suggested one at least every 15 minutes, which
  /// Apple's DTS disputes — an option to model it, not the rule).
  public var periodicWakeInterval: Double?

  public init(
    name: String, minimumDistance: Double, minimumInterval: Double, deliveredAccuracy: ClosedRange<Double>,
    periodicWakeInterval: Double? = nil
  ) {
    self.name = name
    self.minimumDistance = minimumDistance
    self.minimumInterval = minimumInterval
    self.deliveredAccuracy = deliveredAccuracy
    self.periodicWakeInterval = periodicWakeInterval
  }

  /// iOS-like: 500 m and 5 minutes (Apple doc: "when the device's location changes significantly,
  /// such as 500 meters or more", "no more frequently than once every five minutes"); delivered
  /// accuracy 500–1,500 m (secondary reports of cell-based fixes); no periodic wake.
  public static let ios = SignificantChangeProfile(name: "ios", minimumDistance: 500, minimumInterval: 300, deliveredAccuracy: 500...1_500)

  /// ``ios`` with the disputed periodic wake at least every 15 minutes.
  public static let iosWithPeriodicWake = SignificantChangeProfile(
    name: "ios+periodic", minimumDistance: 500, minimumInterval: 300, deliveredAccuracy: 500...1_500, periodicWakeInterval: 900)
}
