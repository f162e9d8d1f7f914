public import Geofencing

/// ``CrossingTrial``s replayed through a profile per platform over several seeds: how often the
/// entry and the exit were reported, by radius, and where and when they reached the app — the
/// quantities Shevchenko & Reips measured on phones.
public struct CrossingTrialRun: Sendable {
  /// One trial replayed with one seed.
  public struct Outcome: Sendable {
    public let trial: Int
    public let platform: MeasuredDeparture.Platform
    public let radius: Double
    /// When the entry reached the app, if it did before the walker left the centre.
    public let enterDeliveredAt: Double?
    /// When the exit reached the app, if it did within ``CrossingTrialRun/exitWindow`` of the
    /// departure from the centre.
    public let exitDeliveredAt: Double?
    /// The walker's distance from the centre when the entry reached the app.
    public let enterDistance: Double?
    /// The walker's distance from the centre when the exit reached the app.
    public let exitDistance: Double?
    /// Seconds from the true inward crossing to the entry reaching the app (negative: before).
    public let enterTiming: Double?
    /// Metres walked from the true inward crossing to the entry reaching the app (negative:
    /// still outside, that far from the boundary).
    public let enterOffset: Double?
  }

  /// Seconds after the walker leaves the centre within which an exit counts as reported.
  public static let exitWindow = 1_800.0

  public let seeds: [UInt64]
  /// The profile name per platform.
  public let profiles: [MeasuredDeparture.Platform: String]
  public let outcomes: [Outcome]

  /// Replays every trial with its platform's profile, once per seed.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` for a profile the monitor cannot use.
  public init(
    trials: [CrossingTrial], profiles: [MeasuredDeparture.Platform: RegionMonitoringProfile], seeds: [UInt64]
  ) throws(RegionMonitoringProfile.InvalidValue) {
    self.seeds = seeds
    self.profiles = profiles.mapValues(\.name)
    var outcomes: [Outcome] = []
    var events: [RegionEvent] = []
    for trial in trials {
      guard let profile = profiles[trial.platform] else { continue }
      for seed in seeds {
        var monitor = try RegionMonitor(regions: [.circle(trial.fence)], profile: profile, seed: seed)
        events.removeAll(keepingCapacity: true)
        for fix in trial.fixes { monitor.process(fix, into: &events) }
        monitor.finish(into: &events)
        let enter = events.first { $0.kind == .enter && $0.deliveredAt.map { $0 <= trial.departedAt } == true }?.deliveredAt
        let exit = events.first {
          $0.kind == .exit && $0.deliveredAt.map { $0 >= trial.departedAt && $0 <= trial.departedAt + Self.exitWindow } == true
        }?.deliveredAt
        var enterDistance: Double?
        var enterOffset: Double?
        if let enter {
          let d = trial.distanceFromCentre(at: enter)
          enterDistance = d
          // Before the crossing the walker is still outside, walking straight in: the distance
          // to the boundary is the way left; after it, the way walked inside.
          enterOffset = enter < trial.enteredAt ? -(d - trial.fence.radius) : trial.fence.radius - d
        }
        outcomes.append(Outcome(
          trial: trial.id, platform: trial.platform, radius: trial.fence.radius, enterDeliveredAt: enter,
          exitDeliveredAt: exit, enterDistance: enterDistance, exitDistance: exit.map { trial.distanceFromCentre(at: $0) },
          enterTiming: enter.map { $0 - trial.enteredAt }, enterOffset: enterOffset))
      }
    }
    self.outcomes = outcomes
  }

  /// The radii of the trials, ascending.
  public var radii: [Double] { Array(Set(outcomes.map(\.radius))).sorted() }

  /// The share of replays of fences of `radius` whose entry (or exit) reached the app, over
  /// `platform`'s trials or all of them.
  public func detectionRate(radius: Double, exit: Bool, platform: MeasuredDeparture.Platform? = nil) -> Double? {
    let mine = outcomes.filter { $0.radius == radius && (platform == nil || $0.platform == platform) }
    guard !mine.isEmpty else { return nil }
    let seen = mine.filter { (exit ? $0.exitDeliveredAt : $0.enterDeliveredAt) != nil }.count
    return Double(seen) / Double(mine.count)
  }

  /// The mean distance from the centre at which entries (or exits) reached the app.
  public func meanDistance(exit: Bool, platform: MeasuredDeparture.Platform? = nil) -> Double? {
    mean(outcomes.filter { platform == nil || $0.platform == platform }.compactMap { exit ? $0.exitDistance : $0.enterDistance })
  }

  /// The mean time from the true inward crossing to the entry reaching the app.
  public func meanEnterTiming(platform: MeasuredDeparture.Platform) -> Double? {
    mean(outcomes.filter { $0.platform == platform }.compactMap(\.enterTiming))
  }

  /// The mean metres walked from the true inward crossing to the entry reaching the app.
  public func meanEnterOffset(platform: MeasuredDeparture.Platform) -> Double? {
    mean(outcomes.filter { $0.platform == platform }.compactMap(\.enterOffset))
  }

  private func mean(_ values: [Double]) -> Double? {
    values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }
}
