import JSONBytes
public import TrackIO
public import BackgroundRuntime

/// Writes a ``PushSimulation/Run``: everything the device did, in time order — each request's
/// steps (APNs' answer, its delivery or fate, its handling) and the app's steps —, then a summary
/// with one line per request; as a table, JSON Lines or CSV (the `analyze` schema's push and app
/// entries), or a self-contained HTML page with an SVG of each push from sent to delivered.
public struct PushReport {
  public enum Format: String, CaseIterable, Sendable {
    case table, jsonl, csv, html
  }

  public let run: PushSimulation.Run
  public let scheduleSource: String

  public init(_ run: PushSimulation.Run, scheduleSource: String) {
    self.run = run
    self.scheduleSource = scheduleSource
  }

  /// The run's steps as timeline entries (no position: no track says where the device was).
  public var entries: [TimelineEntry] {
    run.timeline.map { e in
      switch e {
      case .push(let p): TimelineEntry(p, coordinate: nil)
      case .app(let r): TimelineEntry(r, coordinate: nil)
      case .fetch(let f): TimelineEntry(f, coordinate: nil)
      }
    }
  }

  /// The terminal's width for `table` (nil: lines as long as they are, as when piped): times of
  /// day under a line for each day, details that do not fit wrapped below their row, the
  /// requests' table in blocks that fit with their details below it.
  public var width: Int?

  public func write(_ format: Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .table:
      if let width { return try writeNarrow(width: width, to: sink) }
      try sink.write("at                    step     event              detail\n")
      for e in entries {
        let step = e.request.map { "#\($0)" } ?? e.subject
        try sink.write(TimestampText.iso8601(e.time).column(22) + step.column(9) + Self.shortEvent(e).column(19) + e.reason)
        try sink.write(TimelineWriter.appState(e) + "\n")
      }
      try sink.write("\n" + summaryText + "\n" + requestTable)
    case .jsonl, .csv:
      var writer = TimelineWriter(format: format == .jsonl ? .jsonl : .csv, sink: sink, regions: [])
      try writer.begin()
      for e in entries { try writer.write(e) }
      try writer.finish(summary: "")
    case .html:
      try writeHTML(to: sink)
    }
  }

  /// A step's event in the table: a push step without its `push` prefix (`delivered`).
  static func shortEvent(_ e: TimelineEntry) -> String {
    guard e.category == .push, e.event.hasPrefix("push") else { return e.event }
    let name = e.event.dropFirst(4)
    return name.prefix(1).lowercased() + name.dropFirst()
  }

  /// The table for a terminal `width` columns wide (see ``width``).
  func writeNarrow(width: Int, to sink: ByteSink) throws(TrackIOError) {
    try sink.write("at        step     event\n")
    var day: String?
    for e in entries {
      let stamp = TimestampText.iso8601(e.time)
      if stamp.prefix(10) != day.map({ Substring($0) }) {
        day = String(stamp.prefix(10))
        try sink.write("\(day!) (UTC)\n")
      }
      let step = e.request.map { "#\($0)" } ?? e.subject
      let row = String(stamp.dropFirst(11).prefix(8)).column(10) + step.column(9)
      let detail = e.reason + TimelineWriter.appState(e)
      let inline = row + Self.shortEvent(e).column(19)
      if inline.count + detail.count <= width {
        try sink.write(inline + detail + "\n")
      } else {
        try sink.write(row + Self.shortEvent(e) + "\n")
        for line in TerminalText.wrapped(detail, width: width - 4, indent: 0).split(separator: "\n") { try sink.write("    " + line + "\n") }
      }
    }
    try sink.write("\n" + TerminalText.wrapped(summaryText, width: width) + "\n")
    let rows = run.outcomes.enumerated().map { k, o -> [String] in
      [
        "#\(k)", TimestampText.iso8601(o.time), o.apnsID ?? "-", o.reason.map { "\(o.status) \($0.rawValue)" } ?? "\(o.status)", o.kind.rawValue,
        o.deliveredAt.map { TimestampText.iso8601($0) } ?? "-",
      ]
    }
    try sink.write(TerminalText.table(header: ["request", "sent at", "apns-id", "status", "outcome", "delivered at"], rows: rows, width: width))
    try sink.write("\nwhy:\n")
    for (k, o) in run.outcomes.enumerated() {
      try sink.write(TerminalText.wrapped("#\(k) " + o.detail, width: width) + "\n")
    }
  }

  /// One line per request: when it was sent, its apns-id and APNs' answer, how it ended, when it
  /// was delivered, and why.
  public var requestTable: String {
    var text = "sent at               apns-id                               status              outcome      delivered at          detail\n"
    for o in run.outcomes {
      let status = o.reason.map { "\(o.status) \($0.rawValue)" } ?? "\(o.status)"
      text += TimestampText.iso8601(o.time).column(22) + (o.apnsID ?? "-").column(38) + status.column(20) + o.kind.rawValue.column(13)
        + (o.deliveredAt.map { TimestampText.iso8601($0) } ?? "-").column(22) + o.detail + "\n"
    }
    return text
  }

  /// Totals: answers, outcomes, delays, the app's wakes.
  public var summaryText: String {
    Self.summaryText(
      run.tally, source: scheduleSource, runtime: run.runtimeSummary, trackRecord: run.trackRecord, profile: run.profile)
  }

  /// The totals of a device's pushes: answers, outcomes, delays, what they did to the app, the
  /// silent-push budget and the track record that scales it.
  public static func summaryText(
    _ tally: PushTally, source: String, runtime s: RuntimeSummary, trackRecord: FetchTrackRecord, profile: PushProfile
  ) -> String {
    var text = "\(source): \(tally.requests) request\(tally.requests == 1 ? "" : "s"), \(tally.accepted) accepted, \(tally.rejected) rejected"
    if !tally.rejections.isEmpty {
      text += " (" + tally.rejections.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
    }
    text += "\noutcomes: " + PushOutcome.Kind.allCases.filter { $0 != .rejected }.map { k in "\(tally.count(k)) \(k.rawValue)" }.joined(separator: ", ") + "\n"
    let delays = tally.delays.sorted()
    if !delays.isEmpty {
      text += "late deliveries: \(delays.count), delay median \(NumberText.duration(delays[(delays.count - 1) / 2])), max \(NumberText.duration(delays.last ?? 0))\n"
    }
    var effects: [String] = []
    for e in [PushOutcome.AppEffect.completed, .failed, .terminated, .killed, .notLaunched, .onScreen, .notWoken, .shown] {
      let n = tally.count(e)
      if n > 0 { effects.append("\(n) \(e.rawValue)") }
    }
    text += "app: \(s.wakes[.remoteNotification] ?? 0) background wakes, \(NumberText.duration(s.backgroundSeconds[.remoteNotification] ?? 0)) in the background, \(s.terminations) terminations"
    text += effects.isEmpty ? "\n" : "; notifications: " + effects.joined(separator: ", ") + "\n"
    if profile.delivery == .fcm {
      text += "delivery (profile \(profile.name)): FCM — high priority through Doze within the standby bucket's daily quota, normal priority at Doze's maintenance windows; data messages wake the app, notification messages are shown by the system\n"
    } else {
      text += "silent-push budget (profile \(profile.name)): \(profile.silentBudgetText); track record \(NumberText.fixed(trackRecord.score(at: tally.lastSent ?? 0), decimals: 2)) (the budget scales with it)\n"
    }
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
