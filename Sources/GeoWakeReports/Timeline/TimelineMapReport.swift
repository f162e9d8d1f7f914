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
/// Memory stays bounded in track length: the track is drawn from a ``TrackSketch``. The map frames
/// the track, its events and every region (only the regions with events when there are more than
/// ``framedRegions``), at least 4:3 so that it fills the page's width, with a grid of latitudes
/// and longitudes, a scale bar and each region's name (up to ``labelledRegions``, never one
/// label over another). Regions are drawn when they reach into the frame, up to
/// ``maximumDrawnRegions`` (the report says how many were left out). Where regions too small to
/// read had events, a detail map of each group follows. Circles are drawn as 64-gons of exact
/// geodesic points on an equirectangular projection centred on the track (shapes are true to a
/// few percent for tracks spanning under a few hundred kilometres). Events are numbered and
/// listed in time order, the app's steps among the location events.
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
  /// Up to this many regions, the map frames every region with the track; beyond, only those
  /// with events (the rest are drawn where they reach into the frame).
  static let framedRegions = 1_000
  /// Up to this many regions drawn, each is labelled with its identifier.
  static let labelledRegions = 300
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

  /// Writes the whole document, with `summary` (plain text) in its summary section. The events
  /// are numbered and listed in time order, app steps among the location events.
  public func write(summary: String, to sink: ByteSink) throws(TrackIOError) {
    var report = self
    report.events = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    try report.writeOrdered(summary: summary, to: sink)
  }

  private func writeOrdered(summary: String, to sink: ByteSink) throws(TrackIOError) {
    let track = sketch.fixes
    let framed = regions.count <= Self.framedRegions ? regions : regions.filter { Set(events.compactMap(\.region)).contains($0.identifier) }
    let map = MapFrame(track: track, events: events, regions: framed)
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
      #map { width: 100%; max-width: 1200px; } h3 { font-size: 14px; margin: 16px 0 6px; }
      .grid { stroke: #e2e2e2; stroke-width: 1; } .grid-label { font-size: 10px; fill: #888; }
      .label { font-size: 11px; fill: #333; paint-order: stroke; stroke: #fafafa; stroke-width: 3px; stroke-linejoin: round; }
      .scale { stroke: #222; stroke-width: 2; fill: none; } .scale-label { font-size: 11px; fill: #222; }
      table { border-collapse: collapse; font-size: 12px; } td, th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; vertical-align: top; }
      pre { background: #f4f4f4; padding: 8px; overflow-x: auto; }
      </style>
      </head>
      <body>
      <h1>\(Self.escaped(title))</h1>
      <p class="sub">\(Self.escaped(subtitle)) · \(events.count) events · \(sketch.offered) fixes\(sketch.stride > 1 ? " (map drawn from 1 in \(sketch.stride))" : "")</p>

      """)
    try writeLegend(to: sink)
    try sink.write("<h2>Map</h2>\n")
    try writeMap(map, id: "map", track: track, to: sink)
    // Regions too small to read on the map, where events happened: a detail map of each group.
    for (k, group) in detailGroups(map).enumerated() {
      let names = group.map(\.identifier.rawValue)
      try sink.write("<h3>Detail \(k + 1): \(Self.escaped(names.prefix(6).joined(separator: ", ")))\(names.count > 6 ? ", …" : "")</h3>\n")
      try writeMap(MapFrame(track: [], events: [], regions: group, around: map), id: "detail-\(k + 1)", track: track, to: sink)
    }
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

  private func writeMap(_ map: MapFrame, id: String, track: [LocationFix], to sink: ByteSink) throws(TrackIOError) {
    try sink.write("<svg id=\"\(id)\" class=\"map\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Self.number(map.width)) \(Self.number(map.height))\" width=\"\(Self.number(map.width))\" height=\"\(Self.number(map.height))\">\n")
    try writeGrid(map, to: sink)
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
      guard let coordinate = e.coordinate else { continue }
      let (x, y) = map.point(coordinate)
      try sink.write("<g class=\"event \(e.event)\(e.deliveredAt == nil ? " undelivered" : "")\"\(id == "map" ? " id=\"event-\(k + 1)\"" : "")><circle cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"3.5\"/><title>\(Self.escaped(Self.tooltip(k, e)))</title></g>\n")
    }
    // Labels last, above everything they name; where one would cover another, below or beside
    // its region, or left out (a detail map shows it).
    if drawn.count <= Self.labelledRegions {
      var placed: [(x0: Double, y0: Double, x1: Double, y1: Double)] = []
      for region in drawn {
        let name = region.identifier.rawValue
        let width = Double(name.count) * 6.5 + 4, height = 13.0
        let box = map.pixelBox(region)
        let candidates = [
          ((box.x0 + box.x1) / 2 - width / 2, box.y0 - 3 - height), ((box.x0 + box.x1) / 2 - width / 2, box.y1 + 3),
          (box.x1 + 3, (box.y0 + box.y1) / 2 - height / 2), (box.x0 - 3 - width, (box.y0 + box.y1) / 2 - height / 2),
        ]
        guard let spot = candidates.first(where: { c in
          !placed.contains { $0.x0 < c.0 + width && c.0 < $0.x1 && $0.y0 < c.1 + height && c.1 < $0.y1 }
        }) else { continue }
        placed.append((spot.0, spot.1, spot.0 + width, spot.1 + height))
        try sink.write("<text class=\"label\" x=\"\(Self.number(spot.0 + width / 2))\" y=\"\(Self.number(spot.1 + height - 3))\" text-anchor=\"middle\">\(Self.escaped(name))</text>\n")
      }
    }
    try writeScaleBar(map, to: sink)
    try sink.write("</svg>\n")
    if left > 0 {
      try sink.write("<p class=\"sub\">\(left) regions reaching into the map are not drawn (at most \(maximumDrawnRegions), those with events first).</p>\n")
    }
  }

  /// Groups of regions with events drawn smaller than ``detailBelow`` pixels across on `map`,
  /// each group the regions within ``detailBelow`` × 4 pixels of one another; at most four groups,
  /// those with the most events first.
  private func detailGroups(_ map: MapFrame) -> [[Region]] {
    var counts: [RegionIdentifier: Int] = [:]
    for e in self.events { if let region = e.region { counts[region, default: 0] += 1 } }
    let small = regions.filter { region in
      guard counts[region.identifier] != nil else { return false }
      let box = map.pixelBox(region)
      return max(box.x1 - box.x0, box.y1 - box.y0) < Self.detailBelow
    }
    var groups: [[Region]] = []
    var centres: [[(Double, Double)]] = []
    for region in small {
      let box = map.pixelBox(region)
      let centre = ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
      let near = centres.firstIndex { group in
        group.contains { ($0.0 - centre.0) * ($0.0 - centre.0) + ($0.1 - centre.1) * ($0.1 - centre.1) < Self.detailBelow * Self.detailBelow * 16 }
      }
      if let near {
        groups[near].append(region)
        centres[near].append(centre)
      } else {
        groups.append([region])
        centres.append([centre])
      }
    }
    func eventCount(_ group: [Region]) -> Int { group.reduce(0) { $0 + (counts[$1.identifier] ?? 0) } }
    return Array(groups.sorted { eventCount($0) > eventCount($1) }.prefix(4))
  }

  /// Regions drawn smaller than this many pixels across get a detail map.
  static let detailBelow = 40.0

  /// Lines of equal latitude and longitude at a round step, labelled at the map's left and top
  /// edges.
  private func writeGrid(_ map: MapFrame, to sink: ByteSink) throws(TrackIOError) {
    let (south, north) = map.latitudeRange
    let (west, east) = map.longitudeRange
    // Lines at least 110 pixels apart, so that their labels never touch.
    let step = Self.roundStep(110 / (map.scale * map.cosLatitude), up: true)
    let decimals = max(0, Int((-Double.log10(step)).rounded(.up)))
    var lat = (south / step).rounded(.up) * step
    while lat <= north {
      let y = map.point(latitude: lat, longitude: map.longitude0).1
      try sink.write("<line class=\"grid\" x1=\"0\" y1=\"\(Self.number(y))\" x2=\"\(Self.number(map.width))\" y2=\"\(Self.number(y))\"/>")
      guard y > 24 && y < map.height - 30 else {
        lat += step
        continue
      }
      try sink.write("<text class=\"grid-label\" x=\"3\" y=\"\(Self.number(y - 2))\">\(NumberText.fixed(abs(lat), decimals: decimals))°\(lat < 0 ? "S" : "N")</text>\n")
      lat += step
    }
    var lon = (west / step).rounded(.up) * step
    while lon <= east {
      let x = map.point(latitude: map.latitude0, longitude: lon).0
      let shown = lon.remainder(dividingBy: 360)
      try sink.write("<line class=\"grid\" x1=\"\(Self.number(x))\" y1=\"0\" x2=\"\(Self.number(x))\" y2=\"\(Self.number(map.height))\"/>")
      guard x > 50 && x < map.width - 60 else {
        lon += step
        continue
      }
      try sink.write("<text class=\"grid-label\" x=\"\(Self.number(x + 2))\" y=\"10\">\(NumberText.fixed(abs(shown), decimals: decimals))°\(shown < 0 ? "W" : "E")</text>\n")
      lon += step
    }
  }

  /// A bar of a round length (1, 2 or 5 × 10ⁿ m) about a fifth of the map's width, bottom right,
  /// on a white ground.
  private func writeScaleBar(_ map: MapFrame, to sink: ByteSink) throws(TrackIOError) {
    let metresPerPixel = map.metresPerPixel
    let metres = Self.roundStep(metresPerPixel * map.width / 5)
    let length = metres / metresPerPixel
    let (x, y) = (map.width - length - 70, map.height - 14)
    try sink.write("<rect x=\"\(Self.number(x - 6))\" y=\"\(Self.number(y - 16))\" width=\"\(Self.number(length + 70))\" height=\"24\" fill=\"#fff\" fill-opacity=\"0.85\"/>")
    let label = metres >= 1_000 ? "\(NumberText.fixed(metres / 1_000, decimals: metres >= 10_000 || metres.truncatingRemainder(dividingBy: 1_000) == 0 ? 0 : 1)) km" : "\(Int(metres)) m"
    try sink.write("<path class=\"scale\" d=\"M\(Self.number(x)) \(Self.number(y - 5)) V\(Self.number(y)) H\(Self.number(x + length)) V\(Self.number(y - 5))\"/>")
    try sink.write("<text class=\"scale-label\" x=\"\(Self.number(x + length + 6))\" y=\"\(Self.number(y))\">\(label)</text>\n")
  }

  /// The round value (1, 2 or 5 × 10ⁿ) nearest below `value` (or above, with `up`).
  static func roundStep(_ value: Double, up: Bool = false) -> Double {
    guard value > 0, value.isFinite else { return 1 }
    let power = Double.pow(10, (Double.log10(value)).rounded(.down))
    let mantissa = value / power
    if up { return (mantissa > 5 ? 10 : mantissa > 2 ? 5 : mantissa > 1 ? 2 : 1) * power }
    return (mantissa >= 5 ? 5 : mantissa >= 2 ? 2 : 1) * power
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
    try sink.write("<h2>Timeline <span class=\"zone\">(times in UTC)</span></h2>\n<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1000 \(Self.number(height))\" width=\"1000\" height=\"\(Self.number(height))\">\n")
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
      // Inside from the crossing (the geometric truth), whenever the app was told.
      case "enter": since[e.subject] = e.crossedAt ?? e.time
      case "state" where e.state == "inside": since[e.subject] = e.crossedAt ?? e.time
      case "exit", "state":
        if let from = since.removeValue(forKey: e.subject) { try bar(e.subject, from, e.crossedAt ?? e.time) }
      default: break
      }
    }
    for (id, from) in since.sorted(by: { $0.key < $1.key }) { try bar(id, from, t1) }
    for (k, e) in events.enumerated() {
      guard let l = lane[e.subject] else { continue }
      let y = top + Double(l) * laneHeight + 1
      try sink.write("<rect class=\"tick \(e.event)\(e.deliveredAt == nil ? " undelivered" : "")\" x=\"\(Self.number(x(e.crossedAt ?? e.time) - 2))\" y=\"\(Self.number(y))\" width=\"4\" height=\"14\"><title>\(Self.escaped(Self.tooltip(k, e)))</title></rect>\n")
    }
    try sink.write("</svg>\n")
    if lanes.count > shown.count {
      try sink.write("<p class=\"sub\">\(lanes.count - shown.count) more regions with events are in the table below but have no lane (at most \(maximumLanes)).</p>\n")
    }
  }

  private func writeTable(to sink: ByteSink) throws(TrackIOError) {
    try sink.write("<h2>Events</h2>\n<table id=\"events\">\n<tr><th>#</th><th>at (UTC)</th><th>crossed at (UTC)</th><th>delivered at (UTC)</th><th>region</th><th>event</th><th>reason</th></tr>\n")
    for (k, e) in events.enumerated() {
      try sink.write("<tr id=\"row-\(k + 1)\" class=\"\(e.event)\"><td>\(k + 1)</td><td>\(TimestampText.iso8601(e.time, fractionDigits: 3))</td><td>\(e.crossedAt.map { TimestampText.iso8601($0, fractionDigits: 3) } ?? "-")</td><td>\(e.deliveredAt.map { TimestampText.iso8601($0, fractionDigits: 3) } ?? "-")</td><td>\(Self.escaped(e.subject))</td><td>\(e.kindText)</td><td>\(Self.escaped(e.reason))</td></tr>\n")
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
      + (e.crossedAt.map { "crossed \(TimestampText.iso8601($0, fractionDigits: 3))\n" } ?? "")
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
/// track across the antimeridian stays in one piece; the track, the events and the regions given
/// fitted into at most 1200 × 900 pixels.
struct MapFrame {
  let latitude0: Double
  let longitude0: Double
  let cosLatitude: Double
  let minX: Double
  let minY: Double
  let scale: Double
  let width: Double
  let height: Double

  init(track: [LocationFix], events: [TimelineEntry], regions: [Region] = []) {
    let points = track.map(\.coordinate) + events.compactMap(\.coordinate)
    let anchor = points.first ?? regions.first.map(Self.anchor)
    latitude0 = anchor?.latitude ?? 0
    longitude0 = anchor?.longitude ?? 0
    cosLatitude = max(0.01, Double.cos(latitude0 * .pi / 180))
    var lowX = 0.0, highX = 0.0, lowY = 0.0, highY = 0.0
    func include(_ x: Double, _ y: Double) {
      lowX = min(lowX, x); highX = max(highX, x); lowY = min(lowY, y); highY = max(highY, y)
    }
    for c in points {
      let (x, y) = Self.plane(c, latitude0, longitude0, cosLatitude)
      include(x, y)
    }
    for region in regions {
      switch region {
      case .circle(let c):
        let (x, y) = Self.plane(c.center, latitude0, longitude0, cosLatitude)
        let r = c.radius / 111_320
        include(x - r, y - r)
        include(x + r, y + r)
      case .polygon(let p):
        for polygon in p.polygons {
          for v in polygon.exterior {
            let (x, y) = Self.plane(v, latitude0, longitude0, cosLatitude)
            include(x, y)
          }
        }
      }
    }
    // At least ~500 m across, plus a 5 % margin.
    // Never narrower than 4:3, so that the map fills the page's width.
    let minimumSpan = 0.0045
    let spanY = max(highY - lowY, minimumSpan), spanX = max(highX - lowX, minimumSpan, spanY * 4 / 3)
    let centreX = (lowX + highX) / 2, centreY = (lowY + highY) / 2
    minX = centreX - spanX * 0.55
    minY = centreY - spanY * 0.55
    scale = min(1_200 / (spanX * 1.1), 900 / (spanY * 1.1))
    width = (spanX * 1.1 * scale).rounded()
    height = (spanY * 1.1 * scale).rounded()
  }

  /// A detail of `parent`: its projection's origin, framing `regions` with room around them, at
  /// most 700 × 450 pixels.
  init(track: [LocationFix], events: [TimelineEntry], regions: [Region], around parent: MapFrame) {
    latitude0 = parent.latitude0
    longitude0 = parent.longitude0
    cosLatitude = parent.cosLatitude
    var lowX = Double.infinity, highX = -Double.infinity, lowY = Double.infinity, highY = -Double.infinity
    for region in regions {
      let box = parent.pixelBox(region)
      lowX = min(lowX, parent.minX + box.x0 / parent.scale); highX = max(highX, parent.minX + box.x1 / parent.scale)
      lowY = min(lowY, parent.minY + box.y0 / parent.scale); highY = max(highY, parent.minY + box.y1 / parent.scale)
    }
    // Twice the group's extent, and at least ~200 m across.
    let spanY = max(highY - lowY, 0.0009) * 2, spanX = max(max(highX - lowX, 0.0009) * 2, spanY * 14 / 9)
    let centreX = (lowX + highX) / 2, centreY = (lowY + highY) / 2
    scale = min(700 / spanX, 450 / spanY)
    width = (spanX * scale).rounded()
    height = (spanY * scale).rounded()
    minX = centreX - spanX / 2
    minY = centreY - spanY / 2
  }

  /// The region's bounding box in pixels.
  func pixelBox(_ region: Region) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
    switch region {
    case .circle(let c):
      let (x, y) = point(c.center)
      let r = c.radius / metresPerPixel
      return (x - r, y - r, x + r, y + r)
    case .polygon(let p):
      let vertices = p.polygons.flatMap(\.exterior).map(point)
      let xs = vertices.map(\.0), ys = vertices.map(\.1)
      return (xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0)
    }
  }

  private static func anchor(_ region: Region) -> Coordinate {
    switch region {
    case .circle(let c): return c.center
    case .polygon(let p): return p.polygons[0].exterior[0]
    }
  }

  /// The latitudes from the map's bottom to its top.
  var latitudeRange: (Double, Double) { (latitude0 - (minY + height / scale), latitude0 - minY) }
  /// The longitudes (unwrapped) from the map's left to its right.
  var longitudeRange: (Double, Double) { (longitude0 + minX / cosLatitude, longitude0 + (minX + width / scale) / cosLatitude) }
  /// Metres a pixel spans (north–south; east–west is the same on this projection at its centre).
  var metresPerPixel: Double { 111_320 / scale }

  /// Pixel position of a latitude and an (unwrapped) longitude.
  func point(latitude: Double, longitude: Double) -> (Double, Double) {
    (((longitude - longitude0) * cosLatitude - minX) * scale, (latitude0 - latitude - minY) * scale)
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
