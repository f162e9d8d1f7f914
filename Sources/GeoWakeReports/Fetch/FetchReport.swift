import JSONBytes
public import TrackIO
public import BackgroundRuntime

/// Writes a ``FetchComparison``: the scheduler's timeline (fetch decisions, launches with their
/// staleness, and — in JSON Lines and HTML — the app runtime's steps), every strategy's totals,
/// and the promise's checks; as a table, JSON Lines, or one self-contained HTML page with SVG
/// plots of launches, fetches and staleness.
public struct FetchReport {
  public enum Format: String, CaseIterable, Sendable {
    case table, jsonl, html
  }

  public let comparison: FetchComparison
  /// Where the launches and the feed came from, for the header.
  public var usageSource: String
  public var feedSource: String

  public init(_ comparison: FetchComparison, usageSource: String, feedSource: String) {
    self.comparison = comparison
    self.usageSource = usageSource
    self.feedSource = feedSource
  }

  var simulation: FetchSimulation { comparison.simulation }
  /// The clock times are shown on: the last launch's.
  var utcOffset: Int { simulation.launches.last?.utcOffset ?? 0 }

  public func write(_ format: Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .table: try writeTable(to: sink)
    case .jsonl: try writeJSONLines(to: sink)
    case .html: try FetchHTMLReport(report: self).write(to: sink)
    }
  }

  // MARK: - Timeline

  /// A step of the scheduler's timeline: a fetch-level event or an app-runtime step.
  enum Step {
    case fetch(FetchEvent)
    case app(RuntimeEvent)

    var time: Double {
      switch self {
      case .fetch(let e): return e.time
      case .app(let e): return e.time
      }
    }
  }

  /// The scheduler's steps in the order the device made them (time order).
  func steps(includingApp: Bool) -> [Step] {
    comparison.scheduler.timeline.compactMap { e in
      switch e {
      case .fetch(let f): .fetch(f)
      case .app(let r): includingApp ? .app(r) : nil
      case .push: nil
      }
    }
  }

  func time(_ t: Double) -> String { TimestampText.iso8601(t, utcOffset: utcOffset) }

  // MARK: - Table

  func writeTable(to sink: ByteSink) throws(TrackIOError) {
    guard let width else {
      try sink.write("local time                  event              detail\n")
      for case .fetch(let e) in steps(includingApp: false) {
        try sink.write(time(e.time).column(28) + e.kind.rawValue.column(19) + e.detail + "\n")
      }
      return try sink.write("\n" + summaryText)
    }
    // For a terminal: times of day under a line for each local day, details that do not fit
    // wrapped below their row.
    try sink.write("time      event              detail\n")
    var day: String?
    for case .fetch(let e) in steps(includingApp: false) {
      let stamp = time(e.time)
      let today = String(stamp.prefix(10)) + " (UTC" + String(stamp.suffix(6)) + ")"
      if today != day {
        day = today
        try sink.write(today + "\n")
      }
      let row = String(stamp.dropFirst(11).prefix(8)).column(10) + e.kind.rawValue.column(19)
      if row.count + e.detail.count <= width {
        try sink.write(row + e.detail + "\n")
      } else {
        try sink.write(String(row.reversed().drop { $0 == " " }.reversed()) + "\n")
        let lines = TerminalText.wrapped(e.detail, width: width - 4, indent: 0).split(separator: "\n")
        for line in lines { try sink.write("    " + line + "\n") }
      }
    }
    try sink.write("\n" + summaryText(width: width))
  }

  /// The terminal's width for `table` (nil: lines as long as they are, as when piped): narrow
  /// rows, wrapped lines and the strategies' table in blocks that fit.
  public var width: Int?

  /// The header, every strategy's totals and the checks, as plain text.
  public var summaryText: String { summaryText(width: nil) }

  /// ``summaryText`` for a terminal `width` columns wide (nil: no limit).
  public func summaryText(width: Int?) -> String {
    let sim = simulation
    let window = sim.window
    let days = (window.upperBound - window.lowerBound) / LocalTime.secondsPerDay
    let history = sim.launches.lazy.filter { $0.time < window.lowerBound }
    let first = history.first.map { LocalTime($0.time, utcOffset: utcOffset).day }
    let historyDays = first.map { LocalTime(window.lowerBound, utcOffset: utcOffset).day - $0 } ?? 0
    let inWindow = sim.launches.lazy.filter { window.contains($0.time) }.count
    let published = sim.feed.unfetched(after: window.lowerBound - 1e-9, through: window.upperBound - 1e-9).count
    var text = "usage: \(usageSource): \(counted(inWindow, "launch", "launches")) in \(NumberText.fixed(days, decimals: 0)) days simulated ("
      + "\(time(window.lowerBound)) … \(time(window.upperBound)))"
      + (historyDays > 0 ? " after \(historyDays) days of history (\(counted(history.count, "launch", "launches")))\n" : ", no history\n")
    text += "feed: \(feedSource): \(counted(published, "publication", "publications")) in the window\n"
    let c = sim.configuration
    let modes = c.backgroundModes.map(\.rawValue).sorted().joined(separator: ", ")
    text += "app: fetch policy \(c.fetchPolicy), background modes \(modes.isEmpty ? "none" : modes); handler \(NumberText.duration(sim.handler.work))"
      + (sim.handler.failureRate > 0 ? ", fails \(NumberText.fixed(sim.handler.failureRate * 100, decimals: 0)) %" : "")
      + "; runtime \(sim.runtimeProfile.name), fetch profile \(sim.fetchProfile.name)\n"
    if let why = c.fetchDiagnostic { text += "no background fetch: \(why)\n" }
    if let width {
      let rows = comparison.summaries.map { s -> [String] in
        let st = s.staleness
        return [
          s.strategy.description, "\(s.fetches)", NumberText.fixed(s.fetchesPerDay, decimals: 1),
          "\(st.fresh) of \(st.launches) (\(NumberText.fixed(st.freshShare * 100, decimals: 1)) %)", NumberText.duration(st.p50),
          NumberText.duration(st.p90), NumberText.duration(st.maximum), NumberText.duration(s.backgroundSeconds), "\(s.outcomes[.terminated] ?? 0)",
        ]
      }
      text += "\n" + TerminalText.table(
        header: ["strategy", "fetches", "per day", "fresh launches", "p50", "p90", "max", "background", "terminated"], rows: rows, width: width)
    }
    if width == nil { text += "\nstrategy       fetches  per day  fresh launches         p50          p90          max          background   terminated\n" }
    for s in comparison.summaries where width == nil {
      let st = s.staleness
      let fresh = "\(st.fresh) of \(st.launches) (\(NumberText.fixed(st.freshShare * 100, decimals: 1)) %)"
      text += "\(s.strategy)".column(15) + "\(s.fetches)".column(9) + NumberText.fixed(s.fetchesPerDay, decimals: 1).column(9)
        + fresh.column(23) + NumberText.duration(st.p50).column(13) + NumberText.duration(st.p90).column(13)
        + NumberText.duration(st.maximum).column(13) + NumberText.duration(s.backgroundSeconds).column(13) + "\(s.outcomes[.terminated] ?? 0)\n"
    }
    let outcomes = comparison.scheduler.summary.outcomes
    text += "scheduler fetch results: " + FetchOutcome.allCases.map { "\(outcomes[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
      + "; \(counted(comparison.scheduler.summary.skipped, "opportunity", "opportunities")) passed over\n"
    var promise = "\nthe promise (fresh content at nearly every launch without constant fetching):\n"
    for check in comparison.checks { promise += "  \(check.passed ? "✓" : "✗") \(check.name): \(check.measured)\n" }
    return width.map { TerminalText.wrapped(text + promise, width: $0) } ?? text + promise
  }

  func counted(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

  // MARK: - JSON Lines

  func writeJSONLines(to sink: ByteSink) throws(TrackIOError) {
    for step in steps(includingApp: true) {
      switch step {
      case .fetch(let e):
        var line = "{\"type\":\"step\",\"category\":\"fetch\",\"at\":\"\(time(e.time))\",\"event\":\"\(e.kind.rawValue)\""
        if case .launch(let staleness, let waiting, let snapshotAge) = e.facts {
          line += ",\"staleness\":\(NumberText.fixed(staleness, decimals: 3)),\"waiting\":\(waiting)"
            + ",\"snapshotAge\":\(snapshotAge.map { NumberText.fixed($0, decimals: 3) } ?? "null")"
        }
        if let outcome = e.outcome { line += ",\"outcome\":\"\(outcome.rawValue)\"" }
        try sink.write(line + ",\"reason\":\(JSONText.quoted(e.detail))}\n")
      case .app(let r):
        try sink.write(
          "{\"type\":\"step\",\"category\":\"app\",\"at\":\"\(time(r.time))\",\"event\":\"\(r.kind.rawValue)\""
            + ",\"launchReason\":\(r.reason.map { "\"\($0.rawValue)\"" } ?? "null"),\"stateBefore\":\"\(r.stateBefore.rawValue)\""
            + ",\"stateAfter\":\"\(r.stateAfter.rawValue)\",\"budgetRemaining\":\(r.budgetRemaining.map { NumberText.fixed($0, decimals: 3) } ?? "null")"
            + ",\"reason\":\(JSONText.quoted(r.detail))}\n")
      }
    }
    for s in comparison.summaries {
      let st = s.staleness
      let outcomes = FetchOutcome.allCases.map { "\"\($0.rawValue)\":\(s.outcomes[$0] ?? 0)" }.joined(separator: ",")
      try sink.write(
        "{\"type\":\"summary\",\"strategy\":\"\(s.strategy)\",\"fetches\":\(s.fetches),\"fetchesPerDay\":\(NumberText.fixed(s.fetchesPerDay, decimals: 3))"
          + ",\"launches\":\(st.launches),\"fresh\":\(st.fresh),\"freshShare\":\(NumberText.fixed(st.freshShare, decimals: 4))"
          + ",\"stalenessP50\":\(NumberText.fixed(st.p50, decimals: 3)),\"stalenessP90\":\(NumberText.fixed(st.p90, decimals: 3))"
          + ",\"stalenessP99\":\(NumberText.fixed(st.p99, decimals: 3)),\"stalenessMax\":\(NumberText.fixed(st.maximum, decimals: 3))"
          + ",\"backgroundSeconds\":\(NumberText.fixed(s.backgroundSeconds, decimals: 3)),\"skipped\":\(s.skipped),\"lost\":\(s.lost)"
          + ",\"terminations\":\(s.terminations),\"outcomes\":{\(outcomes)}}\n")
    }
    for check in comparison.checks {
      try sink.write("{\"type\":\"check\",\"check\":\(JSONText.quoted(check.name)),\"passed\":\(check.passed),\"measured\":\(JSONText.quoted(check.measured))}\n")
    }
  }
}
