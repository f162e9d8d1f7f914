import JSONBytes
public import GeoWake
public import TrackIO
import BackgroundRuntime

/// Writes a ``FidelityRun``: per departure the measured exit delay against the predicted ones,
/// then per platform the two distributions (median, interquartile range, 90th percentile, share
/// with no exit, Kolmogorov–Smirnov distance); as a table, JSON Lines, or one self-contained
/// XHTML page that plots the two cumulative distributions.
public struct FidelityReport {
  public enum Format: String, CaseIterable, Sendable {
    case table, jsonl, html
  }

  public let run: FidelityRun
  /// Where the departures came from, for the header.
  public var source: String

  public init(_ run: FidelityRun, source: String) {
    self.run = run
    self.source = source
  }

  public func write(_ format: Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .table: try writeTable(to: sink)
    case .jsonl: try writeJSONLines(to: sink)
    case .html: try writeHTML(to: sink)
    }
  }

  // MARK: - Text

  static func seconds(_ v: Double?) -> String { v.map { NumberText.fixed($0, decimals: 0) + " s" } ?? "–" }

  static func percent(_ v: Double) -> String { NumberText.fixed(v * 100, decimals: 1) + " %" }

  var seedText: String {
    guard let first = run.seeds.first, let last = run.seeds.last else { return "no seeds" }
    return run.seeds.count == 1 ? "seed \(first)" : "\(run.seeds.count) seeds (\(first) to \(last))"
  }

  /// The summary of each platform, as lines of text.
  public var summaryText: String {
    var text = ""
    for p in run.platforms {
      let o = p.observed, q = p.predicted
      text += "\(p.platform.rawValue): \(o.count) departures compared"
      if p.excluded > 0 { text += " (\(p.excluded) with a premature measured exit left out)" }
      text += ", profile \(p.profile), \(seedText)\n"
      func row(_ name: String, _ a: String, _ b: String, _ note: String = "") -> String {
        ("  " + name.padding(13) + a.padding(20) + b.padding(20) + note).trailingSpacesRemoved + "\n"
      }
      text += row("", "measured", "predicted")
      text += row("median", Self.seconds(o.median), Self.seconds(q.median), Self.ratio(q.median, o.median))
      text += row(
        "IQR", "\(Self.seconds(o.quantile(0.25))) – \(Self.seconds(o.quantile(0.75)))",
        "\(Self.seconds(q.quantile(0.25))) – \(Self.seconds(q.quantile(0.75)))")
      text += row("p90", Self.seconds(o.quantile(0.9)), Self.seconds(q.quantile(0.9)), Self.ratio(q.quantile(0.9), o.quantile(0.9)))
      text += row(
        "no exit", "\(o.missed) of \(o.count) (\(Self.percent(o.missedShare)))", "\(q.missed) of \(q.count) (\(Self.percent(q.missedShare)))")
      text += "  Kolmogorov–Smirnov distance: \(p.kolmogorovSmirnovDistance.map { NumberText.fixed($0, decimals: 3) } ?? "–")\n"
    }
    return text
  }

  static func ratio(_ predicted: Double?, _ measured: Double?) -> String {
    guard let predicted, let measured, measured != 0 else { return "" }
    let change = (predicted / measured - 1) * 100
    return (change >= 0 ? "+" : "") + NumberText.fixed(change, decimals: 0) + " %"
  }

  private func writeTable(to sink: ByteSink) throws(TrackIOError) {
    try sink.write("fidelity of \(source): exit delay after the departure, measured on phones and predicted, \(seedText)\n\n")
    let idWidth = max(10, (run.departures.map(\.departure.id.count).max() ?? 0) + 2)
    try sink.write("id".padding(idWidth) + "platform  measured  predicted median  p10 – p90         no exit  note\n")
    for d in run.departures {
      let q = d.predictedDistribution
      var line = d.departure.id.padding(idWidth) + d.departure.platform.rawValue.padding(10)
      line += Self.seconds(d.observed).padding(10) + Self.seconds(q.median).padding(18)
      line += "\(Self.seconds(q.quantile(0.1))) – \(Self.seconds(q.quantile(0.9)))".padding(18)
      line += "\(q.missed) of \(q.count)".padding(9)
      if !d.departure.isComparable { line += "premature measured exit: not compared" }
      try sink.write(line.trailingSpacesRemoved + "\n")
    }
    try sink.write("\n" + summaryText)
  }

  // MARK: - JSON Lines

  private func writeJSONLines(to sink: ByteSink) throws(TrackIOError) {
    func number(_ v: Double?) -> String { v.map { NumberText.fixed($0, decimals: 3) } ?? "null" }
    for d in run.departures {
      var line = "{\"kind\":\"departure\",\"id\":\(JSONText.quoted(d.departure.id)),\"platform\":\"\(d.departure.platform.rawValue)\""
      line += ",\"profile\":\(JSONText.quoted(d.profile)),\"compared\":\(d.departure.isComparable),\"measured\":\(number(d.observed))"
      line += ",\"predicted\":[" + d.predicted.map(number).joined(separator: ",") + "]}\n"
      try sink.write(line)
    }
    for p in run.platforms {
      func summary(_ s: DelayDistribution) -> String {
        "{\"count\":\(s.count),\"missed\":\(s.missed),\"median\":\(number(s.median)),\"q1\":\(number(s.quantile(0.25)))"
          + ",\"q3\":\(number(s.quantile(0.75))),\"p90\":\(number(s.quantile(0.9)))}"
      }
      var line = "{\"kind\":\"platform\",\"platform\":\"\(p.platform.rawValue)\",\"profile\":\(JSONText.quoted(p.profile))"
      line += ",\"seeds\":[" + run.seeds.map { "\($0)" }.joined(separator: ",") + "],\"excluded\":\(p.excluded)"
      line += ",\"measured\":\(summary(p.observed)),\"predicted\":\(summary(p.predicted))"
      line += ",\"ks\":\(number(p.kolmogorovSmirnovDistance))}\n"
      try sink.write(line)
    }
  }

  // MARK: - HTML

  static let width = 720.0
  static let height = 360.0
  static let left = 64.0
  static let right = 700.0
  static let top = 20.0
  static let bottom = 310.0

  private func writeHTML(to sink: ByteSink) throws(TrackIOError) {
    let esc = MarkupText.escaped
    try sink.write("""
      <!DOCTYPE html>
      <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
      <head>
      <meta charset="utf-8"/>
      <title>GeoWake fidelity: \(esc(source))</title>
      <style>
      body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
      h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
      .sub { color: #666; margin: 0 0 16px; }
      svg { background: #fafafa; border: 1px solid #ddd; max-width: 100%; height: auto; }
      .grid { stroke: #e4e4e4; } .axis { stroke: #999; } text { font-size: 12px; fill: #444; }
      .measured { fill: none; stroke: #d62828; stroke-width: 2; } .predicted { fill: none; stroke: #1d4ed8; stroke-width: 2; }
      .swatch { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin: 0 4px 0 12px; }
      table { border-collapse: collapse; font-size: 12px; } td, th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; }
      td.n { text-align: right; font-variant-numeric: tabular-nums; }
      pre { background: #f4f4f4; padding: 8px; overflow-x: auto; }
      </style>
      </head>
      <body>
      <h1>Fidelity: \(esc(source))</h1>
      <p class="sub">Exit delay after the departure: measured on phones against predicted by the profiles, \(esc(seedText)).</p>

      """)
    for p in run.platforms { try writePlot(p, to: sink) }
    try sink.write("<h2>Summary</h2>\n<pre>\(esc(summaryText))</pre>\n<h2>Departures</h2>\n<table>\n")
    try sink.write("<tr><th>id</th><th>platform</th><th>measured</th><th>predicted median</th><th>p10 – p90</th><th>no exit</th><th>note</th></tr>\n")
    for d in run.departures {
      let q = d.predictedDistribution
      try sink.write(
        "<tr><td>\(esc(d.departure.id))</td><td>\(d.departure.platform.rawValue)</td><td class=\"n\">\(Self.seconds(d.observed))</td>"
          + "<td class=\"n\">\(Self.seconds(q.median))</td><td class=\"n\">\(Self.seconds(q.quantile(0.1))) – \(Self.seconds(q.quantile(0.9)))</td>"
          + "<td class=\"n\">\(q.missed) of \(q.count)</td><td>\(d.departure.isComparable ? "" : "premature measured exit: not compared")</td></tr>\n")
    }
    try sink.write("</table>\n</body>\n</html>\n")
  }

  /// The two empirical distribution functions as steps, delay in minutes across.
  private func writePlot(_ p: FidelityRun.PlatformResult, to sink: ByteSink) throws(TrackIOError) {
    let esc = MarkupText.escaped
    let all = p.observed.delays + p.predicted.delays
    let low = min(0, (all.min() ?? 0) / 60).rounded(.down)
    // Up to the 99th percentile of both, so that one late outlier does not squeeze the rest.
    let tail = max(p.observed.quantile(0.99) ?? 0, p.predicted.quantile(0.99) ?? 0) / 60
    let high = max(low + 1, tail.rounded(.up))
    let step = high - low > 20 ? 5.0 : high - low > 8 ? 2.0 : 1.0
    func x(_ minutes: Double) -> Double { Self.left + (min(high, max(low, minutes)) - low) / (high - low) * (Self.right - Self.left) }
    func y(_ share: Double) -> Double { Self.bottom - share * (Self.bottom - Self.top) }
    func n(_ v: Double) -> String { NumberText.fixed(v, decimals: 1) }
    let ks = p.kolmogorovSmirnovDistance.map { NumberText.fixed($0, decimals: 3) } ?? "–"
    try sink.write("<h2>\(p.platform.rawValue): profile \(esc(p.profile))</h2>\n")
    try sink.write(
      "<p><span class=\"swatch\" style=\"background:#d62828\"></span>measured (\(p.observed.delays.count) exits)"
        + "<span class=\"swatch\" style=\"background:#1d4ed8\"></span>predicted (\(p.predicted.delays.count) exits) · KS distance \(ks)</p>\n")
    try sink.write("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(Self.height))\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\">\n")
    var m = low
    while m <= high {
      try sink.write("<line class=\"grid\" x1=\"\(n(x(m)))\" y1=\"\(n(Self.top))\" x2=\"\(n(x(m)))\" y2=\"\(n(Self.bottom))\"/>")
      try sink.write("<text x=\"\(n(x(m)))\" y=\"\(n(Self.bottom + 16))\" text-anchor=\"middle\">\(Int(m))</text>\n")
      m += step
    }
    for share in stride(from: 0.0, through: 1.0, by: 0.25) {
      try sink.write("<line class=\"grid\" x1=\"\(n(Self.left))\" y1=\"\(n(y(share)))\" x2=\"\(n(Self.right))\" y2=\"\(n(y(share)))\"/>")
      try sink.write("<text x=\"\(n(Self.left - 6))\" y=\"\(n(y(share) + 4))\" text-anchor=\"end\">\(Int(share * 100)) %</text>\n")
    }
    try sink.write("<text x=\"\(n((Self.left + Self.right) / 2))\" y=\"\(n(Self.bottom + 36))\" text-anchor=\"middle\">minutes from the departure to the exit</text>\n")
    try sink.write("<text transform=\"translate(16 \(n((Self.top + Self.bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">share of exits</text>\n")
    for (sample, name) in [(p.predicted, "predicted"), (p.observed, "measured")] {
      guard !sample.delays.isEmpty else { continue }
      var path = "M\(n(x(low))),\(n(y(0)))"
      let count = Double(sample.delays.count)
      for (k, d) in sample.delays.enumerated() {
        path += " H\(n(x(d / 60))) V\(n(y(Double(k + 1) / count)))"
      }
      path += " H\(n(x(high)))"
      try sink.write("<path class=\"\(name)\" d=\"\(path)\"><title>\(name)</title></path>\n")
    }
    try sink.write("<line class=\"axis\" x1=\"\(n(Self.left))\" y1=\"\(n(Self.bottom))\" x2=\"\(n(Self.right))\" y2=\"\(n(Self.bottom))\"/>\n</svg>\n")
  }
}

extension String {
  /// The text followed by spaces up to `width` characters (one space when it is as wide or wider):
  /// a column of a text table.
  func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }

  /// The text without the spaces at its end.
  var trailingSpacesRemoved: String {
    var s = Substring(self)
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}
