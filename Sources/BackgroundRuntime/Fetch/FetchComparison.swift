/// The system's fetch scheduler against three baselines on the same user, feed and app, in one
/// run (issue: "compare the scheduler against baselines"): fetching every 15 min, every hour,
/// and an oracle that fetches once just before each launch.
public struct FetchComparison: Sendable {
  /// Every run with its timeline: the scheduler, then fixed 15 min, fixed 1 h and the oracle.
  public let runs: [FetchSimulation.Run]
  public let simulation: FetchSimulation

  /// The scheduler's run.
  public var scheduler: FetchSimulation.Run { runs[0] }
  /// The baselines' summaries: fixed 15 min, fixed 1 h and the oracle, in that order.
  public var baselines: [FetchSummary] { runs.dropFirst().map(\.summary) }

  /// Seconds before each launch at which the oracle fetches.
  public static let oracleLead = 60.0
  /// The fixed baselines' intervals.
  public static let fixedIntervals: [Double] = [900, 3_600]

  public init(_ simulation: FetchSimulation) {
    self.simulation = simulation
    runs = ([FetchStrategy.system] + Self.fixedIntervals.map { .fixed(interval: $0) } + [.oracle(lead: Self.oracleLead)]).map {
      simulation.run($0)
    }
  }

  /// Every summary: the scheduler first.
  public var summaries: [FetchSummary] { runs.map(\.summary) }

  /// One check of the promise of background fetch: fresh content at nearly every launch, without
  /// paying for constant fetching.
  public struct Check: Hashable, Sendable {
    public var name: String
    public var passed: Bool
    public var measured: String
  }

  /// The promise as numbers: ≥ 95 % of launches fresh, p90 staleness ≤ 10 min, at most twice the
  /// oracle's fetches and at most a third of the 15-minute baseline's.
  public var checks: [Check] {
    let s = scheduler.summary
    let oracle = baselines.last?.fetches ?? 0
    let fixed15 = baselines.first?.fetches ?? 0
    let percent = Double(Int((s.staleness.freshShare * 1_000).rounded())) / 10
    return [
      Check(name: "fresh at ≥ 95 % of launches", passed: s.staleness.freshShare >= 0.95, measured: "\(percent) %"),
      Check(name: "p90 staleness ≤ 10 min", passed: s.staleness.p90 <= 600, measured: "\(Int(s.staleness.p90.rounded())) s"),
      Check(name: "fetches ≤ 2 × the oracle's", passed: s.fetches <= 2 * oracle, measured: "\(s.fetches) vs \(oracle)"),
      Check(name: "fetches ≤ 1/3 of fixed 15 min", passed: 3 * s.fetches <= fixed15, measured: "\(s.fetches) vs \(fixed15)"),
    ]
  }
}

extension FetchSimulation {
  /// The simulated window for `days` local days ending with the day of the last launch (local
  /// midnight to midnight, on the last launch's clock); launches before it are history. When the
  /// launches span fewer days, the window starts at the first launch's local midnight (no
  /// history). Nil without launches.
  public static func window(days: Int, launches: [UserLaunch]) -> Range<Double>? {
    guard let first = launches.first, let last = launches.last, days > 0 else { return nil }
    let lastDay = LocalTime(last.time, utcOffset: last.utcOffset).day
    let firstDay = LocalTime(first.time, utcOffset: last.utcOffset).day
    let startDay = max(firstDay, lastDay - days + 1)
    return LocalTime.time(day: startDay, secondOfDay: 0, utcOffset: last.utcOffset)
      ..< LocalTime.time(day: lastDay + 1, secondOfDay: 0, utcOffset: last.utcOffset)
  }
}
