public import Geodesy

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

  /// The next fix, or nil at the end of the file.
  /// - Throws: ``TrackIOError`` for a malformed line, with its line and column.
  public mutating func next() throws(TrackIOError) -> LocationFix? {
    while true {
      let path = lines.path
      let lineNo = lines.lineNumber + 1
      var scratch = self.scratch
      var lineDevice: String?
      let (named, unnamed) = (deviceChanges > 0, fixesWithoutDevice)
      defer {
        if let lineDevice, lineDevice != device {
          device = lineDevice
          deviceChanges += 1
        }
      }
      let parsed: LocationFix?? = try lines.nextLine { line throws(TrackIOError) -> LocationFix? in
        guard line.contains(where: { !MarkupScanner.isSpace($0) }) else { return nil }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: line)
        var parser = JSONParser(path: path, bytes: scratch)
        func fail(_ message: String, _ offset: Int) -> TrackIOError {
          TrackIOError(path: path, line: lineNo, column: offset + 1, message: message)
        }
        let object: JSONNode
        do throws(TrackIOError) { object = try parser.parseDocument() } catch {
          throw TrackIOError(path: path, line: lineNo, column: error.column, message: error.message)
        }
        guard case .object = object.value else { throw fail("\(object.kind): expected an object with time, lat and lon", object.offset) }
        if let d = object["device"] {
          switch d.value {
          case .string(let s) where !s.isEmpty: lineDevice = s
          case .number: lineDevice = String(decoding: scratch[d.offset..<d.end], as: UTF8.self)
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
      self.scratch = scratch
      guard let parsed else { return nil }
      if let fix = parsed {
        if lineDevice == nil { fixesWithoutDevice += 1 }
        return fix
      }
    }
  }
}
