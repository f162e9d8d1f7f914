import JSONBytes
public import GeoWake
public import TrackIO

/// Writes a ``PublishedComparison``: each published measurement of phones beside what the
/// profiles give on the synthetic experiment made like it, with the relative difference and
/// whether it is within the tolerance; as a table, JSON Lines, or one self-contained XHTML page.
public struct PublishedReport {
  public let comparison: PublishedComparison
  /// The tolerance the verdicts use (0.2: ±20 %).
  public var tolerance: Double

  public init(_ comparison: PublishedComparison, tolerance: Double = 0.2) {
    self.comparison = comparison
    self.tolerance = tolerance
  }

  public func write(_ format: FidelityReport.Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .table: try writeTable(to: sink)
    case .jsonl: try writeJSONLines(to: sink)
    case .html: try writeHTML(to: sink)
    }
  }

  // MARK: - Text

  /// A value in its unit's precision.
  static func value(_ v: Double, _ unit: String) -> String {
    switch unit {
    case "km": return NumberText.fixed(v, decimals: 2)
    case "%", "/h": return NumberText.fixed(v, decimals: 1)
    default: return NumberText.fixed(v, decimals: 0)
    }
  }

  static func published(_ m: PublishedMeasurement) -> String {
    let low = m.published.lowerBound, high = m.published.upperBound
    let text = low == high ? value(low, m.unit) : "\(value(low, m.unit))–\(value(high, m.unit))"
    return text + " " + m.unit
  }

  static func reproduced(_ m: PublishedMeasurement) -> String {
    m.reproduced.map { value($0, m.unit) + " " + m.unit } ?? "–"
  }

  static func difference(_ m: PublishedMeasurement) -> String {
    guard let d = m.difference else { return "–" }
    if d == 0 { return m.published.lowerBound == m.published.upperBound ? "0 %" : "in range" }
    return (d > 0 ? "+" : "") + NumberText.fixed(d * 100, decimals: 0) + " %"
  }

  var toleranceText: String { "±\(NumberText.fixed(tolerance * 100, decimals: 0)) %" }

  var header: String {
    "published measurements of phones against the profiles on synthetic data (data seed \(comparison.seed), "
      + "\(comparison.seeds.count) replay seeds; docs/fidelity.md describes the generators)"
  }

  /// How each group of rows was reproduced, once per distinct run.
  var runs: [String] {
    var seen: [String] = []
    for m in comparison.measurements where !seen.contains(m.reproducedBy) { seen.append(m.reproducedBy) }
    return seen
  }

  var verdictText: String {
    let within = comparison.measurements.filter { $0.isWithin(tolerance) }.count
    return "\(within) of \(comparison.measurements.count) within \(toleranceText) of the published value"
  }

  private func writeTable(to sink: ByteSink) throws(TrackIOError) {
    try sink.write(header + "\n\n")
    let nameWidth = (comparison.measurements.map(\.name.count).max() ?? 10) + 2
    let sourceWidth = (comparison.measurements.map(\.source.count).max() ?? 10) + 2
    let publishedWidth = max(11, comparison.measurements.map { Self.published($0).count }.max() ?? 0) + 2
    let reproducedWidth = max(9, comparison.measurements.map { Self.reproduced($0).count }.max() ?? 0) + 2
    var titles = "measurement".padding(nameWidth) + "source".padding(sourceWidth)
    titles += "published".padding(publishedWidth) + "GeoWake".padding(reproducedWidth) + "difference".padding(12) + "within \(toleranceText)"
    try sink.write(titles.trailingSpacesRemoved + "\n")
    for m in comparison.measurements {
      var line = m.name.padding(nameWidth) + m.source.padding(sourceWidth)
      line += Self.published(m).padding(publishedWidth) + Self.reproduced(m).padding(reproducedWidth)
      line += Self.difference(m).padding(12) + (m.isWithin(tolerance) ? "yes" : "no")
      try sink.write(line.trailingSpacesRemoved + "\n")
    }
    try sink.write("\n" + verdictText + "\n")
    for run in runs { try sink.write("reproduced by: \(run)\n") }
  }

  // MARK: - JSON Lines

  private func writeJSONLines(to sink: ByteSink) throws(TrackIOError) {
    func number(_ v: Double?) -> String { v.map { NumberText.fixed($0, decimals: 4) } ?? "null" }
    for m in comparison.measurements {
      var line = "{\"measurement\":\(JSONText.quoted(m.name)),\"source\":\(JSONText.quoted(m.source)),\"unit\":\(JSONText.quoted(m.unit))"
      line += ",\"published\":[\(number(m.published.lowerBound)),\(number(m.published.upperBound))],\"reproduced\":\(number(m.reproduced))"
      line += ",\"difference\":\(number(m.difference)),\"withinTolerance\":\(m.isWithin(tolerance)),\"tolerance\":\(number(tolerance))"
      line += ",\"reproducedBy\":\(JSONText.quoted(m.reproducedBy)),\"dataSeed\":\(comparison.seed)"
      line += ",\"seeds\":[" + comparison.seeds.map { "\($0)" }.joined(separator: ",") + "]}\n"
      try sink.write(line)
    }
  }

  // MARK: - HTML

  private func writeHTML(to sink: ByteSink) throws(TrackIOError) {
    let esc = MarkupText.escaped
    try sink.write("""
      <!DOCTYPE html>
      <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
      <head>
      <meta charset="utf-8"/>
      <title>GeoWake fidelity: published measurements</title>
      <style>
      body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
      h1 { font-size: 20px; margin: 0 0 4px; }
      .sub { color: #666; margin: 0 0 16px; max-width: 60em; }
      table { border-collapse: collapse; font-size: 13px; } td, th { border-bottom: 1px solid #eee; padding: 4px 10px; text-align: left; }
      th { border-bottom: 2px solid #ccc; }
      td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
      td.yes { color: #1b7f3b; font-weight: 600; } td.no { color: #b42318; font-weight: 600; }
      .bar { display: inline-block; height: 8px; background: #1d4ed8; vertical-align: middle; }
      .range { display: inline-block; position: relative; width: 160px; height: 14px; background: #f1f1f1; vertical-align: middle; }
      .band { position: absolute; top: 0; height: 14px; background: #d1fadf; }
      .pub { position: absolute; top: 0; width: 2px; height: 14px; background: #d62828; }
      .geo { position: absolute; top: 3px; width: 8px; height: 8px; margin-left: -4px; border-radius: 4px; background: #1d4ed8; }
      ul { color: #444; }
      </style>
      </head>
      <body>
      <h1>Fidelity: published measurements</h1>
      <p class="sub">\(esc(header.prefix(1).uppercased() + header.dropFirst())). \(esc(verdictText)). In each bar the green band is
      the published value or range \(esc(toleranceText)), the red line the published value, the blue dot GeoWake's.</p>
      <table>
      <tr><th>measurement</th><th>source</th><th>published</th><th>GeoWake</th><th>difference</th><th></th><th>within \(esc(toleranceText))</th></tr>

      """)
    for m in comparison.measurements {
      let within = m.isWithin(tolerance)
      try sink.write(
        "<tr><td>\(esc(m.name))</td><td>\(esc(m.source))</td><td class=\"n\">\(esc(Self.published(m)))</td>"
          + "<td class=\"n\">\(esc(Self.reproduced(m)))</td><td class=\"n\">\(esc(Self.difference(m)))</td>"
          + "<td>\(gauge(m))</td><td class=\"\(within ? "yes" : "no")\">\(within ? "yes" : "no")</td></tr>\n")
    }
    try sink.write("</table>\n<ul>\n")
    for run in runs { try sink.write("<li>reproduced by: \(esc(run))</li>\n") }
    try sink.write("</ul>\n</body>\n</html>\n")
  }

  /// A bar from 0 to twice the published value (or the range's upper end): the tolerance band,
  /// the published value and GeoWake's.
  private func gauge(_ m: PublishedMeasurement) -> String {
    let scale = 2 * m.published.upperBound
    guard scale > 0 else { return "" }
    func at(_ v: Double) -> String { NumberText.fixed(min(100, max(0, v / scale * 100)), decimals: 1) }
    let low = m.published.lowerBound * (1 - tolerance), high = m.published.upperBound * (1 + tolerance)
    var html = "<span class=\"range\"><span class=\"band\" style=\"left: \(at(low))%; width: \(NumberText.fixed(min(100, (high - low) / scale * 100), decimals: 1))%\"></span>"
    html += "<span class=\"pub\" style=\"left: \(at(m.published.lowerBound))%\"></span>"
    if m.published.upperBound != m.published.lowerBound { html += "<span class=\"pub\" style=\"left: \(at(m.published.upperBound))%\"></span>" }
    if let v = m.reproduced { html += "<span class=\"geo\" style=\"left: \(at(v))%\"></span>" }
    return html + "</span>"
  }
}
