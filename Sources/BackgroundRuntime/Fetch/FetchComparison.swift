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
    evenTimer = Self.evenTimer(simulation, fetches: runs[0].summary.fetches)
  }

  /// A blind timer making as many fetches as the scheduler, evenly over the time the system
  /// would let the app fetch (all of the window but the days it is dormant, unopened for
  /// ``FetchProfile/dormancyDays``): its p90 staleness (the mean over ``evenTimerPhases`` phases)
  /// and its fetches; nil when the scheduler made none.
  public let evenTimer: EvenTimer?

  /// An even timer's result: p90 staleness (seconds) and fetches, each the mean over its phases.
  public struct EvenTimer: Hashable, Sendable {
    public var p90: Double
    public var fetches: Double
  }

  /// The phases an even timer is run at (spread over one interval), so that its p90 is not luck.
  public static let evenTimerPhases = 8

  static func evenTimer(_ simulation: FetchSimulation, fetches: Int) -> EvenTimer? {
    guard fetches > 0 else { return nil }
    let interval = awakeSeconds(simulation) / Double(fetches)
    let runs = (0..<evenTimerPhases).map { k in
      simulation.run(.evenly(interval: interval, phase: interval * Double(k) / Double(evenTimerPhases))).summary
    }
    let n = Double(runs.count)
    return EvenTimer(p90: runs.map(\.staleness.p90).reduce(0, +) / n, fetches: Double(runs.map(\.fetches).reduce(0, +)) / n)
  }

  /// Launches a p90 needs to be more than the largest of a handful.
  public static let launchesForP90 = 10

  /// Whether the scheduler's p90 staleness is no worse than ``evenTimer``'s; nil when there is
  /// nothing to compare (no fetch, or fewer than ``launchesForP90`` launches).
  public var earnsItsFetches: Bool? {
    let s = scheduler.summary
    guard let even = evenTimer, s.staleness.launches >= Self.launchesForP90 else { return nil }
    return s.staleness.p90 <= even.p90
  }

  /// Seconds of the window in which the app is not dormant.
  static func awakeSeconds(_ simulation: FetchSimulation) -> Double {
    let window = simulation.window
    let dormancy = simulation.fetchProfile.dormancyDays * LocalTime.secondsPerDay
    var dormant = 0.0
    var last = simulation.launches.last { $0.time < window.lowerBound }?.time
    for next in simulation.launches.map(\.time).filter({ window.contains($0) }) + [window.upperBound] {
      if let last { dormant += max(0, next - max(window.lowerBound, last + dormancy)) }
      last = next
    }
    return max(1, window.upperBound - window.lowerBound - dormant)
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
  /// oracle's fetches and at most a third of the 15-minute baseline's; and the fetches earned:
  /// p90 staleness no worse than an even timer's with as many fetches.
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
      Check(
        name: "p90 staleness ≤ an even timer's with as many fetches", passed: earnsItsFetches ?? true,
        measured: evenTimer.map {
          s.staleness.launches < Self.launchesForP90
            ? "\(s.staleness.launches) launches: too few for a p90"
            : "\(FetchEvent.duration(s.staleness.p90)) vs \(FetchEvent.duration($0.p90))"
        } ?? "no fetch"),
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
