public import BackgroundRuntime
public import CellHandoff
public import Geofencing

/// A published measurement of real phones and what GeoWake's profiles give for it on synthetic
/// data made like the measurement's (``PublishedComparison``).
public struct PublishedMeasurement: Sendable, Equatable {
  /// What is measured, in words ("entries reported, 10 m fences").
  public let name: String
  /// Where the number comes from ("S&R 2024, study 1").
  public let source: String
  /// The unit of ``published`` and ``reproduced``: `%`, `m`, `s`, `km` or `/h`.
  public let unit: String
  /// The published value, or the range the source gives.
  public let published: ClosedRange<Double>
  /// GeoWake's value; `nil` when the synthetic run gave none.
  public let reproduced: Double?
  /// The synthetic run it comes from and the profile, in words.
  public let reproducedBy: String

  /// The relative distance from the published value or range (0 inside the range; positive
  /// above it, negative below, as a fraction of the nearer end); `nil` without a value.
  public var difference: Double? {
    guard let value = reproduced else { return nil }
    if value > published.upperBound { return (value - published.upperBound) / published.upperBound }
    if value < published.lowerBound { return (value - published.lowerBound) / published.lowerBound }
    return 0
  }

  /// Whether the reproduced value is within ±`tolerance` of the published one (of the range's
  /// nearer end).
  public func isWithin(_ tolerance: Double) -> Bool { difference.map { abs($0) <= tolerance + 1e-12 } ?? false }
}

/// Published measurements of real phones, each reproduced by the calibrated profiles on a
/// documented synthetic experiment (`docs/fidelity.md`): Shevchenko & Reips's geofence
/// crossings (detection by radius, where and when events reach the app) with
/// ``SyntheticCrossingTrials``, the distance moved at significant-location-change wakes with
/// ``SignificantChangeTrips``, and the silent-push budget with a flood of silent pushes.
public struct PublishedComparison: Sendable {
  public let measurements: [PublishedMeasurement]
  /// The seed the synthetic data were drawn with, and the seeds of the replays.
  public let seed: UInt64
  public let seeds: [UInt64]
  public let crossings: CrossingTrialRun
  public let significantChanges: SignificantChangeRun

  /// Walks per run: as many crossings as S&R's study 1 had.
  public static let walks = 360

  /// Runs every experiment with the data drawn from `seed` and the replays seeded by `seeds`.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` or `CellLayoutError` for profiles or
  ///   layouts that cannot run (none of the built-in ones).
  public init(
    seed: UInt64 = 1, seeds: [UInt64] = Array(1...10), ios: RegionMonitoringProfile = .ios,
    android: RegionMonitoringProfile = .android8, significantChanges: SignificantChangeProfile = .ios,
    push: PushProfile = .ios
  ) throws {
    self.seed = seed
    self.seeds = seeds
    let trials = SyntheticCrossingTrials().trials(count: Self.walks, seed: seed)
    let run = try CrossingTrialRun(trials: trials, profiles: [.ios: ios, .android: android], seeds: seeds)
    crossings = run
    let walkers = "\(Self.walks) synthetic walks × \(seeds.count) seeds, \(ios.name) and \(android.name)"
    var rows: [PublishedMeasurement] = []
    let rates: [(Double, Double, Double)] = [(10, 0.65, 0.62), (50, 0.90, 0.92), (100, 0.92, 0.95)]
    for (radius, enter, exit) in rates {
      for (isExit, value) in [(false, enter), (true, exit)] {
        rows.append(PublishedMeasurement(
          name: "\(isExit ? "exits" : "entries") reported, \(Int(radius)) m fences", source: "S&R 2024, study 1", unit: "%",
          published: value * 100...value * 100, reproduced: run.detectionRate(radius: radius, exit: isExit).map { $0 * 100 },
          reproducedBy: walkers))
      }
    }
    rows.append(PublishedMeasurement(
      name: "entries reach the app, mean distance from the centre", source: "S&R 2024, study 1", unit: "m", published: 87...87,
      reproduced: run.meanDistance(exit: false), reproducedBy: walkers))
    rows.append(PublishedMeasurement(
      name: "exits reach the app, mean distance from the centre", source: "S&R 2024, study 1", unit: "m", published: 234...234,
      reproduced: run.meanDistance(exit: true), reproducedBy: walkers))
    rows.append(PublishedMeasurement(
      name: "iOS entries, metres before the crossing", source: "S&R 2024, study 2", unit: "m", published: 44...44,
      reproduced: run.meanEnterOffset(platform: .ios).map { -$0 }, reproducedBy: "the same walks, \(ios.name)"))
    rows.append(PublishedMeasurement(
      name: "iOS entries, seconds before the crossing", source: "S&R 2024, study 2", unit: "s", published: 55...55,
      reproduced: run.meanEnterTiming(platform: .ios).map { -$0 }, reproducedBy: "the same walks, \(ios.name)"))
    rows.append(PublishedMeasurement(
      name: "Android entries, metres after the crossing", source: "S&R 2024, study 2", unit: "m", published: 53...53,
      reproduced: run.meanEnterOffset(platform: .android), reproducedBy: "the same walks, \(android.name)"))
    rows.append(PublishedMeasurement(
      name: "Android entries, seconds after the crossing", source: "S&R 2024, study 2", unit: "s", published: 146...146,
      reproduced: run.meanEnterTiming(platform: .android), reproducedBy: "the same walks, \(android.name)"))

    let trips = SignificantChangeTrips().trips(count: SignificantChangeTrips.tripsPerRun, seed: seed)
    let changes = try SignificantChangeRun(trips: trips, profile: significantChanges)
    self.significantChanges = changes
    let drives = "\(trips.count) synthetic trips, \(significantChanges.name)"
    rows.append(PublishedMeasurement(
      name: "significant changes, median distance moved", source: "longweekendmobile.com 2010", unit: "km", published: 0.75...1,
      reproduced: changes.quantile(0.5).map { $0 / 1_000 }, reproducedBy: drives))
    rows.append(PublishedMeasurement(
      name: "significant changes, 90th percentile distance moved", source: "longweekendmobile.com 2010; developer-tech.com 2014",
      unit: "km", published: 2.5...5, reproduced: changes.quantile(0.9).map { $0 / 1_000 }, reproducedBy: drives))

    let flood = SilentPushFlood(profile: push).run()
    let by = "one silent push a minute for \(Int(SilentPushFlood.hours)) h, \(push.name)"
    rows.append(PublishedMeasurement(
      name: "silent pushes that wake the app, per hour", source: "Apple, Pushing background updates", unit: "/h", published: 2...3,
      reproduced: flood.launchesPerHour, reproducedBy: by))
    rows.append(PublishedMeasurement(
      name: "silent pushes, shortest time between two wakes", source: "Stack Overflow daemon logs (dasd)", unit: "s",
      published: 300...300, reproduced: flood.shortestGap, reproducedBy: by))
    rows.append(PublishedMeasurement(
      name: "silent pushes, longest time without a wake", source: "firebase/quickstart-ios #258", unit: "s",
      published: 3_600...3_600, reproduced: flood.longestGap, reproducedBy: by))
    measurements = rows
  }
}

/// A provider sending one silent push a minute to an online device for ``hours`` hours: when
/// the app is woken, under a ``PushProfile``'s budget.
public struct SilentPushFlood: Sendable {
  public static let hours = 24.0
  public var profile: PushProfile

  public init(profile: PushProfile) { self.profile = profile }

  public struct Result: Sendable {
    /// When silent pushes woke the app.
    public let launches: [Double]
    public var launchesPerHour: Double { Double(launches.count) / SilentPushFlood.hours }
    public var shortestGap: Double? { gaps.min() }
    public var longestGap: Double? { gaps.max() }
    var gaps: [Double] { zip(launches, launches.dropFirst()).map { $1 - $0 } }
  }

  public func run() -> Result {
    let start = 1_700_000_000.0
    let requests = (0..<Int(Self.hours * 60)).map { k in
      ProviderRequest(
        time: start + Double(k) * 60, token: String(repeating: "ab", count: 32), headers: [
          .init("apns-push-type", "background"), .init("apns-priority", "5"), .init("apns-topic", "com.example.flood"),
        ], payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
    }
    let run = PushSimulation(requests: requests, profile: profile).run()
    return Result(launches: run.outcomes.compactMap { $0.app != nil && $0.app != .notWoken ? $0.deliveredAt : nil }.sorted())
  }
}
