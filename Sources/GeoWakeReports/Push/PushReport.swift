import JSONBytes
public import TrackIO
public import BackgroundRuntime

/// Writes a ``PushSimulation/Run``: per request, APNs' answer, what became of it and what it did
/// to the app, then a summary; as a table, JSON Lines (one line per request), or a self-contained
/// HTML page with an SVG of each push from sent to delivered.
public struct PushReport {
  public enum Format: String, CaseIterable, Sendable {
    case table, jsonl, html
  }

  public let run: PushSimulation.Run
  public let scheduleSource: String

  public init(_ run: PushSimulation.Run, scheduleSource: String) {
    self.run = run
    self.scheduleSource = scheduleSource
  }

  public func write(_ format: Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .table:
      try sink.write("sent at               apns-id                               status              outcome      delivered at          detail\n")
      for o in run.outcomes {
        let status = o.reason.map { "\(o.status) \($0.rawValue)" } ?? "\(o.status)"
        try sink.write(
          TimestampText.iso8601(o.time).column(22) + (o.apnsID ?? "-").column(38) + status.column(20) + o.kind.rawValue.column(13)
            + (o.deliveredAt.map { TimestampText.iso8601($0) } ?? "-").column(22) + o.detail + "\n")
      }
      try sink.write("\n" + summaryText)
    case .jsonl:
      for o in run.outcomes { try sink.write(Self.jsonLine(o) + "\n") }
    case .html:
      try writeHTML(to: sink)
    }
  }

  /// One request as a JSON object.
  static func jsonLine(_ o: PushOutcome) -> String {
    func time(_ t: Double?) -> String { t.map { "\"\(TimestampText.iso8601Compact($0))\"" } ?? "null" }
    let delay = o.deliveredAt.map { NumberText.fixed($0 - o.time, decimals: 3) } ?? "null"
    return "{\"request\":\(o.request),\"at\":\(time(o.time)),\"apnsId\":\(o.apnsID.map { JSONText.quoted($0) } ?? "null"),\"status\":\(o.status)"
      + ",\"reason\":\(o.reason.map { "\"\($0.rawValue)\"" } ?? "null")"
      + ",\"timestamp\":\(o.timestamp.map { "\(Int(($0 * 1_000).rounded()))" } ?? "null")"
      + ",\"outcome\":\"\(o.kind.rawValue)\",\"deliveredAt\":\(time(o.deliveredAt)),\"delay\":\(delay)"
      + ",\"carrier\":\(o.carrier.map { JSONText.quoted($0) } ?? "null"),\"wakesApp\":\(o.wakesApp)"
      + ",\"app\":\(o.app.map { "\"\($0.rawValue)\"" } ?? "null"),\"detail\":\(JSONText.quoted(o.detail))}"
  }

  /// Totals: answers, outcomes, delays, the app's wakes.
  public var summaryText: String {
    let outcomes = run.outcomes
    let rejected = outcomes.filter { $0.kind == .rejected }
    var text = "\(scheduleSource): \(outcomes.count) request\(outcomes.count == 1 ? "" : "s"), \(outcomes.count - rejected.count) accepted, \(rejected.count) rejected"
    if !rejected.isEmpty {
      var byReason: [String: Int] = [:]
      for r in rejected { byReason["\(r.status) \(r.reason?.rawValue ?? "")", default: 0] += 1 }
      text += " (" + byReason.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
    }
    text += "\noutcomes: " + PushOutcome.Kind.allCases.filter { $0 != .rejected }.map { k in "\(outcomes.filter { $0.kind == k }.count) \(k.rawValue)" }.joined(separator: ", ") + "\n"
    let delays = outcomes.compactMap { o in o.deliveredAt.map { $0 - o.time } }.filter { $0 > 0 }.sorted()
    if !delays.isEmpty {
      text += "late deliveries: \(delays.count), delay median \(NumberText.duration(delays[(delays.count - 1) / 2])), max \(NumberText.duration(delays.last ?? 0))\n"
    }
    var effects: [String] = []
    for e in [PushOutcome.AppEffect.completed, .failed, .terminated, .notLaunched, .onScreen, .notWoken, .shown] {
      let n = outcomes.filter { $0.app == e }.count
      if n > 0 { effects.append("\(n) \(e.rawValue)") }
    }
    let s = run.runtimeSummary
    text += "app: \(s.wakes[.remoteNotification] ?? 0) background wakes, \(NumberText.duration(s.backgroundSeconds[.remoteNotification] ?? 0)) in the background, \(s.terminations) terminations"
    text += effects.isEmpty ? "\n" : "; notifications: " + effects.joined(separator: ", ") + "\n"
    text += "silent-push budget (profile \(run.profile.name)): \(run.profile.silentBudgetText); track record \(NumberText.fixed(run.trackRecord.score(at: outcomes.map(\.time).max() ?? 0), decimals: 2)) (the budget scales with it)\n"
    return text
  }

  // MARK: - HTML

  func writeHTML(to sink: ByteSink) throws(TrackIOError) {
    let esc = TimelineMapReport.escaped
    let outcomes = run.outcomes
    let times = outcomes.flatMap { [$0.time] + ($0.deliveredAt.map { [$0] } ?? []) }
    let t0 = times.min() ?? 0
    let t1 = max((times.max() ?? 0), t0 + 60)
    let left = 40.0
    let right = 940.0
    let rowHeight = outcomes.count > 200 ? 3.0 : 12.0
    let top = 20.0
    let height = top + Double(outcomes.count) * rowHeight + 30
    func x(_ t: Double) -> Double { left + (t - t0) / (t1 - t0) * (right - left) }
    func n(_ v: Double) -> String { NumberText.fixed(v, decimals: 1) }
    try sink.write("""
      <!DOCTYPE html>
      <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
      <head>
      <meta charset="utf-8"/>
      <title>GeoWake push report</title>
      <style>
      body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
      h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; } .sub { color: #666; }
      svg { background: #fafafa; border: 1px solid #ddd; max-width: 100%; height: auto; } text { font-size: 11px; fill: #444; }
      line.push { stroke-width: 2; } circle { stroke: #fff; stroke-width: 0.5; }
      .delivered { stroke: #2a9d3a; fill: #2a9d3a; } .delayed { stroke: #f08c00; fill: #f08c00; } .piggybacked { stroke: #7c3aed; fill: #7c3aed; }
      .held { stroke: #999; fill: #999; } .dropped, .coalesced { stroke: #d62828; fill: #d62828; } .rejected { stroke: #000; fill: #000; }
      table { border-collapse: collapse; font-size: 12px; } td, th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; vertical-align: top; }
      pre { background: #f4f4f4; padding: 8px; overflow-x: auto; }
      </style>
      </head>
      <body>
      <h1>Pushes: \(esc(scheduleSource))</h1>
      <p class="sub">One row per request, from sent (dot) to delivered (line end). Green delivered, orange delayed, violet piggybacked, grey held, red dropped or coalesced, black rejected.</p>
      <svg xmlns="http://www.w3.org/2000/svg" width="960" height="\(Int(height))" viewBox="0 0 960 \(Int(height))">

      """)
    for tick in TimelineMapReport.axisTicks(from: t0, to: t1) {
      try sink.write("<text x=\"\(n(x(tick) - 30))\" y=\"12\">\(esc(String(TimestampText.iso8601(tick).prefix(16))))</text>")
    }
    try sink.write("\n")
    for o in outcomes {
      let y = top + Double(o.request) * rowHeight + rowHeight / 2
      let tip = "<title>\(esc("#\(o.request) \(o.apnsID ?? "") \(o.kind.rawValue): \(o.detail)"))</title>"
      if let d = o.deliveredAt, d > o.time {
        try sink.write("<line class=\"push \(o.kind.rawValue)\" x1=\"\(n(x(o.time)))\" y1=\"\(n(y))\" x2=\"\(n(x(d)))\" y2=\"\(n(y))\">\(tip)</line>")
      }
      try sink.write("<circle class=\"\(o.kind.rawValue)\" cx=\"\(n(x(o.time)))\" cy=\"\(n(y))\" r=\"\(rowHeight > 5 ? 3.5 : 1.5)\">\(tip)</circle>\n")
    }
    try sink.write("</svg>\n<h2>Summary</h2>\n<pre>\(esc(summaryText))</pre>\n<h2>Requests</h2>\n<table>\n")
    try sink.write("<tr><th>#</th><th>sent</th><th>apns-id</th><th>status</th><th>outcome</th><th>delivered</th><th>detail</th></tr>\n")
    for o in outcomes {
      try sink.write(
        "<tr><td>\(o.request)</td><td>\(TimestampText.iso8601(o.time))</td><td>\(esc(o.apnsID ?? "-"))</td><td>\(o.status)\(o.reason.map { " \($0.rawValue)" } ?? "")</td>"
          + "<td>\(o.kind.rawValue)</td><td>\(o.deliveredAt.map { TimestampText.iso8601($0) } ?? "-")</td><td>\(esc(o.detail))</td></tr>\n")
    }
    try sink.write("</table>\n</body>\n</html>\n")
  }
}
