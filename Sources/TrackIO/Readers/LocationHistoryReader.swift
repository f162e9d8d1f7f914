public import Geodesy
import Foundation

/// Reads a phone's location history as exported by Google:
///
/// - **Takeout's `Records.json`**: `{"locations": [{"latitudeE7", "longitudeE7", "accuracy"?,
///   "timestamp" (ISO 8601) or the older "timestampMs" (milliseconds, a string or a number)}, …]}`;
///   the other keys of a location (`source`, `activity`, …) are not used.
/// - **The on-device Timeline export** (`Timeline.json`): `rawSignals[].position` (`LatLng`
///   such as `"37.7749°, -122.4194°"`, `accuracyMeters`, `timestamp`) and
///   `semanticSegments[].timelinePath[]` (`point`, `time`); both, merged in time order.
///
/// The file is read in chunks, one location at a time (these files reach gigabytes): memory holds
/// the fixes, not the document. Every problem is an error with its line and column.
public struct LocationHistoryReader {
  public let path: String
  private var fixes: [LocationFix] = []
  private var lines: [Int32] = []
  private var position = 0

  public init(path: String) throws(TrackIOError) {
    var reader = try JSONChunkReader(path: path)
    self.path = reader.path
    guard try reader.peek() == UInt8(ascii: "{") else {
      throw reader.error("expected a location history: an object with \"locations\", \"semanticSegments\" or \"rawSignals\"", at: reader.position)
    }
    reader.consume()
    var timeline: [(LocationFix, Int32)] = []
    var sawHistory = false
    if try reader.peek() == UInt8(ascii: "}") {
      reader.consume()
    } else {
      repeat {
        guard try reader.peek() == UInt8(ascii: "\"") else {
          throw reader.error("expected a member name in double quotes", at: reader.position)
        }
        let key = try reader.string()
        try reader.expect(UInt8(ascii: ":"), "':' after the member name")
        switch key {
        case "locations":
          sawHistory = true
          try Self.elements(&reader) { (node, fail, line) throws(TrackIOError) in
            let fix = try Self.record(node, fail)
            fixes.append(fix)
            lines.append(line)
          }
        case "semanticSegments":
          sawHistory = true
          try Self.elements(&reader) { (node, fail, line) throws(TrackIOError) in
            guard let path = node["timelinePath"] else { return }
            guard case .array(let points) = path.value else { throw fail("\"timelinePath\" is \(path.kind): expected an array of points", path.offset) }
            for point in points {
              guard let text = point["point"], case .string(let latLng) = text.value else {
                throw fail("a timelinePath point needs \"point\": expected \"LAT°, LON°\"", point.offset)
              }
              let coordinate = try Self.latLng(latLng, text.offset, fail)
              let time = try Self.time(point["time"], "time", point, fail)
              timeline.append((LocationFix(time: time, coordinate: coordinate), line))
            }
          }
        case "rawSignals":
          sawHistory = true
          try Self.elements(&reader) { (node, fail, line) throws(TrackIOError) in
            guard let position = node["position"] else { return }  // Wi-Fi scans, activity records
            guard let text = position["LatLng"], case .string(let latLng) = text.value else {
              throw fail("a rawSignals position needs \"LatLng\": expected \"LAT°, LON°\"", position.offset)
            }
            let coordinate = try Self.latLng(latLng, text.offset, fail)
            let time = try Self.time(position["timestamp"], "timestamp", position, fail)
            var accuracy: Double?
            if let a = position["accuracyMeters"] {
              guard case .number(let v) = a.value, v >= 0 else { throw fail("\"accuracyMeters\" is not a number of metres ≥ 0", a.offset) }
              accuracy = v
            }
            timeline.append((LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: accuracy), line))
          }
        default:
          try reader.skipValue()
        }
      } while try reader.next(UInt8(ascii: "}"), in: "an object")
    }
    try reader.expectEnd()
    guard sawHistory else {
      throw TrackIOError(path: self.path, line: 1, column: 1, message: "no \"locations\", \"semanticSegments\" or \"rawSignals\": expected a location history (Takeout's Records.json or the on-device Timeline export)")
    }
    // The Timeline export's two lists, merged in time order (stable: each list keeps its order).
    for (fix, line) in timeline.enumerated().sorted(by: { ($0.element.0.time, $0.offset) < ($1.element.0.time, $1.offset) }).map(\.element) {
      fixes.append(fix)
      lines.append(line)
    }
  }

  /// The line of the fix last returned.
  public var lineNumber: Int { position > 0 ? Int(lines[position - 1]) : 0 }

  /// The next fix, or nil at the end.
  public mutating func next() -> LocationFix? {
    guard position < fixes.count else { return nil }
    defer { position += 1 }
    return fixes[position]
  }

  typealias Fail = (String, Int) -> TrackIOError

  /// Calls `body` with each element of the array at the reader's position, read whole one at a
  /// time, with a way to locate errors in it and its line.
  private static func elements(
    _ reader: inout JSONChunkReader, _ body: (JSONNode, Fail, Int32) throws(TrackIOError) -> Void
  ) throws(TrackIOError) {
    guard try reader.peek() == UInt8(ascii: "[") else { throw reader.error("expected an array", at: reader.position) }
    reader.consume()
    if try reader.peek() == UInt8(ascii: "]") {
      reader.consume()
      return
    }
    repeat {
      let line = Int32(truncatingIfNeeded: reader.currentLine())
      let (node, fail) = try reader.value()
      guard case .object = node.value else { throw fail("\(node.kind): expected an object", node.offset) }
      try body(node, fail, line)
    } while try reader.next(UInt8(ascii: "]"), in: "an array")
  }

  /// A Takeout location.
  private static func record(_ node: JSONNode, _ fail: Fail) throws(TrackIOError) -> LocationFix {
    func e7(_ key: String) throws(TrackIOError) -> Double {
      guard let n = node[key] else { throw fail("a location needs \"\(key)\": expected degrees × 10⁷", node.offset) }
      guard case .number(let v) = n.value, v == v.rounded() else { throw fail("\"\(key)\" is \(n.kind): expected an integer, degrees × 10⁷", n.offset) }
      return v / 10_000_000
    }
    let (lat, lon) = (try e7("latitudeE7"), try e7("longitudeE7"))
    let coordinate: Coordinate
    do throws(CoordinateError) { coordinate = try Coordinate.reading(latitude: lat, longitude: lon) } catch {
      throw fail(error.description, node[error.component == .latitude ? "latitudeE7" : "longitudeE7"]?.offset ?? node.offset)
    }
    let time: Double
    if let ms = node["timestampMs"] {
      switch ms.value {
      case .number(let v): time = v / 1_000
      case .string(let s):
        guard let v = Double(s), v.isFinite else { throw fail("\"timestampMs\" \"\(s)\" is not a number of milliseconds", ms.offset) }
        time = v / 1_000
      default: throw fail("\"timestampMs\" is \(ms.kind): expected milliseconds since 1970", ms.offset)
      }
      guard ByteNumbers.epochSecondsRange.contains(time) else {
        throw fail("\"timestampMs\" is no time between the years 1 and 9999: expected milliseconds since 1970", ms.offset)
      }
    } else {
      time = try Self.time(node["timestamp"], "timestamp", node, fail)
    }
    var accuracy: Double?
    if let a = node["accuracy"] {
      guard case .number(let v) = a.value, v >= 0 else { throw fail("\"accuracy\" is not a number of metres ≥ 0", a.offset) }
      accuracy = v
    }
    return LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: accuracy)
  }

  /// An ISO 8601 time with its zone.
  private static func time(_ node: JSONNode?, _ key: String, _ owner: JSONNode, _ fail: Fail) throws(TrackIOError) -> Double {
    guard let node else { throw fail("no \"\(key)\": expected an ISO 8601 time", owner.offset) }
    guard case .string(let s) = node.value else { throw fail("\"\(key)\" is \(node.kind): expected an ISO 8601 time", node.offset) }
    switch ByteNumbers.isoTime(s, assumeUTC: false) {
    case .success(let t): return t
    case .failure(let problem): throw fail(problem.message, node.offset)
    }
  }

  /// `"37.7749°, -122.4194°"` (the degree signs optional).
  private static func latLng(_ text: String, _ offset: Int, _ fail: Fail) throws(TrackIOError) -> Coordinate {
    let parts = text.replacingOccurrences(of: "°", with: "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
      throw fail("\"\(text)\" is not a position: expected \"LAT°, LON°\" such as \"37.7749°, -122.4194°\"", offset)
    }
    do throws(CoordinateError) { return try Coordinate.reading(latitude: lat, longitude: lon) } catch {
      throw fail(error.description, offset)
    }
  }
}
