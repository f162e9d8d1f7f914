public import Geodesy
import JSONBytes

/// Reads fixes from JSON Lines: one object per line with `time` (seconds since 1970 — or
/// milliseconds, microseconds or nanoseconds, told apart by magnitude — or an ISO 8601 string),
/// `lat`, `lon` and optionally `accuracy` (metres, horizontal); other keys (`speed`,
/// `course`, `cell`, …) are ignored here. Blank lines are skipped. Streaming, one line at a time.
///
/// ```
/// {"time": "2024-05-01T07:00:00Z", "lat": 37.7749, "lon": -122.4194, "accuracy": 5}
/// ```
public struct FixJSONLinesReader {
  private var lines: ByteLineReader
  private var scratch: [UInt8] = []
  /// The device named by the line last read (its `device` key), set before the line's other keys
  /// are checked, so that an error in them can be laid at the right device's door.
  public private(set) var device: String?
  /// How many times the device changed from one line to the next (the first line naming one
  /// counts).
  public private(set) var deviceChanges = 0
  /// Whether a line has named a device so far.
  public var namesDevices: Bool { deviceChanges > 0 }
  private var fixesWithoutDevice = 0

  /// Whether ISO 8601 times without a zone are read as UTC (otherwise they are errors).
  private let assumeUTC: Bool

  /// Opens `path` (`-` for standard input). An ISO 8601 time without a zone is an error unless
  /// `assumeUTC`, which reads it as UTC.
  public init(path: String, assumeUTC: Bool = false) throws(TrackIOError) {
    self.assumeUTC = assumeUTC
    lines = try ByteLineReader(path: path)
  }

  /// The path as given (or `<stdin>`).
  public var path: String { lines.path }

  /// The 1-based line of the fix last returned.
  public var lineNumber: Int { lines.lineNumber }

  /// Bytes read from the file so far (it is read ahead in chunks), for progress reports.
  public var bytesRead: Int { lines.bytesRead }

  /// What reading a line changes, taken in place by the line reader's closure.
  struct LineState {
    var scratch: [UInt8] = []
    var device: String?
    /// The line's `time` when it is a number, and the offset of its value in the line.
    var epoch: (value: Double, offset: Int)?
    /// The offset from UTC its `time` names, when it is a string with a zone.
    var zone: Int?
  }

  /// The offset from UTC (seconds, east positive) of the first `time` read that names its zone
  /// (`+09:00`, or `Z` for 0); nil before one, and for a file of epoch numbers.
  public private(set) var utcOffset: Int?

  /// The unit of the first numeric time (``ByteNumbers/epochUnit(_:)``), -1 before one; whether a
  /// later one was in another unit; located warnings for ``takeWarnings()``.
  private var timeUnit: Int8 = -1
  private var mixedUnits = false
  private var warnings: [TrackIOError] = []

  /// The located warnings since the last call: numeric times in a unit other than seconds, or in
  /// two units in one file.
  public mutating func takeWarnings() -> [TrackIOError] {
    defer { warnings = [] }
    return warnings
  }

  /// Says once when numeric times are not seconds, and once when they change unit.
  private mutating func noteEpoch(_ epoch: (value: Double, offset: Int), line: Int) {
    let unit = ByteNumbers.epochUnit(epoch.value)
    guard unit != timeUnit else { return }
    var first: Int8?
    if timeUnit < 0 {
      timeUnit = unit
      guard unit != 0 else { return }
    } else {
      guard !mixedUnits else { return }
      mixedUnits = true
      first = timeUnit
    }
    let text = epoch.value == epoch.value.rounded() && epoch.value.magnitude < 1e18 ? String(Int64(epoch.value)) : "\(epoch.value)"
    if let message = ByteNumbers.epochUnitWarning(text, column: "\"time\"", unit: unit, mixedWith: first) {
      warnings.append(TrackIOError(path: lines.path, line: line, column: epoch.offset + 1, message: message))
    }
  }

  /// The next fix, or nil at the end of the file.
  /// - Throws: ``TrackIOError`` for a malformed line, with its line and column.
  public mutating func next() throws(TrackIOError) -> LocationFix? {
    var state = LineState()
    swap(&state.scratch, &scratch)
    defer { swap(&state.scratch, &scratch) }
    while true {
      let lineNo = lines.lineNumber + 1
      let (named, unnamed, assumeUTC) = (deviceChanges > 0, fixesWithoutDevice, self.assumeUTC)
      state.device = nil
      state.epoch = nil
      state.zone = nil
      let parsed: LocationFix??
      do {
        // Errors are made without the path (a String the closure would retain for every line)
        // and given it below.
        parsed = try lines.nextLine(with: &state) { line, state throws(TrackIOError) -> LocationFix? in
          guard line.contains(where: { !MarkupScanner.isSpace($0) }) else { return nil }
          if let (fix, device, epoch, zone) = Self.plainLine(line, assumeUTC: assumeUTC, named: named, unnamed: unnamed) {
            state.device = device
            state.epoch = epoch
            state.zone = zone
            return fix
          }
          return try Self.generalLine(line, number: lineNo, assumeUTC: assumeUTC, named: named, unnamed: unnamed, state: &state)
        }
      } catch {
        noteDevice(state.device)
        throw TrackIOError(path: lines.path, line: error.line, column: error.column, message: error.message)
      }
      noteDevice(state.device)
      guard let parsed else { return nil }
      if let epoch = state.epoch, timeUnit != 0 || epoch.value.magnitude >= 1e11 { noteEpoch(epoch, line: lineNo) }
      if utcOffset == nil, let zone = state.zone { utcOffset = zone }
      if let fix = parsed {
        if state.device == nil { fixesWithoutDevice += 1 }
        return fix
      }
    }
  }

  /// Records the device a line named, when it differs from the last line's.
  private mutating func noteDevice(_ lineDevice: String?) {
    if let lineDevice, lineDevice != device {
      device = lineDevice
      deviceChanges += 1
    }
  }

  /// The fix of a line written plainly — one object of unescaped keys, `time`, `lat`, `lon`,
  /// `accuracy` and `device` of the usual types, other members skipped (validated) — read with the
  /// scanner alone, without a tree; nil for anything else (escapes, a problem to report), which
  /// ``generalLine(_:number:assumeUTC:named:unnamed:state:)`` reads and reports. The two give the
  /// same fix (tests compare them on every fixture and on generated lines).
  static func plainLine(
    _ line: UnsafeBufferPointer<UInt8>, assumeUTC: Bool, named: Bool, unnamed: Int
  ) -> (fix: LocationFix, device: String?, epoch: (value: Double, offset: Int)?, zone: Int?)? {
    var s = JSONScanner(line, endName: "the end of the line")
    s.materialize = false
    // The first occurrence of each key (lookups take the first), and its value.
    var time: (range: Range<Int>, isNumber: Bool, value: Double)?
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var accuracySeen = false
    var device: Range<Int>?
    do throws(JSONError) {
      s.skipSpace()
      guard s.peek() == UInt8(ascii: "{") else { return nil }
      s.i += 1
      s.skipSpace()
      if s.peek() == UInt8(ascii: "}") {
        return nil
      }
      while true {
        let (name, escaped) = try s.scanString("$")
        guard !escaped else { return nil }
        try s.expect(UInt8(ascii: ":"), "$", "':'")
        s.skipSpace()
        guard let first = s.peek() else { return nil }
        let isNumber = first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
        let isString = first == UInt8(ascii: "\"")
        func numberValue() throws(JSONError) -> Double { try s.number("$", converting: ByteNumbers.double).value }
        if s.equals(name, "time") && time == nil {
          if isNumber {
            let start = s.i
            time = (start..<start, true, try numberValue())
          } else if isString {
            let (range, escapedValue) = try s.scanString("$")
            guard !escapedValue else { return nil }
            time = (range, false, 0)
          } else {
            return nil
          }
        } else if s.equals(name, "lat") && latitude == nil {
          guard isNumber else { return nil }
          latitude = try numberValue()
        } else if s.equals(name, "lon") && longitude == nil {
          guard isNumber else { return nil }
          longitude = try numberValue()
        } else if s.equals(name, "accuracy") && !accuracySeen {
          accuracySeen = true
          if isNumber {
            accuracy = try numberValue()
            guard let a = accuracy, a > 0 else { return nil }
          } else {
            let value = try s.skipValue("$")
            guard s.equals(value, "null") else { return nil }
          }
        } else if s.equals(name, "device") && device == nil {
          if isString {
            let (range, escapedValue) = try s.scanString("$")
            guard !escapedValue, !range.isEmpty else { return nil }
            device = range
          } else if isNumber {
            let start = s.i
            _ = try numberValue()
            device = start..<s.i
          } else {
            return nil
          }
        } else {
          _ = try s.skipValue("$")
        }
        s.skipSpace()
        guard let next = s.peek() else { return nil }
        s.i += 1
        if next == UInt8(ascii: "}") { break }
        guard next == UInt8(ascii: ",") else { return nil }
        s.skipSpace()
      }
      s.skipSpace()
      guard s.atEnd else { return nil }
    } catch {
      return nil
    }
    // The rules about devices across lines: any breach is reported by the general path.
    if device != nil ? unnamed > 0 : named { return nil }
    guard let time, let latitude, let longitude else { return nil }
    let seconds: Double
    var zone: Int?
    if time.isNumber {
      seconds = ByteNumbers.epochSeconds(time.value)
      // Out of range: the general path says so.
      guard ByteNumbers.epochSecondsRange.contains(seconds) else { return nil }
    } else {
      let text = UnsafeBufferPointer(rebasing: line[time.range])
      let zoned = ByteNumbers.hasZone(text)
      guard let (t, offset) = ByteNumbers.timestampWithOffset(text), assumeUTC || zoned else { return nil }
      seconds = t
      if zoned { zone = offset }
    }
    guard let coordinate = try? Coordinate.reading(latitude: latitude, longitude: longitude) else { return nil }
    let name = device.map { String(decoding: UnsafeBufferPointer(rebasing: line[$0]), as: UTF8.self) }
    return (
      LocationFix(time: seconds, coordinate: coordinate, horizontalAccuracy: accuracy), name,
      time.isNumber ? (time.value, time.range.lowerBound) : nil, zone
    )
  }

  /// Any line, through the JSON tree: the fix, or the error with its column (and the device the
  /// line named, in `state`, even when the line is in error).
  static func generalLine(
    _ line: UnsafeBufferPointer<UInt8>, number lineNo: Int, assumeUTC: Bool, named: Bool, unnamed: Int, state: inout LineState
  ) throws(TrackIOError) -> LocationFix {
    state.scratch.removeAll(keepingCapacity: true)
    state.scratch.append(contentsOf: line)
    let scratch = state.scratch
    var parser = JSONParser(path: "", bytes: scratch)
    func fail(_ message: String, _ offset: Int) -> TrackIOError {
      TrackIOError(path: "", line: lineNo, column: offset + 1, message: message)
    }
    let object: JSONNode
    do throws(TrackIOError) { object = try parser.parseDocument() } catch {
      throw TrackIOError(path: "", line: lineNo, column: error.column, message: error.message)
    }
    guard case .object = object.value else { throw fail("\(object.kind): expected an object with time, lat and lon", object.offset) }
    if let d = object["device"] {
      switch d.value {
      case .string(let s) where !s.isEmpty: state.device = s
      case .number: state.device = String(decoding: scratch[d.offset..<d.end], as: UTF8.self)
      default: throw fail("\"device\" is \(d.kind): expected the name of the device the fix is from (a string or number)", d.offset)
      }
      if unnamed > 0 { throw fail("\"device\" named here, but \(unnamed) earlier fixes name none: every line or none names its device", d.offset) }
    } else if named {
      throw fail("no \"device\": earlier lines name their device, so every line must", 0)
    }
    func number(_ key: String, _ expected: String) throws(TrackIOError) -> Double {
      guard let n = object[key] else { throw fail("no \"\(key)\": expected \(expected)", 0) }
      guard case .number(let v) = n.value else { throw fail("\"\(key)\" is \(n.kind): expected \(expected)", n.offset) }
      return v
    }
    guard let timeNode = object["time"] else { throw fail("no \"time\": expected seconds since 1970 or an ISO 8601 string", 0) }
    let time: Double
    switch timeNode.time(assumeUTC: assumeUTC, what: "\"time\"") {
    case .success(let t): time = t
    case .failure(let problem): throw fail(problem.message, timeNode.offset)
    }
    if case .number(let v) = timeNode.value { state.epoch = (v, timeNode.offset) }
    if case .string(var text) = timeNode.value {
      state.zone = text.withUTF8 { b in ByteNumbers.hasZone(b) ? ByteNumbers.timestampWithOffset(b)?.offset : nil }
    }
    let latitude = try number("lat", "degrees in -90...90")
    let longitude = try number("lon", "degrees")
    let coordinate: Coordinate
    do throws(CoordinateError) { coordinate = try Coordinate.reading(latitude: latitude, longitude: longitude) } catch {
      throw fail(error.description, object[error.component == .latitude ? "lat" : "lon"]?.offset ?? 0)
    }
    var accuracy: Double?
    if let a = object["accuracy"], !a.value.isNull {
      guard case .number(let v) = a.value, v > 0 else { throw fail("\"accuracy\" is not a positive number of metres", a.offset) }
      accuracy = v
    }
    return LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: accuracy)
  }
}
