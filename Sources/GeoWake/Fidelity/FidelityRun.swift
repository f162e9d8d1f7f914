public import Geofencing

/// Measured departures replayed through a profile per platform over several seeds: per
/// departure and per platform, what the phones did against what the profile predicts.
public struct FidelityRun: Sendable {
  /// One departure: its measured delay and the predicted one for each seed.
  public struct DepartureResult: Sendable {
    public let departure: MeasuredDeparture
    /// The profile it was replayed with.
    public let profile: String
    /// The predicted delay for each seed, in the order of ``FidelityRun/seeds``; `nil`: no exit.
    public let predicted: [Double?]

    public var observed: Double? { departure.exitDelay }
    public var predictedDistribution: DelayDistribution { DelayDistribution(predicted) }
  }

  /// One platform: the measured and predicted distributions over its comparable departures.
  public struct PlatformResult: Sendable {
    public let platform: MeasuredDeparture.Platform
    /// The profile its departures were replayed with (names joined with `+` when they differ by
    /// the phones' versions).
    public let profile: String
    /// One delay per comparable departure.
    public let observed: DelayDistribution
    /// One delay per comparable departure and seed.
    public let predicted: DelayDistribution
    /// Departures left out because their measured exit is not comparable (premature).
    public let excluded: Int

    /// The Kolmogorov–Smirnov distance between the two delay distributions.
    public var kolmogorovSmirnovDistance: Double? { observed.kolmogorovSmirnovDistance(to: predicted) }
  }

  public let seeds: [UInt64]
  public let departures: [DepartureResult]
  /// Per platform present in the data, in ``MeasuredDeparture/Platform`` order.
  public let platforms: [PlatformResult]

  /// Replays every departure with the profile of its platform, once per seed.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` for a profile the monitor cannot use.
  public init(
    departures: [MeasuredDeparture], profiles: [MeasuredDeparture.Platform: RegionMonitoringProfile], seeds: [UInt64],
    replay: DepartureReplay = DepartureReplay()
  ) throws(RegionMonitoringProfile.InvalidValue) {
    try self.init(departures: departures, seeds: seeds, replay: replay) { profiles[$0.platform] }
  }

  /// Replays every departure with the profile `profile` gives for it (none: left out), once per
  /// seed.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` for a profile the monitor cannot use.
  public init(
    departures: [MeasuredDeparture], seeds: [UInt64], replay: DepartureReplay = DepartureReplay(),
    profile: (MeasuredDeparture) -> RegionMonitoringProfile?
  ) throws(RegionMonitoringProfile.InvalidValue) {
    self.seeds = seeds
    var results: [DepartureResult] = []
    for departure in departures {
      guard let profile = profile(departure) else { continue }
      var predicted: [Double?] = []
      for seed in seeds { predicted.append(try replay.predictedExitDelay(departure, profile: profile, seed: seed)) }
      results.append(DepartureResult(departure: departure, profile: profile.name, predicted: predicted))
    }
    self.departures = results
    platforms = MeasuredDeparture.Platform.allCases.compactMap { platform in
      let mine = results.filter { $0.departure.platform == platform }
      guard !mine.isEmpty else { return nil }
      var names: [String] = []
      for result in mine where !names.contains(result.profile) { names.append(result.profile) }
      let profile = names.joined(separator: "+")
      let comparable = mine.filter(\.departure.isComparable)
      return PlatformResult(
        platform: platform, profile: profile, observed: DelayDistribution(comparable.map(\.observed)),
        predicted: DelayDistribution(comparable.flatMap(\.predicted)), excluded: mine.count - comparable.count)
    }
  }
}
