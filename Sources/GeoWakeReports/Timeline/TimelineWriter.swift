import JSONBytes
public import TrackIO
public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// Writes a timeline (region events, serving-cell changes, significant location changes) as it
/// is produced, in one of five formats; every event is a ``TimelineEntry``.
///
/// - `table`: aligned columns (at, crossed at, region — "cells" for cell events, "app" for the
///   app's steps —, event, reason), then the summary; narrow rows for a terminal (``width``).
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
/// - `csv`: RFC 4180 with every key any entry has as a column (``csvHeader``; empty fields where
///   JSON has `null`). No summary.
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
  /// The terminal's width for `table` (nil: rows as long as they are, as when piped or with
  /// `--wide`). Rows that would be longer are written narrow: times of day under a line for each
  /// new day, and the reason, when it does not fit after the columns, on the lines below,
  /// indented and wrapped at the width — nothing elided.
  public var width: Int?
  /// The day of the last narrow row, for the day lines; the device of the last narrow row, for
  /// the device lines (narrow rows name their device on a line before its first row, not in a
  /// column).
  private var narrowDay: Int?
  private var narrowDevice: String?
  /// The width of `table`'s region column: 18, or the longest region name and two spaces when
  /// that is longer (the command knows the names before the first row).
  public var subjectWidth = 18

  /// The clock `table` shows times on: seconds east of UTC (the track's own offset, when it
  /// names one; 0: UTC). The other formats write UTC.
  public var utcOffset = 0

  /// The zone of the table's times, for its headers: `UTC`, `UTC+09:00`.
  var zoneName: String { TimestampText.zoneName(utcOffset: utcOffset) }

  /// A time as the wide table shows it: to the millisecond, on the table's clock.
  private func wideTime(_ t: Double) -> String { TimestampText.iso8601(t, fractionDigits: 3, utcOffset: utcOffset) }

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
      let device = devices ? "device".column(Self.deviceWidth) : ""
      if width != nil {
        // The zone is on each day's line, the device on a line before its rows.
        try sink.write("at            crossed at    " + "region".column(subjectWidth) + "event             reason\n")
      } else {
        let w = utcOffset == 0 ? 26 : 31
        try sink.write(device + "at (\(zoneName))".column(w) + "crossed at (\(zoneName))".column(w) + "region".column(subjectWidth) + "event             reason\n")
      }
    case .csv: try sink.write((devices ? "device," : "") + Self.csvHeader + "\n")
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
      if let width { return try writeNarrow(e, width: width) }
      if devices { try sink.write(device, column: Self.deviceWidth) }
      if utcOffset != 0 {
        // On the track's clock: a string a row, where UTC is written straight into the sink.
        try sink.write(wideTime(e.time), column: 31)
        try sink.write(e.crossedAt.map(wideTime) ?? "-", column: 31)
      } else {
        try sink.writeTimestamp(e.time, fractionDigits: 3, column: 26)
        if let crossed = e.crossedAt {
          try sink.writeTimestamp(crossed, fractionDigits: 3, column: 26)
        } else {
          try sink.write("-", column: 26)
        }
      }
      try sink.write(e.subject, column: subjectWidth)
      try sink.write(e.kindText, column: 18)
      try sink.write(e.reason)
      try sink.write(Self.appState(e) + "\n")
    case .jsonl:
      try sink.write("{")
      try writeDeviceMember()
      try Self.writeJSONMembers(e, to: sink)
      try sink.write("}\n")
    case .csv:
      if devices {
        try sink.writeCSVField(device)
        try sink.write(",")
      }
      try sink.write(e.event + ",")
      try sink.writeCSVField(e.region?.rawValue ?? "")
      try sink.write(",")
      try sink.writeTimestamp(e.time, fractionDigits: Self.timeDigits)
      try sink.write(",")
      if let crossed = e.crossedAt { try sink.writeTimestamp(crossed, fractionDigits: Self.timeDigits) }
      try sink.write(",")
      if let delivered = e.deliveredAt { try sink.writeTimestamp(delivered, fractionDigits: Self.timeDigits) }
      try sink.write(",")
      if let c = e.coordinate {
        try sink.write(c.latitude, decimals: Self.coordinateDecimals)
        try sink.write(",")
        try sink.write(c.longitude, decimals: Self.coordinateDecimals)
      } else {
        try sink.write(",")
      }
      try sink.write("," + (e.state ?? "") + ",")
      try sink.writeCSVField(e.reason)
      try sink.write(",")
      try sink.writeCSVField(e.fromCell.map { "\($0)" } ?? "")
      try sink.write(",")
      try sink.writeCSVField(e.toCell.map { "\($0)" } ?? "")
      try sink.write(",")
      if let fromFix = e.fromFix { try sink.write(fromFix) }
      try sink.write(",")
      if let toFix = e.toFix { try sink.write(toFix) }
      try sink.write(",")
      try sink.writeCSVField(e.launchReason ?? "")
      try sink.write("," + (e.stateBefore ?? "") + "," + (e.stateAfter ?? "") + ",")
      if let budget = e.budgetRemaining { try sink.write(budget, decimals: 3) }
      try sink.write(",")
      if let request = e.request { try sink.write(request) }
      try sink.write(",")
      try sink.writeCSVField(e.apnsID ?? "")
      try sink.write(",")
      if let status = e.status { try sink.write(status) }
      try sink.write("," + (e.apnsReason ?? "") + "," + (e.appEffect ?? "") + ",")
      if let staleness = e.staleness { try sink.write(staleness, decimals: 3) }
      try sink.write("\n")
    case .geojson:
      try sink.write((eventCount == 0 ? "" : ",\n") + "{\"type\":\"Feature\",\"properties\":{\"kind\":\"event\",")
      try writeDeviceMember()
      try Self.writeJSONMembers(e, to: sink)
      if let c = e.coordinate {
        try sink.write("},\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
        try sink.write(c.longitude, decimals: Self.coordinateDecimals)
        try sink.write(",")
        try sink.write(c.latitude, decimals: Self.coordinateDecimals)
        try sink.write("]}}")
      } else {
        try sink.write("},\"geometry\":null}")
      }
    case .html:
      report?.add(e)
    }
    eventCount += 1
  }

  /// With `devices: true`, the `"device":` member and its comma (JSON Lines and GeoJSON).
  private func writeDeviceMember() throws(TrackIOError) {
    guard devices else { return }
    try sink.write("\"device\":")
    try sink.writeJSONString(device)
    try sink.write(",")
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

  /// The CSV columns: the JSON Lines members every kind of entry can have.
  static let csvHeader =
    "event,region,at,crossedAt,deliveredAt,lat,lon,state,reason,fromCell,toCell,fromFix,toFix,"
    + "launchReason,stateBefore,stateAfter,budgetRemaining,request,apnsId,status,apnsReason,app,staleness"

  // MARK: - Text

  /// For app events in the table: ` [suspended → background, 10 s left]`.
  /// A table row for a terminal `width` columns wide (see ``width``).
  private mutating func writeNarrow(_ e: TimelineEntry, width: Int) throws(TrackIOError) {
    let offset = Double(utcOffset)
    let day = Int(((e.time + offset) / 86_400).rounded(.down))
    if devices, device != narrowDevice {
      narrowDevice = device
      narrowDay = nil
      try sink.write("device \(device)\n")
    }
    if day != narrowDay {
      narrowDay = day
      try sink.write(String(TimestampText.iso8601(e.time + offset).prefix(10)) + " (\(zoneName))\n")
    }
    var row = Self.timeOfDay(e.time + offset).column(14)
    if let crossed = e.crossedAt {
      // A crossing the day before its delivery says so.
      let back = day - Int(((crossed + offset) / 86_400).rounded(.down))
      row += ((back > 0 ? "-\(back)d " : "") + Self.timeOfDay(crossed + offset)).column(14)
    } else {
      row += "-".column(14)
    }
    row += e.subject.column(subjectWidth)
    let reason = e.reason + Self.appState(e)
    let inline = row + e.kindText.column(18)
    if inline.count + reason.count <= width {
      return try sink.write(inline + reason + "\n")
    }
    try sink.write(row + e.kindText + "\n")
    for line in TerminalText.wrapped(reason, width: width - 4, indent: 0).split(separator: "\n") { try sink.write("    " + line + "\n") }
  }

  /// `seconds` (on the table's clock) as a time of day to the millisecond (`02:29:19.179`).
  static func timeOfDay(_ seconds: Double) -> String { String(TimestampText.iso8601(seconds, fractionDigits: 3).dropFirst(11).dropLast()) }

  static func appState(_ e: TimelineEntry) -> String {
    guard e.category == .app, let before = e.stateBefore, let after = e.stateAfter else { return "" }
    let budget = e.budgetRemaining.map { ", \(NumberText.fixed($0, decimals: 1)) s left" } ?? ""
    return " [\(before == after ? after : "\(before) → \(after)")\(budget)]"
  }

  /// Coordinates to 8 decimals (about 1 mm), as `crossings` writes them.
  static let coordinateDecimals = 8

  /// Times in JSON Lines, CSV and GeoJSON: to the microsecond, as `crossings` writes them.
  static let timeDigits = 6

  /// Writes the JSON Lines members of an event (without the enclosing braces) into `sink`.
  static func writeJSONMembers(_ e: TimelineEntry, to sink: ByteSink) throws(TrackIOError) {
    /// A JSON string, or `null`.
    func string(_ text: String?) throws(TrackIOError) {
      if let text { try sink.writeJSONString(text) } else { try sink.write("null") }
    }
    /// A value known to need no escapes (an identifier of ours), in quotes, or `null`.
    func plain(_ text: String?) throws(TrackIOError) {
      try sink.write(text.map { "\"" + $0 + "\"" } ?? "null")
    }
    func time(_ t: Double?) throws(TrackIOError) {
      guard let t else { return try sink.write("null") }
      try sink.write("\"")
      try sink.writeTimestamp(t, fractionDigits: timeDigits)
      try sink.write("\"")
    }
    func integer(_ n: Int?) throws(TrackIOError) {
      if let n { try sink.write(n) } else { try sink.write("null") }
    }
    func fixed(_ value: Double?, _ decimals: Int) throws(TrackIOError) {
      if let value { try sink.write(value, decimals: decimals) } else { try sink.write("null") }
    }
    // Every entry says when it happened on the device as `at` (the timeline's order); region
    // events add `crossings`' schema (crossedAt, lat, lon, fromFix, toFix).
    try sink.write("\"event\":\"" + e.event + "\",\"region\":")
    try string(e.region?.rawValue)
    try sink.write(",\"at\":")
    try time(e.time)
    if e.category == .region {
      try sink.write(",\"crossedAt\":")
      try time(e.crossedAt)
    }
    try sink.write(",\"deliveredAt\":")
    try time(e.deliveredAt)
    try sink.write(",\"lat\":")
    try fixed(e.coordinate?.latitude, coordinateDecimals)
    try sink.write(",\"lon\":")
    try fixed(e.coordinate?.longitude, coordinateDecimals)
    try sink.write(",\"state\":")
    try plain(e.state)
    try sink.write(",\"reason\":")
    try string(e.reason)
    if e.category == .region {
      try sink.write(",\"fromFix\":")
      try integer(e.fromFix)
      try sink.write(",\"toFix\":")
      try integer(e.toFix)
    }
    if e.isCellEvent {
      try sink.write(",\"fromCell\":")
      try string(e.fromCell.map { "\($0)" })
      try sink.write(",\"toCell\":")
      try string(e.toCell.map { "\($0)" })
    }
    if e.category == .fetch, let staleness = e.staleness {
      try sink.write(",\"staleness\":")
      try fixed(staleness, 3)
    }
    if e.category == .push {
      try sink.write(",\"request\":")
      try integer(e.request)
      try sink.write(",\"sentAt\":")
      try time(e.sentAt)
      try sink.write(",\"apnsId\":")
      try string(e.apnsID)
      try sink.write(",\"status\":")
      try sink.write(e.status ?? 0)
      try sink.write(",\"apnsReason\":")
      try plain(e.apnsReason)
      try sink.write(",\"timestamp\":")
      try integer(e.timestamp.map { Int(($0 * 1_000).rounded()) })
      try sink.write(",\"carrier\":")
      try string(e.carrier)
      try sink.write(",\"wakesApp\":" + ((e.wakesApp ?? false) ? "true" : "false") + ",\"app\":")
      try plain(e.appEffect)
    }
    if e.category == .app {
      try sink.write(",\"launchReason\":")
      try plain(e.launchReason)
      try sink.write(",\"stateBefore\":\"" + (e.stateBefore ?? "") + "\",\"stateAfter\":\"" + (e.stateAfter ?? "") + "\"")
      try sink.write(",\"budgetRemaining\":")
      try fixed(e.budgetRemaining, 3)
    }
  }
}
