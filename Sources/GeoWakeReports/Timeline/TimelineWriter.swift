import JSONBytes
public import TrackIO
public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// Writes a timeline (region events, serving-cell changes, significant location changes) as it
/// is produced, in one of five formats; every event is a ``TimelineEntry``.
///
/// - `table`: aligned columns (crossed at, delivered at, region — "cells" for cell events —,
///   event, reason), then the summary.
/// - `jsonl`: one JSON object per event: `event` (`enter`, `exit`, `passThrough`, `dwell`,
///   `state`, `monitoringFailed`, `attach`, `handoff`, `serviceLost`, `significantChange`,
///   `significantChangeSuppressed`), `region` (`null` for cell events), `crossedAt` for region
///   events and `at` for every other entry, `deliveredAt` (ISO 8601 UTC to the microsecond;
///   `null` when not delivered), `lat`, `lon` (8 decimals), `state` (`inside`/`outside` for
///   `state` events, else `null`), `reason`; region events add `fromFix` and `toFix` (the
///   schema `crossings` writes a crossing with); cell events add `fromCell` and `toCell` (a
///   ``CellIdentity`` as text such as `LTE 272-1-100-5`, or `null`); app events (`wake`,
///   `deliveredWhileRunning`, `deliveredInForeground`, `lost`, `handlerStarted`,
///   `handlerFinished`, `taskBegan`, `taskEnded`, `budgetExtended`, `expiration`, `suspended`,
///   `terminated`, `foregroundStarted`, `foregroundEnded`, `forceQuit`) add `launchReason`,
///   `stateBefore`, `stateAfter` and `budgetRemaining` (seconds, or `null`). No summary.
/// - `csv`: RFC 4180 with the header
///   `event,region,crossedAt,deliveredAt,lat,lon,state,reason,fromCell,toCell,fromFix,toFix` (empty fields
///   where JSON has `null`). No summary.
/// - `geojson`: a FeatureCollection: each region (`"kind": "region"`; a circle is a Point with a
///   `radius` in metres), then each event as a Point feature (`"kind": "event"` and the JSON Lines
///   keys as properties). No summary.
/// - `html`: a ``TimelineMapReport``, written at ``finish(summary:)``.
///
/// Every format but `html` streams: memory does not grow with the number of events.
///
/// **Many devices.** A writer made with `devices: true` leads every event with its ``device``:
/// a first column `device` in `table` and `csv`, a first member `"device"` in `jsonl` and a
/// `device` property in `geojson`. (`html` draws one device.)
public struct TimelineWriter {
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
  private var report: TimelineMapReport?
  private var eventCount = 0
  private let devices: Bool
  /// The device whose events are written next (with `devices: true`).
  public var device = ""

  /// - Parameters:
  ///   - regions: every region (monitored and refused), for `geojson` and `html`.
  ///   - title, subtitle: the `html` report's heading.
  ///   - devices: whether every event names its ``device``.
  public init(
    format: Format, sink: ByteSink, regions: [Region], title: String = "GeoWake timeline", subtitle: String = "", devices: Bool = false
  ) {
    self.format = format
    self.devices = devices
    self.sink = sink
    self.regions = regions
    if format == .html { report = TimelineMapReport(title: title, subtitle: subtitle, regions: regions) }
  }

  /// Writes what comes before the first event.
  public mutating func begin() throws(TrackIOError) {
    switch format {
    case .table:
      try sink.write((devices ? "device".column(Self.deviceWidth) : "") + "crossed at                deliveredAt               region            event             reason\n")
    case .csv: try sink.write((devices ? "device," : "") + "event,region,crossedAt,deliveredAt,lat,lon,state,reason,fromCell,toCell,fromFix,toFix\n")
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

  public mutating func write(_ e: RegionEvent) throws(TrackIOError) { try write(TimelineEntry(e)) }
  public mutating func write(_ c: ServingCellChange) throws(TrackIOError) { try write(TimelineEntry(c)) }
  public mutating func write(_ s: SignificantChangeEvent) throws(TrackIOError) { try write(TimelineEntry(s)) }
  public mutating func write(_ r: RuntimeEvent, at coordinate: Coordinate) throws(TrackIOError) { try write(TimelineEntry(r, coordinate: coordinate)) }

  public mutating func write(_ e: TimelineEntry) throws(TrackIOError) {
    switch format {
    case .table:
      if devices { try sink.write(device, column: Self.deviceWidth) }
      try sink.writeTimestamp(e.time, fractionDigits: 3, column: 26)
      if let delivered = e.deliveredAt {
        try sink.writeTimestamp(delivered, fractionDigits: 3, column: 26)
      } else {
        try sink.write("-", column: 26)
      }
      try sink.write(e.subject, column: 18)
      try sink.write(e.kindText, column: 18)
      try sink.write(e.reason)
      try sink.write(Self.appState(e) + "\n")
    case .jsonl:
      try sink.write(devices ? "{\"device\":" + JSONText.quoted(device) + "," + Self.jsonMembers(e, braces: false) + "}\n" : Self.jsonMembers(e, braces: true) + "\n")
    case .csv:
      if devices { try sink.write(RegionWriter.csvField(device) + ",") }
      try sink.write(e.event + "," + RegionWriter.csvField(e.region?.rawValue ?? "") + "," + Self.preciseTime(e.time) + ","
        + (e.deliveredAt.map(Self.preciseTime) ?? "") + "," + Self.coordinateText(e.coordinate.latitude) + ","
        + Self.coordinateText(e.coordinate.longitude) + "," + (e.state ?? "") + "," + RegionWriter.csvField(e.reason) + ","
        + RegionWriter.csvField(e.fromCell.map { "\($0)" } ?? "") + "," + RegionWriter.csvField(e.toCell.map { "\($0)" } ?? "") + ","
        + (e.fromFix.map(String.init) ?? "") + "," + (e.toFix.map(String.init) ?? "") + "\n")
    case .geojson:
      try sink.write((eventCount == 0 ? "" : ",\n") + "{\"type\":\"Feature\",\"properties\":{\"kind\":\"event\","
        + (devices ? "\"device\":" + JSONText.quoted(device) + "," : "") + Self.jsonMembers(e, braces: false) + "},\"geometry\":{\"type\":\"Point\",\"coordinates\":["
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

  /// Whether a `geojson` writer has written a feature, so that the next needs a comma before it.
  /// A writer for one device's part of a many-device output is told so by the writer of the whole.
  public var hasWrittenFeature: Bool {
    get { eventCount > 0 }
    set { eventCount = newValue ? max(eventCount, 1) : 0 }
  }

  static let deviceWidth = 16

  // MARK: - Text

  /// For app events in the table: ` [suspended → background, 10 s left]`.
  static func appState(_ e: TimelineEntry) -> String {
    guard e.category == .app, let before = e.stateBefore, let after = e.stateAfter else { return "" }
    let budget = e.budgetRemaining.map { ", \(NumberText.fixed($0, decimals: 1)) s left" } ?? ""
    return " [\(before == after ? after : "\(before) → \(after)")\(budget)]"
  }

  /// Degrees to 8 decimals (about 1 mm), as `crossings` writes them.
  static func coordinateText(_ degrees: Double) -> String { NumberText.fixed(degrees, decimals: 8) }

  /// Times in JSON Lines, CSV and GeoJSON: to the microsecond, as `crossings` writes them.
  static func preciseTime(_ t: Double) -> String { TimestampText.iso8601(t, fractionDigits: 6) }

  /// The JSON Lines members of an event, with or without the enclosing braces.
  static func jsonMembers(_ e: TimelineEntry, braces: Bool) -> String {
    // Region events share `crossings`' schema (crossedAt, lat, lon, fromFix, toFix); every
    // other entry says when it happened as `at`.
    let when = e.category == .region ? "crossedAt" : "at"
    var members = "\"event\":\"\(e.event)\",\"region\":\(e.region.map { JSONText.quoted($0.rawValue) } ?? "null"),\"\(when)\":\"\(preciseTime(e.time))\","
      + "\"deliveredAt\":\(e.deliveredAt.map { "\"\(preciseTime($0))\"" } ?? "null"),"
      + "\"lat\":\(coordinateText(e.coordinate.latitude)),\"lon\":\(coordinateText(e.coordinate.longitude)),"
      + "\"state\":\(e.state.map { "\"\($0)\"" } ?? "null"),\"reason\":\(JSONText.quoted(e.reason))"
    if e.category == .region {
      members += ",\"fromFix\":\(e.fromFix.map(String.init) ?? "null"),\"toFix\":\(e.toFix.map(String.init) ?? "null")"
    }
    if e.isCellEvent {
      members += ",\"fromCell\":\(e.fromCell.map { JSONText.quoted("\($0)") } ?? "null"),\"toCell\":\(e.toCell.map { JSONText.quoted("\($0)") } ?? "null")"
    }
    if e.category == .fetch, let staleness = e.staleness {
      members += ",\"staleness\":\(NumberText.fixed(staleness, decimals: 3))"
    }
    if e.category == .push {
      members += ",\"apnsId\":\(e.apnsID.map { JSONText.quoted($0) } ?? "null"),\"status\":\(e.status ?? 0)"
        + ",\"apnsReason\":\(e.apnsReason.map { "\"\($0)\"" } ?? "null")"
    }
    if e.category == .app {
      members += ",\"launchReason\":\(e.launchReason.map { "\"\($0)\"" } ?? "null"),\"stateBefore\":\"\(e.stateBefore ?? "")\",\"stateAfter\":\"\(e.stateAfter ?? "")\""
        + ",\"budgetRemaining\":\(e.budgetRemaining.map { NumberText.fixed($0, decimals: 3) } ?? "null")"
    }
    return braces ? "{" + members + "}" : members
  }
}
