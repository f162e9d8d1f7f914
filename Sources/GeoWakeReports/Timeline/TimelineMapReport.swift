public import TrackIO
import CellHandoff
public import Geodesy
public import Geofencing
import RealModule

/// A self-contained HTML report of a timeline: an SVG map of the track, the regions, the cell
/// towers that served the device and every event (tooltips give each event's times and reason),
/// a timeline strip with one lane per region (time inside as bars, events as ticks) and one for
/// the cells, the summary, and a table of every event.
///
/// The file needs no network: no scripts, fonts or images from elsewhere; tooltips are SVG
/// `<title>` elements and `title` attributes. It is well-formed XML (XHTML syntax), so it can be
/// checked or post-processed with any XML tool.
///
/// Memory stays bounded in track length: the track is drawn from a ``TrackSketch``. The map shows
/// the track's extent; regions are drawn when they reach into it, up to ``maximumDrawnRegions``
/// (the report says how many were left out). Circles are drawn as 64-gons of exact geodesic
/// points on an equirectangular projection centred on the track (shapes are true to a few
/// percent for tracks spanning under a few hundred kilometres).
public struct TimelineMapReport {
  /// The report's heading (e.g. the track file name).
  public var title: String
  /// What the report is about, shown under the title (e.g. profile and region file).
  public var subtitle: String
  /// The regions, monitored and refused.
  public let regions: [Region]
  /// Regions drawn on the map at most; regions with events are drawn first.
  public var maximumDrawnRegions = 3_000
  /// Lanes in the timeline strip at most (regions with events, in order of their first event).
  public var maximumLanes = 200
  public private(set) var events: [TimelineEntry] = []
  public private(set) var sketch: TrackSketch

  public init(title: String, subtitle: String, regions: [Region], trackCapacity: Int = 20_000) {
    self.title = title
    self.subtitle = subtitle
    self.regions = regions
    sketch = TrackSketch(capacity: trackCapacity)
  }

  public mutating func add(_ event: TimelineEntry) { events.append(event) }
  public mutating func add(_ fix: LocationFix) { sketch.add(fix) }

  /// Writes the whole document, with `summary` (plain text) in its summary section.
  public func write(summary: String, to sink: ByteSink) throws(TrackIOError) {
    let track = sketch.fixes
    let map = MapFrame(track: track, events: events)
    try sink.write("""
      <!DOCTYPE html>
      <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
      <head>
      <meta charset="utf-8"/>
      <title>\(Self.escaped(title))</title>
      <style>
      body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
      h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
      .sub { color: #666; margin: 0 0 16px; }
      svg { background: #fafafa; border: 1px solid #ddd; max-width: 100%; height: auto; }
      .track { fill: none; stroke: #3366cc; stroke-width: 1.5; stroke-linejoin: round; opacity: 0.8; }
      .region { fill: #888; fill-opacity: 0.12; fill-rule: evenodd; stroke: #666; stroke-width: 1; }
      .region.failed { fill: none; stroke: #000; stroke-dasharray: 4 3; }
      .event circle, .tick { stroke: #fff; stroke-width: 1; }
      .enter circle, .enter.tick, .legend .enter { fill: #2a9d3a; }
      .exit circle, .exit.tick, .legend .exit { fill: #d62828; }
      .passThrough circle, .passThrough.tick, .legend .passThrough { fill: #f08c00; }
      .dwell circle, .dwell.tick, .legend .dwell { fill: #6f42c1; }
      .state circle, .state.tick, .legend .state { fill: #777; }
      .monitoringFailed circle, .monitoringFailed.tick, .legend .monitoringFailed { fill: #000; }
      .handoff circle, .handoff.tick, .legend .handoff { fill: #0a9396; }
      .attach circle, .attach.tick, .legend .attach { fill: #94d2bd; stroke: #0a9396; }
      .serviceLost circle, .serviceLost.tick, .legend .serviceLost { fill: #ae2012; }
      .significantChange circle, .significantChange.tick, .legend .significantChange { fill: #1d4ed8; }
      .significantChangeSuppressed circle, .significantChangeSuppressed.tick, .legend .significantChangeSuppressed { fill: #1d4ed8; fill-opacity: 0.25; stroke: #333; }
      .tower { fill: #0a9396; stroke: #fff; stroke-width: 1; }
      .tick.wake, .tick.deliveredWhileRunning, .tick.foregroundStarted { fill: #7c3aed; }
      .tick.terminated, .tick.lost, .tick.forceQuit { fill: #000; }
      .tick.push { fill: #0ea5e9; }
      .tick.fetchRequested, .tick.fetchCompleted { fill: #1d4ed8; } .tick.launch { fill: #2a9d3a; } .tick.fetchSkipped { fill: #999; }
      .tick.expiration, .tick.budgetExtended { fill: #f08c00; }
      .tick.handlerStarted, .tick.handlerFinished, .tick.taskBegan, .tick.taskEnded, .tick.suspended, .tick.foregroundEnded,
      .tick.deliveredInForeground { fill: #999; }
      .undelivered circle, .undelivered.tick { fill-opacity: 0.25; stroke: #333; }
      .inside { fill: #2a9d3a; fill-opacity: 0.25; }
      .lane { stroke: #e4e4e4; } .axis { stroke: #999; } text { font-size: 11px; fill: #444; }
      table { border-collapse: collapse; font-size: 12px; } td, th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; vertical-align: top; }
      pre { background: #f4f4f4; padding: 8px; overflow-x: auto; }
      </style>
      </head>
      <body>
      <h1>\(Self.escaped(title))</h1>
      <p class="sub">\(Self.escaped(subtitle)) · \(events.count) events · \(sketch.offered) fixes\(sketch.stride > 1 ? " (map drawn from 1 in \(sketch.stride))" : "")</p>

      """)
    try writeLegend(to: sink)
    try writeMap(map, track: track, to: sink)
    try writeTimeline(track: track, to: sink)
    try sink.write("<h2>Summary</h2>\n<pre>\(Self.escaped(summary))</pre>\n")
    try writeTable(to: sink)
    try sink.write("</body>\n</html>\n")
  }

  // MARK: - Sections

  private func writeLegend(to sink: ByteSink) throws(TrackIOError) {
    try sink.write("<p class=\"legend\">")
    var kinds = ["enter", "exit", "passThrough", "dwell", "state", "monitoringFailed"]
    if events.contains(where: \.isCellEvent) { kinds += ["attach", "handoff", "serviceLost", "significantChange", "significantChangeSuppressed"] }
    for kind in kinds {
      try sink.write("<svg width=\"12\" height=\"12\"><circle class=\"\(kind)\" cx=\"6\" cy=\"6\" r=\"5\"/></svg> \(kind) &#160; ")
    }
    try sink.write("(faded: not delivered to the app)</p>\n")
  }

  private func writeMap(_ map: MapFrame, track: [LocationFix], to sink: ByteSink) throws(TrackIOError) {
    try sink.write("<h2>Map</h2>\n<svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Self.number(map.width)) \(Self.number(map.height))\" width=\"\(Self.number(map.width))\" height=\"\(Self.number(map.height))\">\n")
    let failed = Set(events.filter { $0.event == "monitoringFailed" }.compactMap(\.region))
    let (drawn, left) = regionsToDraw(map)
    for region in drawn {
      let refused = failed.contains(region.identifier)
      try sink.write("<path class=\"region\(refused ? " failed" : "")\" d=\"\(map.path(region))\"><title>\(Self.escaped(Self.describe(region)))\(refused ? " (not monitored: past the cap)" : "")</title></path>\n")
    }
    if track.count > 1 {
      try sink.write("<polyline class=\"track\" points=\"")
      for (k, fix) in track.enumerated() {
        let (x, y) = map.point(fix.coordinate)
        try sink.write((k == 0 ? "" : " ") + Self.number(x) + "," + Self.number(y))
      }
      try sink.write("\"/>\n")
    }
    // The towers that served the device, once each.
    var drawnTowers = Set<CellIdentity>()
    for e in events {
      guard let tower = e.tower, drawnTowers.insert(tower.identity).inserted else { continue }
      let (x, y) = map.point(tower.coordinate)
      try sink.write("<rect class=\"tower\" x=\"\(Self.number(x - 4))\" y=\"\(Self.number(y - 4))\" width=\"8\" height=\"8\"><title>\(Self.escaped("cell \(tower.identity), range \(Int(tower.range)) m"))</title></rect>\n")
    }
    // App steps happen where their location event did: they are on the timeline, not the map.
    for (k, e) in events.enumerated() where e.category == .region || e.category == .cell {
      let (x, y) = map.point(e.coordinate)
      try sink.write("<g class=\"event \(e.event)\(e.deliveredAt == nil ? " undelivered" : "")\" id=\"event-\(k + 1)\"><circle cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"5\"/><title>\(Self.escaped(Self.tooltip(k, e)))</title></g>\n")
    }
    try sink.write("</svg>\n")
    if left > 0 {
      try sink.write("<p class=\"sub\">\(left) regions reaching into the map are not drawn (at most \(maximumDrawnRegions), those with events first).</p>\n")
    }
  }

  private func writeTimeline(track: [LocationFix], to sink: ByteSink) throws(TrackIOError) {
    let times = track.map(\.time) + events.map(\.time)
    guard let t0 = times.min(), let t1 = times.max() else { return }
    var lanes: [String] = []
    var seen = Set<String>()
    for e in events where seen.insert(e.subject).inserted { lanes.append(e.subject) }
    let shown = Array(lanes.prefix(maximumLanes))
    let left = 170.0, right = 990.0, laneHeight = 16.0, top = 24.0
    let span = max(t1 - t0, 1)
    func x(_ t: Double) -> Double { left + (t - t0) / span * (right - left) }
    let height = top + Double(shown.count) * laneHeight + 8
    try sink.write("<h2>Timeline</h2>\n<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1000 \(Self.number(height))\" width=\"1000\" height=\"\(Self.number(height))\">\n")
    for t in Self.axisTicks(from: t0, to: t1) {
      let label = TimestampText.iso8601(t)
      let text = t1 - t0 >= 2 * 86_400 ? String(label.prefix(10)) : String(label.dropFirst(11).prefix(5))
      try sink.write("<line class=\"axis\" x1=\"\(Self.number(x(t)))\" y1=\"14\" x2=\"\(Self.number(x(t)))\" y2=\"\(Self.number(height - 4))\"/><text x=\"\(Self.number(x(t) + 2))\" y=\"11\">\(text)</text>\n")
    }
    let lane = Dictionary(uniqueKeysWithValues: shown.enumerated().map { ($1, $0) })
    for (k, id) in shown.enumerated() {
      let y = top + Double(k) * laneHeight
      try sink.write("<text x=\"4\" y=\"\(Self.number(y + 11))\">\(Self.escaped(String(id.prefix(26))))</text><line class=\"lane\" x1=\"\(Self.number(left))\" y1=\"\(Self.number(y + 8))\" x2=\"\(Self.number(right))\" y2=\"\(Self.number(y + 8))\"/>\n")
    }
    // Time inside: from an enter (or a state inside) to the next exit (or state outside, or the end).
    var since: [String: Double] = [:]
    func bar(_ id: String, _ from: Double, _ to: Double) throws(TrackIOError) {
      guard let k = lane[id] else { return }
      let y = top + Double(k) * laneHeight + 3
      try sink.write("<rect class=\"inside\" x=\"\(Self.number(x(from)))\" y=\"\(Self.number(y))\" width=\"\(Self.number(max(0.5, x(to) - x(from))))\" height=\"10\"><title>\(Self.escaped("\(id) inside \(TimestampText.iso8601(from)) – \(TimestampText.iso8601(to))"))</title></rect>\n")
    }
    for e in events where !e.isCellEvent {
      switch e.event {
      case "enter": since[e.subject] = e.time
      case "state" where e.state == "inside": since[e.subject] = e.time
      case "exit", "state":
        if let from = since.removeValue(forKey: e.subject) { try bar(e.subject, from, e.time) }
      default: break
      }
    }
    for (id, from) in since.sorted(by: { $0.key < $1.key }) { try bar(id, from, t1) }
    for (k, e) in events.enumerated() {
      guard let l = lane[e.subject] else { continue }
      let y = top + Double(l) * laneHeight + 1
      try sink.write("<rect class=\"tick \(e.event)\(e.deliveredAt == nil ? " undelivered" : "")\" x=\"\(Self.number(x(e.time) - 2))\" y=\"\(Self.number(y))\" width=\"4\" height=\"14\"><title>\(Self.escaped(Self.tooltip(k, e)))</title></rect>\n")
    }
    try sink.write("</svg>\n")
    if lanes.count > shown.count {
      try sink.write("<p class=\"sub\">\(lanes.count - shown.count) more regions with events are in the table below but have no lane (at most \(maximumLanes)).</p>\n")
    }
  }

  private func writeTable(to sink: ByteSink) throws(TrackIOError) {
    try sink.write("<h2>Events</h2>\n<table id=\"events\">\n<tr><th>#</th><th>crossed at</th><th>delivered at</th><th>region</th><th>event</th><th>reason</th></tr>\n")
    for (k, e) in events.enumerated() {
      try sink.write("<tr id=\"row-\(k + 1)\" class=\"\(e.event)\"><td>\(k + 1)</td><td>\(TimestampText.iso8601(e.time, fractionDigits: 3))</td><td>\(e.deliveredAt.map { TimestampText.iso8601($0, fractionDigits: 3) } ?? "-")</td><td>\(Self.escaped(e.subject))</td><td>\(e.kindText)</td><td>\(Self.escaped(e.reason))</td></tr>\n")
    }
    try sink.write("</table>\n")
  }

  // MARK: - Helpers

  /// Regions to draw: those with events first, then those reaching into the map, in order.
  private func regionsToDraw(_ map: MapFrame) -> (drawn: [Region], left: Int) {
    let withEvents = Set(events.compactMap(\.region))
    let visible = regions.filter { map.reaches($0) }
    let ordered = visible.filter { withEvents.contains($0.identifier) } + visible.filter { !withEvents.contains($0.identifier) }
    return (Array(ordered.prefix(maximumDrawnRegions)), max(0, ordered.count - maximumDrawnRegions))
  }

  static func tooltip(_ k: Int, _ e: TimelineEntry) -> String {
    "#\(k + 1) \(e.kindText) \(e.subject)\nat \(TimestampText.iso8601(e.time, fractionDigits: 3))\n"
      + "delivered \(e.deliveredAt.map { TimestampText.iso8601($0, fractionDigits: 3) } ?? "never")\n\(e.reason)"
  }

  static func describe(_ region: Region) -> String {
    switch region {
    case .circle(let c): return "\(c.identifier.rawValue): circle of \(NumberText.fixed(c.radius, decimals: 0)) m"
    case .polygon(let p): return "\(p.identifier.rawValue): polygon"
    }
  }

  /// Text for XML content and attribute values (see ``MarkupText/escaped(_:)``).
  static func escaped(_ text: String) -> String { MarkupText.escaped(text) }

  static func number(_ value: Double) -> String { NumberText.fixed(value, decimals: 1) }

  /// Round times between `t0` and `t1` for axis labels: at most about ten.
  static func axisTicks(from t0: Double, to t1: Double) -> [Double] {
    let steps: [Double] = [60, 300, 600, 1_800, 3_600, 7_200, 21_600, 43_200, 86_400, 172_800, 604_800, 2_592_000, 31_536_000]
    let step = steps.first { (t1 - t0) / $0 <= 10 } ?? max(1, ((t1 - t0) / 10).rounded(.up))
    var t = (t0 / step).rounded(.up) * step
    var ticks: [Double] = []
    while t <= t1 && ticks.count < 12 {
      ticks.append(t)
      t += step
    }
    return ticks
  }
}

/// The map's projection: equirectangular, centred on the first point, longitudes unwrapped so a
/// track across the antimeridian stays in one piece; fitted into at most 1000 × 700 pixels.
struct MapFrame {
  let latitude0: Double
  let longitude0: Double
  let cosLatitude: Double
  let minX: Double
  let minY: Double
  let scale: Double
  let width: Double
  let height: Double

  init(track: [LocationFix], events: [TimelineEntry]) {
    let points = track.map(\.coordinate) + events.map(\.coordinate)
    latitude0 = points.first?.latitude ?? 0
    longitude0 = points.first?.longitude ?? 0
    cosLatitude = max(0.01, Double.cos(latitude0 * .pi / 180))
    var lowX = 0.0, highX = 0.0, lowY = 0.0, highY = 0.0
    for c in points {
      let (x, y) = Self.plane(c, latitude0, longitude0, cosLatitude)
      lowX = min(lowX, x); highX = max(highX, x); lowY = min(lowY, y); highY = max(highY, y)
    }
    // At least ~500 m across, plus a 5 % margin.
    let minimumSpan = 0.0045
    let spanX = max(highX - lowX, minimumSpan), spanY = max(highY - lowY, minimumSpan)
    let centreX = (lowX + highX) / 2, centreY = (lowY + highY) / 2
    minX = centreX - spanX * 0.55
    minY = centreY - spanY * 0.55
    scale = min(1_000 / (spanX * 1.1), 700 / (spanY * 1.1))
    width = (spanX * 1.1 * scale).rounded()
    height = (spanY * 1.1 * scale).rounded()
  }

  private static func plane(_ c: Coordinate, _ lat0: Double, _ lon0: Double, _ cosLat: Double) -> (Double, Double) {
    ((c.longitude - lon0).remainder(dividingBy: 360) * cosLat, lat0 - c.latitude)
  }

  /// Pixel position of a coordinate.
  func point(_ c: Coordinate) -> (Double, Double) {
    let (x, y) = Self.plane(c, latitude0, longitude0, cosLatitude)
    return ((x - minX) * scale, (y - minY) * scale)
  }

  /// Whether any part of the region's bounding box is on the map.
  func reaches(_ region: Region) -> Bool {
    var xs: [Double] = [], ys: [Double] = []
    switch region {
    case .circle(let c):
      let (x, y) = point(c.center)
      let r = c.radius / 111_320 * scale  // degrees of latitude to pixels; longitude is scaled the same way
      xs = [x - r, x + r]
      ys = [y - r, y + r]
    case .polygon(let p):
      for polygon in p.polygons {
        for v in polygon.exterior {
          let (x, y) = point(v)
          xs.append(x)
          ys.append(y)
        }
      }
    }
    guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return false }
    return x1 >= 0 && x0 <= width && y1 >= 0 && y0 <= height
  }

  /// An SVG path for the region's outline (holes with the even-odd rule).
  func path(_ region: Region) -> String {
    var d = ""
    func ring(_ vertices: [Coordinate]) {
      for (k, v) in vertices.enumerated() {
        let (x, y) = point(v)
        d += (k == 0 ? "M" : "L") + TimelineMapReport.number(x) + " " + TimelineMapReport.number(y) + " "
      }
      d += "Z "
    }
    switch region {
    case .circle(let c):
      let outline = (0..<64).compactMap { k in
        Geodesic.wgs84.direct(from: c.center, azimuth: Double(k) * 360 / 64, distance: c.radius)?.destination
      }
      ring(outline)
    case .polygon(let p):
      for polygon in p.polygons {
        ring(polygon.exterior)
        for hole in polygon.holes { ring(hole) }
      }
    }
    return String(d.dropLast())
  }
}
