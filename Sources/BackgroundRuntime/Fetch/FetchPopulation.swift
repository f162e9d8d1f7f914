/// Fetch strategies compared over many users: each user's ``FetchComparison`` reduced to its
/// summaries, and the distributions over users that say whether the scheduler holds for users
/// it was not built around.
public struct FetchPopulation: Sendable {
  /// One user: where their launches came from, each strategy's summary (the scheduler, fixed
  /// 15 min, fixed 1 h, the oracle), and the share of simulated days with a launch.
  public struct User: Sendable {
    public var name: String
    public var summaries: [FetchSummary]
    public var daysWithLaunch: Double
    /// Whether the scheduler's p90 staleness is no worse than an even timer's with as many
    /// fetches (``FetchComparison/earnsItsFetches``; nil: too few launches or no fetch).
    public var earnsItsFetches: Bool?

    public init(name: String, comparison: FetchComparison) {
      self.name = name
      summaries = comparison.summaries
      earnsItsFetches = comparison.earnsItsFetches
      let simulation = comparison.simulation
      let offset = simulation.launches.last?.utcOffset ?? 0
      var days = Set<Int>()
      for l in simulation.launches where simulation.window.contains(l.time) { days.insert(LocalTime(l.time, utcOffset: offset).day) }
      daysWithLaunch = Double(days.count) / max(1, (simulation.window.upperBound - simulation.window.lowerBound) / LocalTime.secondsPerDay)
    }

    public var scheduler: FetchSummary { summaries[0] }
    /// The fixed 1 h baseline.
    public var hourly: FetchSummary { summaries[2] }
    /// Whether the user opens the app on nearly every day (90 % of them or more).
    public var isDaily: Bool { daysWithLaunch >= 0.9 }
  }

  /// Nearest-rank quantiles of a value over users.
  public struct Spread: Hashable, Sendable {
    public var p10: Double
    public var p50: Double
    public var p90: Double

    public init(_ values: [Double]) {
      let sorted = values.sorted()
      func rank(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[max(0, min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
      }
      p10 = rank(0.1)
      p50 = rank(0.5)
      p90 = rank(0.9)
    }
  }

  public let users: [User]
  /// The strategies, in the order of each user's summaries.
  public var strategies: [FetchStrategy] { users.first?.summaries.map(\.strategy) ?? [] }

  public init(users: [User]) { self.users = users }

  /// The spread over users of each user's fresh share, p90 staleness and fetches per day, for
  /// strategy `index`.
  public func spreads(strategy index: Int) -> (freshShare: Spread, p90: Spread, fetchesPerDay: Spread) {
    let summaries = users.map { $0.summaries[index] }
    return (
      Spread(summaries.map(\.staleness.freshShare)), Spread(summaries.map(\.staleness.p90)), Spread(summaries.map(\.fetchesPerDay))
    )
  }

  /// One check of the scheduler against the baselines: for every user, or over the population.
  public struct Check: Hashable, Sendable {
    public var name: String
    public var passed: Bool
    public var measured: String
  }

  /// The scheduler's promise over a population: for every user, p90 staleness no worse than
  /// fixed 1 h's, with at most a third of its fetches, and never above 1 h, and no worse than an
  /// even timer's with as many fetches (users with enough launches to have a p90); over all
  /// users, a median fresh share at least fixed 1 h's, and a median of 2–60 fetches a day for
  /// users who open the app daily.
  public var checks: [Check] {
    func count(_ test: (User) -> Bool) -> (passed: Bool, text: String) {
      let n = users.filter(test).count
      return (n == users.count, "\(n) of \(users.count) users meet it")
    }
    let p90 = count { $0.scheduler.staleness.p90 <= $0.hourly.staleness.p90 }
    let third = count { 3 * $0.scheduler.fetches <= $0.hourly.fetches }
    let hour = count { $0.scheduler.staleness.p90 <= 3_600 }
    let compared = users.filter { $0.earnsItsFetches != nil }
    let earning = compared.filter { $0.earnsItsFetches == true }.count
    let fresh = Spread(users.map(\.scheduler.staleness.freshShare)).p50
    let hourlyFresh = Spread(users.map(\.hourly.staleness.freshShare)).p50
    let daily = users.filter(\.isDaily)
    let perDay = Spread(daily.map(\.scheduler.fetchesPerDay)).p50
    func percent(_ x: Double) -> String { "\(Double(Int((x * 1_000).rounded())) / 10) %" }
    return [
      Check(name: "every user: p90 staleness ≤ fixed 1 h's", passed: p90.passed, measured: p90.text),
      Check(name: "every user: fetches ≤ 1/3 of fixed 1 h's", passed: third.passed, measured: third.text),
      Check(name: "every user: p90 staleness ≤ 1 h", passed: hour.passed, measured: hour.text),
      Check(
        name: "every user: p90 staleness ≤ an even timer's", passed: earning == compared.count,
        measured: "\(earning) of \(compared.count) users meet it (as many fetches; \(users.count - compared.count) with too few launches)"),
      Check(name: "median fresh share ≥ fixed 1 h's", passed: fresh >= hourlyFresh, measured: "\(percent(fresh)) vs \(percent(hourlyFresh))"),
      Check(
        name: "median fetches per day 2–60 for daily users", passed: daily.isEmpty || (2...60).contains(perDay),
        measured: daily.isEmpty ? "no daily user" : "\(Double(Int((perDay * 10).rounded())) / 10) over \(daily.count) users"),
    ]
  }
}
