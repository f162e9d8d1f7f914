import TrackIO
import BackgroundRuntime

/// The fetch report as one self-contained XHTML page: a day-by-day chart (one row per local
/// day, time of day across: publications, the scheduler's fetches and skips, launches coloured
/// by staleness), staleness at each launch over the window for every strategy, the summary, and
/// the scheduler's decisions in a table. Every mark has a tooltip (`<title>`).
struct FetchHTMLReport {
  /// The zone of the local times, for headings: `UTC+02:00`, or `UTC`.
  var zone: String {
    let stamp = TimestampText.iso8601(0, utcOffset: report.utcOffset)
    return stamp.hasSuffix("Z") ? "UTC" : "UTC" + stamp.suffix(6)
  }

  let report: FetchReport

  static let width = 960.0
  static let left = 120.0
  static let right = 940.0
  static let rowHeight = 22.0

  func write(to sink: ByteSink) throws(TrackIOError) {
    let esc = TimelineMapReport.escaped
    try sink.write("""
      <!DOCTYPE html>
      <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
      <head>
      <meta charset="utf-8"/>
      <title>GeoWake fetch report</title>
      <style>
      body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
      h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
      .sub { color: #666; margin: 0 0 16px; }
      svg { background: #fafafa; border: 1px solid #ddd; max-width: 100%; height: auto; }
      .lane { stroke: #e4e4e4; } .axis { stroke: #999; } text { font-size: 11px; fill: #444; }
      .publication { stroke: #bbb; stroke-width: 1; }
      .fetch { stroke: #1d4ed8; stroke-width: 2; } .skip { stroke: #1d4ed8; stroke-width: 1; stroke-dasharray: 2 2; opacity: 0.6; }
      .terminated { stroke: #000; stroke-width: 2; }
      .fresh { fill: #2a9d3a; } .stale { fill: #d62828; } .launch { stroke: #fff; stroke-width: 1; }
      .s0 { fill: #1d4ed8; } .s1 { fill: #999; } .s2 { fill: #f08c00; } .s3 { fill: #2a9d3a; }
      .bar { stroke: #d62828; stroke-dasharray: 4 3; }
      table { border-collapse: collapse; font-size: 12px; } td, th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; vertical-align: top; }
      pre { background: #f4f4f4; padding: 8px; overflow-x: auto; }
      </style>
      </head>
      <body>
      <h1>Background fetch: \(esc(report.usageSource))</h1>
      <p class="sub">\(esc(report.feedSource)) · strategies: \(report.comparison.summaries.map { "\($0.strategy)" }.joined(separator: ", "))</p>

      """)
    try writeDays(to: sink)
    try writeStaleness(to: sink)
    try sink.write("<h2>Summary</h2>\n<pre>\(esc(report.summaryText))</pre>\n")
    try writeTable(to: sink)
    try sink.write("</body>\n</html>\n")
  }

  static func n(_ v: Double) -> String { NumberText.fixed(v, decimals: 1) }

  /// One row per local day of the window; x is the time of day.
  private func writeDays(to sink: ByteSink) throws(TrackIOError) {
    let esc = TimelineMapReport.escaped
    let sim = report.simulation
    let offset = report.utcOffset
    let firstDay = LocalTime(sim.window.lowerBound, utcOffset: offset).day
    let lastDay = LocalTime(sim.window.upperBound - 1, utcOffset: offset).day
    let rows = max(1, lastDay - firstDay + 1)
    let top = 24.0
    let height = top + Double(rows) * Self.rowHeight + 10
    func x(_ second: Double) -> Double { Self.left + second / LocalTime.secondsPerDay * (Self.right - Self.left) }
    func place(_ t: Double) -> (x: Double, y: Double)? {
      let local = LocalTime(t, utcOffset: offset)
      guard local.day >= firstDay, local.day <= lastDay else { return nil }
      return (x(local.secondOfDay), top + Double(local.day - firstDay) * Self.rowHeight + Self.rowHeight / 2)
    }
    try sink.write("<h2>Day by day <span class=\"zone\">(local time, \(zone))</span></h2>\n<p class=\"sub\">Grey: publications · blue: the scheduler's fetches (dashed: passed over, black: terminated) · dots: launches, green when the content was fresh, red when not (tooltips give the staleness).</p>\n")
    try sink.write("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\">\n")
    let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    for r in 0..<rows {
      let y = top + Double(r) * Self.rowHeight + Self.rowHeight / 2
      let day = firstDay + r
      let date = String(TimestampText.iso8601(LocalTime.time(day: day, secondOfDay: 0, utcOffset: 0)).prefix(10))
      try sink.write("<line class=\"lane\" x1=\"\(Self.n(Self.left))\" y1=\"\(Self.n(y))\" x2=\"\(Self.n(Self.right))\" y2=\"\(Self.n(y))\"/>")
      try sink.write("<text x=\"8\" y=\"\(Self.n(y + 4))\">\(weekdays[((day + 4) % 7 + 7) % 7]) \(date)</text>\n")
    }
    for h in stride(from: 0, through: 24, by: 3) {
      let hx = x(Double(h) * 3_600)
      try sink.write("<line class=\"axis\" x1=\"\(Self.n(hx))\" y1=\"\(Self.n(top - 4))\" x2=\"\(Self.n(hx))\" y2=\"\(Self.n(height - 10))\" opacity=\"0.3\"/>")
      try sink.write("<text x=\"\(Self.n(hx - 12))\" y=\"14\">\(h < 10 ? "0" : "")\(h):00</text>\n")
    }
    let feed = sim.feed
    for k in feed.index(after: sim.window.lowerBound - 1e-9)..<feed.index(after: sim.window.upperBound - 1e-9) {
      guard let p = place(feed.publications[k]) else { continue }
      try sink.write("<line class=\"publication\" x1=\"\(Self.n(p.x))\" y1=\"\(Self.n(p.y - 4))\" x2=\"\(Self.n(p.x))\" y2=\"\(Self.n(p.y + 4))\"/>")
    }
    try sink.write("\n")
    for e in report.comparison.scheduler.events {
      guard let p = place(e.time) else { continue }
      let tip = "<title>\(esc(report.time(e.time))) \(esc(e.kind.rawValue)): \(esc(e.detail))</title>"
      switch e.kind {
      case .fetchRequested, .fetchSkipped, .fetchTerminated:
        let cls = e.kind == .fetchRequested ? "fetch" : e.kind == .fetchSkipped ? "skip" : "terminated"
        try sink.write("<line class=\"\(cls)\" x1=\"\(Self.n(p.x))\" y1=\"\(Self.n(p.y - 8))\" x2=\"\(Self.n(p.x))\" y2=\"\(Self.n(p.y + 8))\">\(tip)</line>\n")
      case .launch:
        let cls = (e.staleness ?? 0) == 0 ? "fresh" : "stale"
        try sink.write("<circle class=\"launch \(cls)\" cx=\"\(Self.n(p.x))\" cy=\"\(Self.n(p.y))\" r=\"4\">\(tip)</circle>\n")
      default: break
      }
    }
    try sink.write("</svg>\n")
  }

  /// Staleness at each launch over the window, one colour per strategy, with the 10 min line.
  private func writeStaleness(to sink: ByteSink) throws(TrackIOError) {
    let esc = TimelineMapReport.escaped
    let sim = report.simulation
    let runs = report.comparison.runs
    let worst = runs.flatMap { $0.events.compactMap(\.staleness) }.max() ?? 0
    let top = max(900.0, (worst * 1.05 / 600).rounded(.up) * 600)
    let (t0, t1) = (sim.window.lowerBound, sim.window.upperBound)
    let plotTop = 16.0
    let plotBottom = 216.0
    let height = plotBottom + 40
    func x(_ t: Double) -> Double { Self.left + (t - t0) / max(1, t1 - t0) * (Self.right - Self.left) }
    func y(_ s: Double) -> Double { plotBottom - s / top * (plotBottom - plotTop) }
    try sink.write("<h2>Staleness at launch <span class=\"zone\">(local time, \(zone))</span></h2>\n<p class=\"sub\">")
    for (k, run) in runs.enumerated() {
      try sink.write("<svg width=\"12\" height=\"12\" style=\"border:none;background:none\"><circle class=\"s\(k)\" cx=\"6\" cy=\"6\" r=\"4\"/></svg> \(esc("\(run.summary.strategy)")) ")
    }
    try sink.write("· dashed: 10 min</p>\n")
    try sink.write("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\">\n")
    try sink.write("<line class=\"axis\" x1=\"\(Self.n(Self.left))\" y1=\"\(Self.n(plotBottom))\" x2=\"\(Self.n(Self.right))\" y2=\"\(Self.n(plotBottom))\"/>\n")
    try sink.write("<line class=\"bar\" x1=\"\(Self.n(Self.left))\" y1=\"\(Self.n(y(600)))\" x2=\"\(Self.n(Self.right))\" y2=\"\(Self.n(y(600)))\"/>\n")
    for s in [0.0, top / 2, top] {
      try sink.write("<text x=\"8\" y=\"\(Self.n(y(s) + 4))\">\(esc(NumberText.duration(s)))</text>\n")
    }
    // Ticks at round local times.
    let offset = Double(report.utcOffset)
    for local in TimelineMapReport.axisTicks(from: t0 + offset, to: t1 + offset) {
      let t = local - offset
      let full = String(report.time(t).prefix(16))
      let label = full.hasSuffix("T00:00") ? String(full.prefix(10)) : full
      try sink.write("<text x=\"\(Self.n(x(t) - 30))\" y=\"\(Self.n(plotBottom + 16))\">\(esc(label))</text>\n")
    }
    // Fresh launches sit on the axis; drawing the scheduler last keeps it on top.
    for (k, run) in runs.enumerated().reversed() {
      for e in run.events {
        guard let s = e.staleness else { continue }
        let tip = "\(run.summary.strategy) \(report.time(e.time)): \(e.detail)"
        try sink.write("<circle class=\"s\(k)\" cx=\"\(Self.n(x(e.time)))\" cy=\"\(Self.n(y(s)))\" r=\"\(k == 0 ? 3 : 2.5)\"><title>\(esc(tip))</title></circle>")
      }
      try sink.write("\n")
    }
    try sink.write("</svg>\n")
  }

  /// The scheduler's fetch-level events.
  private func writeTable(to sink: ByteSink) throws(TrackIOError) {
    let esc = TimelineMapReport.escaped
    try sink.write("<h2>Scheduler timeline</h2>\n<table>\n<tr><th>local time (\(zone))</th><th>event</th><th>detail</th></tr>\n")
    for e in report.comparison.scheduler.events {
      try sink.write("<tr><td>\(esc(report.time(e.time)))</td><td>\(e.kind.rawValue)</td><td>\(esc(e.detail))</td></tr>\n")
    }
    try sink.write("</table>\n")
  }
}
