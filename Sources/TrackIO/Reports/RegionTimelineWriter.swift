public import Geodesy
public import Geofencing

/// Writes a region-monitoring timeline as it is produced, in one of five formats.
///
/// - `table`: aligned columns (crossed at, delivered at, region, event, reason), then the summary.
/// - `jsonl`: one JSON object per event: `event` (`enter`, `exit`, `passThrough`, `dwell`,
///   `state`, `monitoringFailed`), `region`, `crossedAt`, `deliveredAt` (ISO 8601 UTC with
///   milliseconds; `null` when not delivered), `lat`, `lon`, `state` (`inside`/`outside` for
///   `state` events, else `null`), `reason`. No summary.
/// - `csv`: RFC 4180 with the header `event,region,crossedAt,deliveredAt,lat,lon,state,reason`
///   (empty fields where JSON has `null`). No summary.
/// - `geojson`: a FeatureCollection: each region (`"kind": "region"`; a circle is a Point with a
///   `radius` in metres), then each event as a Point feature (`"kind": "event"` and the JSON Lines
///   keys as properties). No summary.
/// - `html`: a ``RegionMapReport``, written at ``finish(summary:)``.
///
/// Every format but `html` streams: memory does not grow with the number of events.
public struct RegionTimelineWriter {
  public enum Format: String, CaseIterable, Sendable {
    case table
    case jsonl
    case csv
    case geojson
    case html
  }

  public let format: Format
  private let sink: ByteSink
  private let regions: [Region]
  private var report: RegionMapReport?
  private var eventCount = 0

  /// - Parameters:
  ///   - regions: every region (monitored and refused), for `geojson` and `html`.
  ///   - title, subtitle: the `html` report's heading.
  public init(format: Format, sink: ByteSink, regions: [Region], title: String = "GeoWake timeline", subtitle: String = "") {
    self.format = format
    self.sink = sink
    self.regions = regions
    if format == .html { report = RegionMapReport(title: title, subtitle: subtitle, regions: regions) }
  }

  /// Writes what comes before the first event.
  public mutating func begin() throws(TrackIOError) {
    switch format {
    case .table: try sink.write("crossed at                deliveredAt               region            event             reason\n")
    case .csv: try sink.write("event,region,crossedAt,deliveredAt,lat,lon,state,reason\n")
    case .geojson:
      try sink.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
      for region in regions {
        try sink.write(eventCount == 0 ? "" : ",\n")
        try RegionWriter.writeFeature(region, extraProperties: "\"kind\":\"region\"", to: sink)
        eventCount += 1
      }
    case .jsonl, .html: break
    }
  }

  /// A fix the monitor used (drawn by `html`; ignored by the others).
  public mutating func add(_ fix: LocationFix) {
    report?.add(fix)
  }

  public mutating func write(_ e: RegionEvent) throws(TrackIOError) {
    switch format {
    case .table:
      let kind = e.kind == .state ? "state " + (e.state?.rawValue ?? "") : e.kind.rawValue
      try sink.write(Self.time(e.crossedAt).column(26) + (e.deliveredAt.map(Self.time) ?? "-").column(26)
        + e.region.rawValue.column(18) + kind.column(18) + e.reason + "\n")
    case .jsonl:
      try sink.write(Self.jsonMembers(e, braces: true) + "\n")
    case .csv:
      try sink.write(e.kind.rawValue + "," + RegionWriter.csvField(e.region.rawValue) + "," + Self.time(e.crossedAt) + ","
        + (e.deliveredAt.map(Self.time) ?? "") + "," + Self.coordinateText(e.coordinate.latitude) + ","
        + Self.coordinateText(e.coordinate.longitude) + "," + (e.state?.rawValue ?? "") + ","
        + RegionWriter.csvField(e.reason) + "\n")
    case .geojson:
      try sink.write((eventCount == 0 ? "" : ",\n") + "{\"type\":\"Feature\",\"properties\":{\"kind\":\"event\","
        + Self.jsonMembers(e, braces: false) + "},\"geometry\":{\"type\":\"Point\",\"coordinates\":["
        + Self.coordinateText(e.coordinate.longitude) + "," + Self.coordinateText(e.coordinate.latitude) + "]}}")
    case .html:
      report?.add(e)
    }
    eventCount += 1
  }

  /// Writes what comes after the last event; `summary` is shown by `table` and `html` only.
  /// Does not commit the sink.
  public mutating func finish(summary: String) throws(TrackIOError) {
    switch format {
    case .table: try sink.write(summary)
    case .geojson: try sink.write("\n]}\n")
    case .html: try report?.write(summary: summary, to: sink)
    case .jsonl, .csv: break
    }
  }

  // MARK: - Text

  static func time(_ t: Double) -> String { TimestampText.iso8601(t, fractionDigits: 3) }

  static func coordinateText(_ degrees: Double) -> String { "\(degrees)" }

  /// The JSON Lines members of an event, with or without the enclosing braces.
  static func jsonMembers(_ e: RegionEvent, braces: Bool) -> String {
    let members = "\"event\":\"\(e.kind.rawValue)\",\"region\":\(JSONText.quoted(e.region.rawValue)),\"crossedAt\":\"\(time(e.crossedAt))\","
      + "\"deliveredAt\":\(e.deliveredAt.map { "\"\(time($0))\"" } ?? "null"),"
      + "\"lat\":\(coordinateText(e.coordinate.latitude)),\"lon\":\(coordinateText(e.coordinate.longitude)),"
      + "\"state\":\(e.state.map { "\"\($0.rawValue)\"" } ?? "null"),\"reason\":\(JSONText.quoted(e.reason))"
    return braces ? "{" + members + "}" : members
  }
}
