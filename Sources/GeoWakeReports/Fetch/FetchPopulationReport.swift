import JSONBytes
public import TrackIO
public import BackgroundRuntime

/// Writes a ``FetchPopulation``: per strategy, the spread over users of fresh share, p90
/// staleness and fetches per day; the scheduler's checks; then one line per user. As a table or
/// as JSON Lines (one object per user and strategy, one per strategy's spread, one per check).
public struct FetchPopulationReport {
  public let population: FetchPopulation
  /// Where the users came from, for the header.
  public var source: String

  /// The terminal's width for `table` (nil: lines as long as they are, as when piped): its
  /// tables in blocks that fit, its lines wrapped.
  public var width: Int?

  public init(_ population: FetchPopulation, source: String) {
    self.population = population
    self.source = source
  }

  public func write(_ format: FetchReport.Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .jsonl: try writeJSONLines(to: sink)
    default: try writeTable(to: sink)
    }
  }

  static func percent(_ x: Double) -> String { NumberText.fixed(x * 100, decimals: 1) + " %" }

  func writeTable(to sink: ByteSink) throws(TrackIOError) {
    if let width { return try writeNarrow(width: width, to: sink) }
    let users = population.users
    let daily = users.filter(\.isDaily).count
    try sink.write("users: \(users.count) from \(source) (\(daily) open the app on 90 % of days or more)\n\n")
    let header: [String] = [
      "strategy".column(15), "fetches/day p50".column(17), "p90".column(7), "fresh share p10".column(17), "p50".column(9),
      "p90 staleness p50".column(19), "p90".column(14), "worst user\n",
    ]
    try sink.write(header.joined())
    for (k, strategy) in population.strategies.enumerated() {
      let (fresh, p90, perDay) = population.spreads(strategy: k)
      let worst = users.map { $0.summaries[k].staleness.p90 }.max() ?? 0
      let cells: [String] = [
        "\(strategy)".column(15), NumberText.fixed(perDay.p50, decimals: 1).column(17), NumberText.fixed(perDay.p90, decimals: 1).column(7),
        Self.percent(fresh.p10).column(17), Self.percent(fresh.p50).column(9), NumberText.duration(p90.p50).column(19),
        NumberText.duration(p90.p90).column(14), NumberText.duration(worst), "\n",
      ]
      try sink.write(cells.joined())
    }
    try sink.write("\nchecks (the scheduler over these users):\n")
    for check in population.checks {
      try sink.write("  " + (check.passed ? "pass" : "FAIL").column(6) + check.name.column(48) + check.measured + "\n")
    }
    let userHeader: [String] = [
      "\n", "user".column(34), "scheduler: fresh".column(18), "p90".column(14), "fetches/day".column(13), "fixed 1 h: fresh".column(18),
      "p90".column(14), "fetches/day\n",
    ]
    try sink.write(userHeader.joined())
    for user in users {
      let s = user.scheduler
      let h = user.hourly
      let cells: [String] = [
        user.name.column(34), Self.percent(s.staleness.freshShare).column(18), NumberText.duration(s.staleness.p90).column(14),
        NumberText.fixed(s.fetchesPerDay, decimals: 1).column(13), Self.percent(h.staleness.freshShare).column(18),
        NumberText.duration(h.staleness.p90).column(14), NumberText.fixed(h.fetchesPerDay, decimals: 1), "\n",
      ]
      try sink.write(cells.joined())
    }
  }

  /// The same tables for a terminal `width` columns wide: columns sized to their cells, in
  /// blocks that fit, each starting with the strategy or the user.
  func writeNarrow(width: Int, to sink: ByteSink) throws(TrackIOError) {
    let users = population.users
    let daily = users.filter(\.isDaily).count
    try sink.write(TerminalText.wrapped("users: \(users.count) from \(source) (\(daily) open the app on 90 % of days or more)", width: width) + "\n\n")
    let strategies = population.strategies.enumerated().map { k, strategy -> [String] in
      let (fresh, p90, perDay) = population.spreads(strategy: k)
      let worst = users.map { $0.summaries[k].staleness.p90 }.max() ?? 0
      return [
        "\(strategy)", NumberText.fixed(perDay.p50, decimals: 1), NumberText.fixed(perDay.p90, decimals: 1), Self.percent(fresh.p10),
        Self.percent(fresh.p50), NumberText.duration(p90.p50), NumberText.duration(p90.p90), NumberText.duration(worst),
      ]
    }
    try sink.write(TerminalText.table(
      header: ["strategy", "fetches/day p50", "p90", "fresh share p10", "p50", "p90 staleness p50", "p90", "worst user"], rows: strategies, width: width))
    var checks = "\nchecks (the scheduler over these users):\n"
    for check in population.checks { checks += "  " + (check.passed ? "pass" : "FAIL") + "  " + check.name + ": " + check.measured + "\n" }
    try sink.write(TerminalText.wrapped(checks, width: width) + "\n")
    let rows = users.map { user -> [String] in
      let (s, h) = (user.scheduler, user.hourly)
      return [
        user.name, Self.percent(s.staleness.freshShare), NumberText.duration(s.staleness.p90), NumberText.fixed(s.fetchesPerDay, decimals: 1),
        Self.percent(h.staleness.freshShare), NumberText.duration(h.staleness.p90), NumberText.fixed(h.fetchesPerDay, decimals: 1),
      ]
    }
    try sink.write(TerminalText.table(
      header: ["user", "scheduler: fresh", "p90", "fetches/day", "fixed 1 h: fresh", "p90", "fetches/day"], rows: rows, width: width))
  }

  func writeJSONLines(to sink: ByteSink) throws(TrackIOError) {
    func number(_ x: Double) -> String { NumberText.fixed(x, decimals: 4) }
    for user in population.users {
      for (k, s) in user.summaries.enumerated() {
        // The scheduler's line says whether it beat an even timer with as many fetches.
        let earns = k > 0 ? "" : ",\"earnsItsFetches\":" + (user.earnsItsFetches.map { "\($0)" } ?? "null")
        try sink.write(
          "{\"type\":\"user\",\"user\":\(JSONText.quoted(user.name)),\"strategy\":\(JSONText.quoted("\(s.strategy)")),"
            + "\"daily\":\(user.isDaily),\"launches\":\(s.staleness.launches),\"fresh\":\(s.staleness.fresh),"
            + "\"freshShare\":\(number(s.staleness.freshShare)),\"stalenessP50\":\(number(s.staleness.p50)),"
            + "\"stalenessP90\":\(number(s.staleness.p90)),\"stalenessMax\":\(number(s.staleness.maximum)),\"fetches\":\(s.fetches),\"fetchesPerDay\":\(number(s.fetchesPerDay))\(earns)}\n")
      }
    }
    for (k, strategy) in population.strategies.enumerated() {
      let (fresh, p90, perDay) = population.spreads(strategy: k)
      func spread(_ s: FetchPopulation.Spread) -> String { "{\"p10\":\(number(s.p10)),\"p50\":\(number(s.p50)),\"p90\":\(number(s.p90))}" }
      try sink.write(
        "{\"type\":\"spread\",\"strategy\":\(JSONText.quoted("\(strategy)")),\"users\":\(population.users.count),"
          + "\"freshShare\":\(spread(fresh)),\"stalenessP90\":\(spread(p90)),\"fetchesPerDay\":\(spread(perDay))}\n")
    }
    for check in population.checks {
      try sink.write(
        "{\"type\":\"check\",\"check\":\(JSONText.quoted(check.name)),\"passed\":\(check.passed),\"measured\":\(JSONText.quoted(check.measured))}\n")
    }
  }
}
