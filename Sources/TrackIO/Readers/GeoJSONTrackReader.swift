public import Geodesy

/// Reads a track from GeoJSON: `LineString` and `MultiLineString` features whose positions have
/// their times in `properties.coordTimes` (the convention of togeojson and many exporters) or
/// `properties.times` — one per position, ISO 8601 strings or seconds (milliseconds, … told apart
/// by magnitude) since 1970; for a `MultiLineString`, one array per line or one flat array — and
/// `Point` features with a `time` (or `timestamp`) property. A FeatureCollection, a single Feature
/// or a bare geometry with its times beside it.
///
/// The features are read one at a time (``JSONParser/stream(_:)``): memory holds the file's bytes
/// (up to ``JSONParser/largestFile``) and the fixes, never a tree of the whole document. Fixes
/// come in document order; each knows its line. Every problem is an error
/// with its line and column: a position that is not `[longitude, latitude]`, a count of times
/// that differs from the count of positions, a time that is not one.
public struct GeoJSONTrackReader {
  public let path: String
  private var fixes: [LocationFix] = []
  private var lines: [Int32] = []
  private var position = 0
  /// Features skipped because they hold no track (polygons, untimed lines are errors).
  public private(set) var skippedFeatures = 0

  /// Reads the file at `path` (`-` for standard input). An ISO 8601 time without a zone is an
  /// error unless `assumeUTC`.
  public init(path: String, assumeUTC: Bool = false) throws(TrackIOError) {
    let parser = try JSONParser(path: path)
    self.path = parser.path
    var builder = Builder(parser: parser, assumeUTC: assumeUTC)
    try parser.stream { (s: inout JSONStream) throws(TrackIOError) in
      guard s.peek() == UInt8(ascii: "{") else {
        throw s.error("found \(s.found()): expected a GeoJSON object (a FeatureCollection, a Feature or a geometry)", at: s.offset)
      }
      let (root, streamed) = try s.geoJSONObject(collection: { _ in true }) { (s) throws(TrackIOError) in
        try builder.feature(try s.value())
      }
      try s.expectEnd()
      switch root["type"]?.value {
      case .string("FeatureCollection")?:
        guard streamed else { throw parser.error("a FeatureCollection needs a \"features\" array", at: root.offset) }
      case .string("Feature")? where !streamed:
        try builder.feature(root)
      case .string("LineString")?, .string("MultiLineString")?, .string("Point")?:
        // A bare geometry: its times beside its coordinates.
        try builder.geometry(root, properties: root)
      default:
        throw parser.error("expected a GeoJSON FeatureCollection, Feature or LineString (\"type\")", at: root.offset)
      }
    }
    fixes = builder.fixes
    lines = builder.lines
    skippedFeatures = builder.skipped
  }

  /// The line of the fix last returned.
  public var lineNumber: Int { position > 0 ? Int(lines[position - 1]) : 0 }

  /// The next fix, or nil at the end.
  public mutating func next() -> LocationFix? {
    guard position < fixes.count else { return nil }
    defer { position += 1 }
    return fixes[position]
  }

  /// Turns features into fixes.
  private struct Builder {
    let parser: JSONParser
    let assumeUTC: Bool
    var fixes: [LocationFix] = []
    var lines: [Int32] = []
    var skipped = 0
    // The line at `lineOffset`, carried forward as positions are read in document order.
    private var lineOffset = 0
    private var lineAtOffset = 1

    init(parser: JSONParser, assumeUTC: Bool) {
      self.parser = parser
      self.assumeUTC = assumeUTC
    }

    /// The 1-based line of byte `offset`, counting on from the last one asked.
    mutating func line(at offset: Int) -> Int {
      if offset < lineOffset {
        lineOffset = 0
        lineAtOffset = 1
      }
      let bytes = parser.bytes
      var k = lineOffset
      while k < offset {
        if bytes[k] == UInt8(ascii: "\n") { lineAtOffset += 1 }
        k += 1
      }
      lineOffset = offset
      return lineAtOffset
    }

    func fail(_ message: String, _ node: JSONNode) -> TrackIOError { parser.error(message, at: node.offset) }

    mutating func feature(_ node: JSONNode) throws(TrackIOError) {
      guard case .object = node.value else { throw fail("\(node.kind): expected a GeoJSON Feature", node) }
      guard let geometry = node["geometry"], case .object = geometry.value else {
        skipped += 1  // a feature without a geometry (null) holds no track
        return
      }
      try self.geometry(geometry, properties: node["properties"] ?? node)
    }

    mutating func geometry(_ geometry: JSONNode, properties: JSONNode) throws(TrackIOError) {
      guard let typeNode = geometry["type"], case .string(let type) = typeNode.value else {
        throw fail("geometry without a \"type\": expected LineString, MultiLineString or Point", geometry)
      }
      guard let coordinates = geometry["coordinates"] else { throw fail("\(type) without \"coordinates\"", geometry) }
      let times = properties["coordTimes"] ?? properties["times"]
      switch type {
      case "LineString":
        guard let times else { throw fail("LineString without \"coordTimes\" or \"times\" in its properties: expected a time per position", geometry) }
        try line(coordinates, times)
      case "MultiLineString":
        guard case .array(let parts) = coordinates.value else { throw fail("MultiLineString coordinates are \(coordinates.kind): expected an array of lines", coordinates) }
        guard let times, case .array(let timeItems) = times.value else {
          throw fail("MultiLineString without \"coordTimes\" or \"times\" arrays in its properties: expected a time per position", geometry)
        }
        if timeItems.count == parts.count, timeItems.allSatisfy({ if case .array = $0.value { true } else { false } }) {
          for (part, partTimes) in zip(parts, timeItems) { try line(part, partTimes) }
        } else {
          // One flat array for all the lines, in order.
          var start = 0
          for part in parts {
            guard case .array(let positions) = part.value else { throw fail("line is \(part.kind): expected an array of positions", part) }
            guard start + positions.count <= timeItems.count else {
              throw fail("\(timeItems.count) times for more positions: expected one time per position", times)
            }
            for (position, time) in zip(positions, timeItems[start..<(start + positions.count)]) { try fix(position, time) }
            start += positions.count
          }
          guard start == timeItems.count else { throw fail("\(timeItems.count) times for \(start) positions: expected one time per position", times) }
        }
      case "Point":
        guard let time = properties["time"] ?? properties["timestamp"] ?? properties["coordTimes"] else {
          skipped += 1  // an untimed point: a waypoint, not a fix
          return
        }
        try fix(coordinates, time)
      default:
        skipped += 1  // polygons and collections hold no track
      }
    }

    mutating func line(_ coordinates: JSONNode, _ times: JSONNode) throws(TrackIOError) {
      guard case .array(let positions) = coordinates.value else { throw fail("LineString coordinates are \(coordinates.kind): expected an array of positions", coordinates) }
      guard case .array(let timeItems) = times.value else { throw fail("times are \(times.kind): expected an array with a time per position", times) }
      guard timeItems.count == positions.count else {
        throw fail("\(timeItems.count) times for \(positions.count) positions: expected one time per position", times)
      }
      for (position, time) in zip(positions, timeItems) { try fix(position, time) }
    }

    mutating func fix(_ position: JSONNode, _ timeNode: JSONNode) throws(TrackIOError) {
      guard case .array(let items) = position.value, items.count >= 2,
        case .number(let lon) = items[0].value, case .number(let lat) = items[1].value
      else { throw fail("position is \(position.kind == "an array" ? "not [longitude, latitude]" : position.kind): expected [longitude, latitude]", position) }
      let coordinate: Coordinate
      do throws(CoordinateError) { coordinate = try Coordinate.reading(latitude: lat, longitude: lon) } catch {
        throw fail(error.description, error.component == .latitude ? items[1] : items[0])
      }
      let time: Double
      switch timeNode.time(assumeUTC: assumeUTC, what: "time") {
      case .success(let t): time = t
      case .failure(let problem): throw fail(problem.message, timeNode)
      }
      fixes.append(LocationFix(time: time, coordinate: coordinate))
      lines.append(Int32(truncatingIfNeeded: line(at: position.offset)))
    }
  }
}
