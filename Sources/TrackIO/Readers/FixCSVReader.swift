public import Geodesy

/// Reads location fixes from CSV, streaming, in bounded memory.
///
/// The first line is a header naming the columns (case-insensitive, any order):
/// `time` (seconds since the Unix epoch, or ISO 8601 such as `2024-05-01T07:00:00.5Z`),
/// `lat`/`latitude`, `lon`/`lng`/`longitude` (degrees) are required; `accuracy`
/// (`horizontal_accuracy`, metres, positive) is optional. Other columns are ignored. Empty
/// lines and lines starting with `#` are skipped. Every bad value is a ``TrackIOError`` naming
/// the file, line and column.
///
/// ```swift
/// var reader = try FixCSVReader(path: "walk.csv")
/// while let fix = try reader.next() { … }
/// ```
public struct FixCSVReader {
  private var lines: ByteLineReader
  private var fields = CSVFields()
  private var timeColumn = 0
  private var latitudeColumn = 0
  private var longitudeColumn = 0
  private var accuracyColumn: Int?
  private var width = 0

  /// Opens the file (`-` for standard input) and reads its header.
  public init(path: String) throws(TrackIOError) {
    lines = try ByteLineReader(path: path)
    let path = lines.path
    var header: CSVHeader?
    var fields = CSVFields()
    while header == nil {
      let found: CSVHeader?? = try lines.nextLine { line throws(TrackIOError) -> CSVHeader? in
        if line.isEmpty || line.first == UInt8(ascii: "#") { return nil }
        fields.split(line)
        return CSVHeader(fields, line: line)
      }
      guard let found else { throw TrackIOError(path: path, line: 1, column: 1, message: "empty file: expected a header line such as time,lat,lon") }
      header = found
    }
    guard let header else { throw TrackIOError(path: path, line: 1, column: 1, message: "no header") }
    let line = lines.lineNumber
    func require(_ aliases: [String]) throws(TrackIOError) -> Int {
      guard let c = header.column(aliases) else {
        throw TrackIOError(
          path: path, line: line, column: 1,
          message: "header has no \(aliases[0]) column (found \(header.names.joined(separator: ","))): expected time,lat,lon[,accuracy]")
      }
      return c
    }
    timeColumn = try require(["time", "timestamp"])
    latitudeColumn = try require(["lat", "latitude"])
    longitudeColumn = try require(["lon", "lng", "long", "longitude"])
    accuracyColumn = header.column(["accuracy", "horizontal_accuracy", "horizontalaccuracy"])
    width = header.names.count
  }

  /// The path as given (or `<stdin>`).
  public var path: String { lines.path }

  /// The 1-based line of the fix last returned by ``next()``.
  public var lineNumber: Int { lines.lineNumber }

  /// Bytes read from the file so far (it is read ahead in chunks), for progress reports.
  public var bytesRead: Int { lines.bytesRead }

  /// The next fix, or nil at the end of the file.
  /// - Throws: ``TrackIOError`` for a malformed line, with its line and column.
  public mutating func next() throws(TrackIOError) -> LocationFix? {
    while true {
      let path = lines.path
      let number = lines.lineNumber + 1
      let (t, la, lo, ac, w) = (timeColumn, latitudeColumn, longitudeColumn, accuracyColumn, width)
      var fields = self.fields
      let parsed: LocationFix?? = try lines.nextLine { line throws(TrackIOError) -> LocationFix? in
        if line.isEmpty || line.first == UInt8(ascii: "#") { return nil }
        fields.split(line)
        if let open = fields.unterminatedQuote {
          throw TrackIOError(path: path, line: number, column: open + 1, message: "quoted field is not closed")
        }
        guard fields.count == w else {
          throw TrackIOError(path: path, line: number, column: 1, message: "\(fields.count) fields: expected \(w), as in the header")
        }
        func fail(_ k: Int, _ message: String) -> TrackIOError {
          TrackIOError(path: path, line: number, column: fields.column(k), message: message)
        }
        let timeField = fields.field(t, in: line)
        guard let time = ByteNumbers.double(timeField) ?? ByteNumbers.timestamp(timeField) else {
          throw fail(t, "time \"\(fields.text(t, in: line))\" is neither seconds since 1970 nor an ISO 8601 date-time")
        }
        guard let latitude = ByteNumbers.double(fields.field(la, in: line)) else {
          throw fail(la, "latitude \"\(fields.text(la, in: line))\" is not a number: expected degrees in -90...90")
        }
        guard let longitude = ByteNumbers.double(fields.field(lo, in: line)) else {
          throw fail(lo, "longitude \"\(fields.text(lo, in: line))\" is not a number: expected degrees")
        }
        let coordinate: Coordinate
        do throws(CoordinateError) { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch {
          throw fail(error.component == .latitude ? la : lo, error.description)
        }
        var accuracy: Double? = nil
        if let ac, !fields.field(ac, in: line).isEmpty {
          guard let a = ByteNumbers.double(fields.field(ac, in: line)), a > 0 else {
            throw fail(ac, "accuracy \"\(fields.text(ac, in: line))\" is not a positive number of metres")
          }
          accuracy = a
        }
        return LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: accuracy)
      }
      self.fields = fields
      guard let parsed else { return nil }
      if let fix = parsed { return fix }
    }
  }

  /// Reads every remaining fix.
  public mutating func readAll() throws(TrackIOError) -> [LocationFix] {
    var fixes: [LocationFix] = []
    while let fix = try next() { fixes.append(fix) }
    return fixes
  }
}
