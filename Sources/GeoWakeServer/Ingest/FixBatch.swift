#if Server
public import Geodesy
import TrackIO

/// One fix as a client posts it: `{device, time, lat, lon, accuracy?, speed?, course?, cell?}`.
public struct FixInput: Sendable, Hashable {
  public var device: String
  /// Seconds since 1970.
  public var time: Double
  /// Degrees in -90...90 and -180..<180, as a batch read gives them (180° posted is −180°).
  public var latitude: Double
  public var longitude: Double
  /// Horizontal accuracy in metres (> 0), if given.
  public var accuracy: Double?
  /// Metres per second (≥ 0) and degrees clockwise from north (0 ≤ course < 360), if given: kept
  /// with the fix; the region rules do not use them.
  public var speed: Double?
  public var course: Double?
  /// The serving cell the device names, kept with the fix.
  public var cell: String?

  public init(
    device: String, time: Double, latitude: Double, longitude: Double, accuracy: Double? = nil, speed: Double? = nil,
    course: Double? = nil, cell: String? = nil
  ) {
    self.device = device
    self.time = time
    self.latitude = latitude
    self.longitude = longitude
    self.accuracy = accuracy
    self.speed = speed
    self.course = course
    self.cell = cell
  }

  /// The fix the region rules see.
  public var locationFix: LocationFix {
    LocationFix(time: time, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude), horizontalAccuracy: accuracy)
  }
}

/// A posted batch, read: each item is a fix or why it is not one, where it is in the body.
public struct FixBatch: Sendable {
  public struct Item: Sendable {
    /// The item's 0-based place in the batch (an array's element, or a non-blank line).
    public var index: Int
    /// The 1-based line and byte column of the item in the body.
    public var line: Int
    public var column: Int
    public var fix: Result<FixInput, Problem>
  }

  /// Why an item is not a fix: what was found, where, and what was expected.
  public struct Problem: Error, Sendable, Hashable {
    public var line: Int
    public var column: Int
    public var field: String?
    public var message: String
  }

  public var items: [Item]

  /// The longest device name accepted, in UTF-8 bytes.
  public static let longestDeviceName = 256

  /// Reads `body`: a JSON array of fix objects, or NDJSON (one object a line, blank lines
  /// skipped).
  /// - Throws: ``Problem`` when the body is an array that is not valid JSON (no item can be
  ///   told apart from the next); a bad NDJSON line is an item in error, the others are read.
  public init(body: [UInt8]) throws(Problem) {
    var start = 0
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
    while start < body.count, Self.isSpace(body[start]) { start += 1 }
    items = []
    if start < body.count, body[start] == UInt8(ascii: "[") {
      var parser = JSONParser(path: "body", bytes: body)
      let document: JSONNode
      do { document = try parser.parseDocument() } catch {
        throw Problem(line: error.line, column: error.column, field: nil, message: error.message)
      }
      guard case .array(let elements) = document.value else {
        throw Problem(line: 1, column: 1, field: nil, message: "expected a JSON array of fixes or NDJSON")
      }
      for (k, element) in elements.enumerated() {
        let (line, column) = parser.location(of: element.offset)
        items.append(Item(index: k, line: line, column: column, fix: Self.fix(element, in: body, at: line, lineStart: element.offset - column + 1)))
      }
      return
    }
    var lineStart = 0
    var lineNumber = 0
    while lineStart < body.count {
      lineNumber += 1
      var end = lineStart
      while end < body.count, body[end] != UInt8(ascii: "\n") { end += 1 }
      var slice = Array(body[lineStart..<end])
      if slice.last == UInt8(ascii: "\r") { slice.removeLast() }
      if lineNumber == 1, slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice.removeFirst(3) }
      if slice.contains(where: { !Self.isSpace($0) }) {
        var parser = JSONParser(path: "body", bytes: slice)
        let index = items.count
        do {
          let node = try parser.parseDocument()
          items.append(Item(index: index, line: lineNumber, column: 1, fix: Self.fix(node, in: slice, at: lineNumber, lineStart: 0)))
        } catch {
          items.append(
            Item(index: index, line: lineNumber, column: 1, fix: .failure(Problem(line: lineNumber, column: error.column, field: nil, message: error.message))))
        }
      }
      lineStart = end + 1
    }
  }

  static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

  /// The fix an object gives, under the rules of `geowake analyze`'s JSON Lines reader (the same
  /// times, coordinates and accuracies are accepted), plus `speed`, `course` and `cell`.
  static func fix(_ object: JSONNode, in bytes: [UInt8], at line: Int, lineStart: Int) -> Result<FixInput, Problem> {
    func problem(_ field: String?, _ message: String, _ node: JSONNode?) -> Problem {
      let offset = node?.offset ?? object.offset
      return Problem(line: line + bytes[lineStart..<max(lineStart, offset)].count { $0 == UInt8(ascii: "\n") }, column: column(offset), field: field, message: message)
    }
    func column(_ offset: Int) -> Int {
      var k = offset
      while k > 0, bytes[k - 1] != UInt8(ascii: "\n") { k -= 1 }
      return offset - k + 1
    }
    guard case .object = object.value else {
      return .failure(problem(nil, "\(object.kind): expected an object with device, time, lat and lon", nil))
    }
    let device: String
    switch object["device"]?.value {
    case .string(let s)?:
      guard !s.isEmpty, s.utf8.count <= longestDeviceName, !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
        return .failure(problem("device", "\"device\" must be 1 to \(longestDeviceName) bytes without control characters", object["device"]))
      }
      device = s
    case .number?:
      let d = object["device"]!
      device = String(decoding: bytes[d.offset..<d.end], as: UTF8.self)
    case nil: return .failure(problem("device", "no \"device\": expected the name of the device the fix is from", nil))
    default: return .failure(problem("device", "\"device\" is \(object["device"]!.kind): expected a string or number", object["device"]))
    }
    guard let timeNode = object["time"] else { return .failure(problem("time", "no \"time\": expected seconds since 1970 or an ISO 8601 string", nil)) }
    let time: Double
    switch timeNode.time(assumeUTC: false, what: "\"time\"") {
    case .success(let t): time = t
    case .failure(let failure): return .failure(problem("time", failure.message, timeNode))
    }
    guard time.isFinite else { return .failure(problem("time", "\"time\" is not a finite time", timeNode)) }
    func number(_ key: String, _ expected: String) -> Result<Double?, Problem> {
      guard let node = object[key], !node.value.isNull else { return .success(nil) }
      guard case .number(let v) = node.value else { return .failure(problem(key, "\"\(key)\" is \(node.kind): expected \(expected)", node)) }
      return .success(v)
    }
    let latitude: Double
    let longitude: Double
    switch (number("lat", "degrees in -90...90"), number("lon", "degrees in -180...180")) {
    case (.failure(let p), _), (_, .failure(let p)): return .failure(p)
    case (.success(let lat?), .success(let lon?)):
      // As the track readers have it: 180° is −180°, −0 is 0.
      do throws(CoordinateError) {
        let place = try Coordinate.reading(latitude: lat, longitude: lon)
        latitude = place.latitude
        longitude = place.longitude
      } catch {
        let key = error.component == .latitude ? "lat" : "lon"
        return .failure(problem(key, error.description, object[key]))
      }
    case (.success(nil), _): return .failure(problem("lat", "no \"lat\": expected degrees in -90...90", nil))
    default: return .failure(problem("lon", "no \"lon\": expected degrees in -180...180", nil))
    }
    var fix = FixInput(device: device, time: time, latitude: latitude, longitude: longitude)
    switch number("accuracy", "metres") {
    case .failure(let p): return .failure(p)
    case .success(let a?):
      guard a > 0, a.isFinite else { return .failure(problem("accuracy", "\"accuracy\" \(a) is not a positive number of metres", object["accuracy"])) }
      fix.accuracy = a
    case .success(nil): break
    }
    switch number("speed", "metres per second") {
    case .failure(let p): return .failure(p)
    case .success(let v?):
      guard v >= 0, v.isFinite else { return .failure(problem("speed", "\"speed\" \(v) is not metres per second ≥ 0", object["speed"])) }
      fix.speed = v
    case .success(nil): break
    }
    switch number("course", "degrees from north") {
    case .failure(let p): return .failure(p)
    case .success(let v?):
      guard v >= 0, v < 360 else { return .failure(problem("course", "\"course\" \(v) is not degrees in 0..<360", object["course"])) }
      fix.course = v
    case .success(nil): break
    }
    if let cell = object["cell"], !cell.value.isNull {
      switch cell.value {
      case .string(let s) where !s.isEmpty && s.utf8.count <= 64: fix.cell = s
      case .number: fix.cell = String(decoding: bytes[cell.offset..<cell.end], as: UTF8.self)
      default: return .failure(problem("cell", "\"cell\" is \(cell.kind): expected the serving cell's identity (a string of up to 64 bytes, or a number)", cell))
      }
    }
    return .success(fix)
  }
}
#endif
