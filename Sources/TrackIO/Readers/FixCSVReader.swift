public import CellHandoff
public import Geodesy

/// Reads location fixes from CSV, streaming, in bounded memory.
///
/// The first line is a header naming the columns (case-insensitive, any order):
/// `time` (seconds since the Unix epoch — or milliseconds, microseconds or nanoseconds, told apart
/// by magnitude, see ``ByteNumbers/epochSeconds(_:)`` — or ISO 8601 with its zone such as
/// `2024-05-01T07:00:00.5Z` or `2024-05-01T09:00:00+02:00`),
/// `lat`/`latitude`, `lon`/`lng`/`longitude` (degrees) are required; `accuracy`
/// (`horizontal_accuracy`, metres, positive; empty, `nan` or `NA` where unknown) is optional, and so is `cell`, the serving cell
/// (``CellIdentity`` text such as `LTE 272-1-100-5`, or a bare cell number), and so is `device`
/// (`device_id`), which makes one file hold the tracks of many devices (see ``device``). Other
/// columns are ignored. Empty lines and lines starting with `#` are skipped. Every bad value is a
/// ``TrackIOError`` naming the file, line and column.
///
/// **Drive logs** (G-NetTrack Pro, as in the 5G dataset of Raca et al.) are read too: their
/// `Timestamp` is `yyyy.MM.dd_HH.mm.ss` (local time without a zone; taken as UTC, which it is
/// for the Irish winter recordings in `Fixtures/cells/drive_logs/`), and their serving cell is
/// the pair (`LACHEX` hexadecimal area code, `RAWCELLID`). The cell's radio is the `NetworkMode`
/// of the first row naming it (GPRS/EDGE → GSM, UMTS/HSPA family → UMTS, LTE → LTE, 5G → NR),
/// so that a change of `NetworkMode` alone is not a change of cell; MCC and MNC are unknown (0).
///
/// ```swift
/// var reader = try FixCSVReader(path: "walk.csv")
/// while let fix = try reader.next() { print(fix.time, fix.coordinate) }
/// ```
public struct FixCSVReader {
  private var lines: ByteLineReader
  /// What reading a row changes, kept apart so that the row's closure takes it in place.
  private struct RowState {
    var fields = CSVFields()
    var cell: CellIdentity?
    var radios: [Int64: Radio] = [:]
    var deviceBytes: [UInt8] = []
    /// Whether the device of the row before is unknown (a piece of a file that starts after its
    /// first row): the first row then names its device whatever it is.
    var deviceUnknown = false
    var newDevice: String?
    /// The unit of the first numeric time (``ByteNumbers/epochUnit(_:)``), -1 before one; and a
    /// warning about the units waiting to be made, with the line and column it is about.
    var timeUnit: Int8 = -1
    var mixedUnits = false
    var unitNote: (line: Int, column: Int, text: String, unit: Int8, first: Int8?)?
    /// The first numeric time, and the first whose unit differs from its (for a file read in
    /// pieces, whose warnings are made from every piece's).
    var firstUnit: TimeUnitNote?
    var changedUnit: TimeUnitNote?
    /// The offset from UTC of the first time written with a zone (seconds, east positive).
    var utcOffset: Int?
  }
  private var row = RowState()
  private var timeColumn = 0
  private var latitudeColumn = 0
  private var longitudeColumn = 0
  private var accuracyColumn: Int?
  private var cellColumn: Int?
  private var deviceColumn: Int?
  private var driveLogColumns: (area: Int, cell: Int, mode: Int?)?
  private var width = 0
  /// The serving cell named by the fix last returned, when the file names cells.
  public private(set) var reportedCell: CellIdentity?
  /// Whether the file names serving cells (a `cell` column, or a drive log).
  public var namesCells: Bool { cellColumn != nil || driveLogColumns != nil }
  /// The offset from UTC (seconds, east positive) of the first time read that names its zone
  /// (`+09:00`, or `Z` for 0); nil before one, and for a file of epoch numbers.
  public var utcOffset: Int? { row.utcOffset }
  /// Whether the file is a drive log (its cells' radios come from the rows before).
  package var readsDriveLog: Bool { driveLogColumns != nil }
  /// Whether the file has a `device` column: the tracks of many devices in one file.
  public var namesDevices: Bool { deviceColumn != nil }
  /// The device of the line last read (with a `device` column), set before the line's other
  /// fields are checked, so that an error in them can be laid at the right device's door.
  public private(set) var device: String?
  /// Located warnings about lines that were read but look wrong, for ``takeWarnings()``.
  private var warnings: [TrackIOError] = []

  /// How many times the device changed from one line to the next (the first line counts): a
  /// change of this number is a new device, without comparing strings per fix.
  public private(set) var deviceChanges = 0

  /// Whether ISO 8601 times without a zone are read as UTC (otherwise they are errors).
  private let assumeUTC: Bool

  /// The line of the header, and the file offset of the byte after it.
  package private(set) var headerLine = 0
  package private(set) var headerEnd = 0
  /// Whether the warnings about epoch units are made (off for a piece of a file: the pieces'
  /// ``timeUnits`` make the file's).
  private var warnsAboutUnits = true

  /// A numeric time and its unit (``ByteNumbers/epochUnit(_:)``), where it was read.
  package struct TimeUnitNote: Sendable, Hashable {
    package var line: Int
    package var column: Int
    package var text: String
    package var unit: Int8
  }

  /// The first numeric time read, and the first whose unit differs from it.
  package var timeUnits: (first: TimeUnitNote?, changed: TimeUnitNote?) { (row.firstUnit, row.changedUnit) }

  /// The raw bytes of the device field of the line last read (with a `device` column).
  package var deviceFieldBytes: [UInt8] { row.deviceBytes }

  /// Opens the file (`-` for standard input) and reads its header. An ISO 8601 time without a zone
  /// is an error unless `assumeUTC`, which reads it as UTC.
  public init(path: String, assumeUTC: Bool = false) throws(TrackIOError) {
    self.assumeUTC = assumeUTC
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
    headerLine = line
    headerEnd = lines.offset
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
    if let area = header.column(["lachex"]), let cell = header.column(["rawcellid"]) {
      driveLogColumns = (area, cell, header.column(["networkmode"]))
    } else {
      cellColumn = header.column(["cell", "cellid", "cell_id"])
    }
    deviceColumn = header.column(["device", "device_id", "deviceid"])
    width = header.names.count
  }

  /// Reads the rows in bytes `range` of the regular, uncompressed file `path` (whose header
  /// is read first), their lines numbered from 1 at `range.lowerBound`; no warning about epoch
  /// units is made (see ``timeUnits``).
  package init(path: String, assumeUTC: Bool = false, range: Range<Int>) throws(TrackIOError) {
    try self.init(path: path, assumeUTC: assumeUTC)
    lines = try ByteLineReader(path: path, range: range)
    warnsAboutUnits = false
    row.deviceUnknown = range.lowerBound > headerEnd
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
    // The row state is moved out of self (no copy) for the closure to take in place, and back.
    var row = RowState()
    swap(&row, &self.row)
    defer { swap(&row, &self.row) }
    while true {
      let number = lines.lineNumber + 1
      let (t, la, lo, ac, w) = (timeColumn, latitudeColumn, longitudeColumn, accuracyColumn, width)
      let (cellColumn, driveLog) = (self.cellColumn, driveLogColumns)
      let assumeUTC = self.assumeUTC
      let deviceColumn = self.deviceColumn
      row.cell = nil
      row.newDevice = nil
      // Errors are made without the path (a String the closure would retain for every row) and
      // given it here.
      let parsed: LocationFix??
      do {
        parsed = try lines.nextLine(with: &row) { line, row throws(TrackIOError) -> LocationFix? in
        if line.isEmpty || line.first == UInt8(ascii: "#") { return nil }
        row.fields.split(line)
        if let open = row.fields.unterminatedQuote {
          throw TrackIOError(path: "", line: number, column: open + 1, message: "quoted field is not closed")
        }
        guard row.fields.count == w else {
          throw TrackIOError(path: "", line: number, column: 1, message: "\(row.fields.count) fields: expected \(w), as in the header")
        }
        func fail(_ k: Int, _ message: String) -> TrackIOError {
          TrackIOError(path: "", line: number, column: row.fields.column(k), message: message)
        }
        if let d = deviceColumn {
          let field = row.fields.field(d, in: line)
          if row.deviceUnknown || !field.elementsEqual(row.deviceBytes) {
            row.deviceUnknown = false
            row.deviceBytes.removeAll(keepingCapacity: true)
            row.deviceBytes.append(contentsOf: field)
            row.newDevice = row.fields.text(d, in: line)
          }
          guard !field.isEmpty else { throw fail(d, "device is empty: expected the name of the device the fix is from") }
        }
        let timeField = row.fields.field(t, in: line)
        let time: Double
        if let seconds = ByteNumbers.double(timeField) {
          time = ByteNumbers.epochSeconds(seconds)
          guard ByteNumbers.epochSecondsRange.contains(time) else {
            throw fail(t, ByteNumbers.epochRangeMessage(seconds, text: "\"\(row.fields.text(t, in: line))\"", column: "time"))
          }
          // The unit is told by size: said once when it is not seconds, and once if it changes
          // (a file of seconds pays two comparisons a row).
          if row.timeUnit != 0 || seconds.magnitude >= 1e11, case let unit = ByteNumbers.epochUnit(seconds), unit != row.timeUnit {
            if row.timeUnit < 0 {
              row.timeUnit = unit
              row.firstUnit = TimeUnitNote(line: number, column: row.fields.column(t), text: row.fields.text(t, in: line), unit: unit)
              if unit != 0 { row.unitNote = (number, row.fields.column(t), row.fields.text(t, in: line), unit, nil) }
            } else if !row.mixedUnits {
              row.mixedUnits = true
              row.changedUnit = TimeUnitNote(line: number, column: row.fields.column(t), text: row.fields.text(t, in: line), unit: unit)
              row.unitNote = (number, row.fields.column(t), row.fields.text(t, in: line), unit, row.timeUnit)
            }
          }
        } else if let (seconds, offset) = ByteNumbers.timestampWithOffset(timeField) {
          let zoned = ByteNumbers.hasZone(timeField)
          guard assumeUTC || zoned else { throw fail(t, ByteNumbers.zonelessMessage(row.fields.text(t, in: line))) }
          time = seconds
          if zoned && row.utcOffset == nil { row.utcOffset = offset }
        } else if let seconds = Self.driveLogTime(timeField) {
          time = seconds
        } else {
          throw fail(t, "time \"\(row.fields.text(t, in: line))\" is neither seconds since 1970 nor an ISO 8601 date-time (nor a drive log's yyyy.MM.dd_HH.mm.ss)")
        }
        guard let latitude = ByteNumbers.double(row.fields.field(la, in: line)) else {
          throw fail(la, "latitude \"\(row.fields.text(la, in: line))\" is not a number: expected degrees in -90...90")
        }
        guard let longitude = ByteNumbers.double(row.fields.field(lo, in: line)) else {
          throw fail(lo, "longitude \"\(row.fields.text(lo, in: line))\" is not a number: expected degrees")
        }
        let coordinate: Coordinate
        do throws(CoordinateError) { coordinate = try Coordinate.reading(latitude: latitude, longitude: longitude) } catch {
          throw fail(error.component == .latitude ? la : lo, error.description)
        }
        var accuracy: Double? = nil
        if let ac, !row.fields.field(ac, in: line).isEmpty, !Self.isUnknown(row.fields.field(ac, in: line)) {
          guard let a = ByteNumbers.double(row.fields.field(ac, in: line)), a > 0 else {
            throw fail(ac, "accuracy \"\(row.fields.text(ac, in: line))\" is not a positive number of metres")
          }
          accuracy = a
        }
        if let c = cellColumn, !row.fields.field(c, in: line).isEmpty {
          guard let identity = Self.cellIdentity(row.fields.text(c, in: line)) else {
            throw fail(c, "cell \"\(row.fields.text(c, in: line))\" is not a cell: expected e.g. LTE 272-1-100-5 (radio mcc-net-area-cell) or a cell number")
          }
          row.cell = identity
        }
        if let d = driveLog {
          guard let area = Int(row.fields.text(d.area, in: line), radix: 16), area >= 0 else {
            throw fail(d.area, "LACHEX \"\(row.fields.text(d.area, in: line))\" is not a hexadecimal area code")
          }
          guard let number = ByteNumbers.integer(row.fields.field(d.cell, in: line)), number >= 0 else {
            throw fail(d.cell, "RAWCELLID \"\(row.fields.text(d.cell, in: line))\" is not a cell number")
          }
          let key = Int64(area) << 40 | Int64(number & ((1 << 40) - 1))
          let radio = row.radios[key] ?? Self.radio(networkMode: d.mode.map { row.fields.text($0, in: line) } ?? "")
          row.radios[key] = radio
          row.cell = CellIdentity(radio: radio, mcc: 0, net: 0, area: area, cell: number)
        }
        return LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: accuracy)
      }
      } catch {
        // A bad row still names its device, so that the error is the right device's.
        noteDevice(row.newDevice)
        noteUnits(&row)
        throw TrackIOError(path: lines.path, line: error.line, column: error.column, message: error.message)
      }
      noteDevice(row.newDevice)
      noteUnits(&row)
      guard let parsed else { return nil }
      if let fix = parsed {
        if lines.lineIsUnterminated { try checkLastLine(number) }
        reportedCell = row.cell
        return fix
      }
    }
  }

  /// Makes the warning a row's time asks for (a unit other than seconds, or a second unit).
  private mutating func noteUnits(_ row: inout RowState) {
    guard let note = row.unitNote else { return }
    row.unitNote = nil
    guard warnsAboutUnits, let message = ByteNumbers.epochUnitWarning(note.text, column: "time", unit: note.unit, mixedWith: note.first) else { return }
    warnings.append(TrackIOError(path: lines.path, line: note.line, column: note.column, message: message))
  }

  /// Records the device a row named, when it differs from the last row's.
  private mutating func noteDevice(_ newDevice: String?) {
    guard let newDevice else { return }
    device = newDevice
    deviceChanges += 1
  }

  /// A cut at the end of the file: a last line without a line end whose number ends where no
  /// number can (`139.`) is an error; one with fewer digits after the point than the line before
  /// (when that is a line of fields too), a warning. Made once, at the last line, so that no
  /// line pays for it.
  private mutating func checkLastLine(_ number: Int) throws(TrackIOError) {
    let columns = [timeColumn, latitudeColumn, longitudeColumn] + (accuracyColumn.map { [$0] } ?? [])
    let (la, lo, w, path) = (latitudeColumn, longitudeColumn, width, self.path)
    let warning = try lines.withLastTwoLines { last, before throws(TrackIOError) -> TrackIOError? in
      var fields = CSVFields()
      fields.split(last)
      for k in columns {
        if let end = fields.field(k, in: last).last, Self.isCutNumberEnding(end) {
          throw TrackIOError(
            path: path, line: number, column: fields.column(k),
            message: "\"\(fields.text(k, in: last))\" ends the file without a line end: the file looks cut off in the middle of a number")
        }
      }
      guard let before, before.first != UInt8(ascii: "#") else { return nil }
      var previous = CSVFields()
      previous.split(before)
      guard previous.count == w, previous.unterminatedQuote == nil else { return nil }
      let cutLatitude = Self.decimals(fields.field(la, in: last)) < Self.decimals(previous.field(la, in: before))
      let cutLongitude = Self.decimals(fields.field(lo, in: last)) < Self.decimals(previous.field(lo, in: before))
      guard cutLatitude || cutLongitude else { return nil }
      return TrackIOError(
        path: path, line: number, column: fields.column(cutLatitude ? la : lo),
        message: "the last line has no line end and fewer digits after the point than the line before: the file may be cut off")
    }
    if let warning { warnings.append(warning) }
  }

  /// The located warnings since the last call: lines that were read but look wrong (a last line
  /// that may be cut short, times in epoch milliseconds or a column of times in two units).
  public mutating func takeWarnings() -> [TrackIOError] {
    defer { warnings = [] }
    return warnings
  }

  /// Whether a number cut short can end with `byte` where a whole one cannot: `.`, `e`, `E`, `-`, `+`.
  @inline(__always) static func isCutNumberEnding(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
  }

  /// Digits after the decimal point.
  static func decimals(_ field: UnsafeBufferPointer<UInt8>) -> Int {
    guard let point = field.firstIndex(of: UInt8(ascii: ".")) else { return 0 }
    return field[(point + 1)...].prefix { $0 >= 48 && $0 <= 57 }.count
  }

  /// `yyyy.MM.dd_HH.mm.ss` (G-NetTrack Pro), as UTC.
  static func driveLogTime(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
    guard b.count == 19, b[4] == UInt8(ascii: "."), b[7] == UInt8(ascii: "."), b[10] == UInt8(ascii: "_"),
      b[13] == UInt8(ascii: "."), b[16] == UInt8(ascii: ".")
    else { return nil }
    func number(_ start: Int, _ count: Int) -> Int? {
      var v = 0
      for i in start..<(start + count) {
        let d = Int(b[i]) - 48
        guard d >= 0 && d <= 9 else { return nil }
        v = v * 10 + d
      }
      return v
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
      let minute = number(14, 2), let second = number(17, 2), (1...12).contains(month),
      (1...ByteNumbers.daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 60
    else { return nil }
    return Double(ByteNumbers.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second)
  }

  /// A drive log's NetworkMode as a radio.
  static func radio(networkMode: String) -> Radio {
    switch networkMode.uppercased() {
    case "GPRS", "EDGE", "GSM": return .gsm
    case "LTE", "LTE-A", "4G": return .lte
    case "5G", "NR": return .nr
    case "CDMA", "EVDO": return .cdma
    default: return .umts  // UMTS, HSPA, HSPA+, HSDPA, HSUPA
    }
  }

  /// `LTE 272-1-100-5` or a bare cell number.
  static func cellIdentity(_ text: String) -> CellIdentity? {
    if let number = Int(text), number >= 0 { return CellIdentity(radio: .lte, mcc: 0, net: 0, area: 0, cell: number) }
    let parts = text.split(separator: " ")
    guard parts.count == 2, let radio = Radio(rawValue: parts[0].uppercased()) else { return nil }
    let codes = parts[1].split(separator: "-").compactMap { Int($0) }
    guard codes.count == 4, codes.allSatisfy({ $0 >= 0 }) else { return nil }
    return CellIdentity(radio: radio, mcc: codes[0], net: codes[1], area: codes[2], cell: codes[3])
  }

  /// Reads every remaining fix.
  /// `nan`, `NaN` or `NA`: how data frames write a value that is not known.
  static func isUnknown(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
    // "nan" or "na" in any case, compared as bytes (every row with an accuracy asks).
    guard field.count == 2 || field.count == 3, field[0] | 0x20 == UInt8(ascii: "n"), field[1] | 0x20 == UInt8(ascii: "a") else { return false }
    return field.count == 2 || field[2] | 0x20 == UInt8(ascii: "n")
  }

  public mutating func readAll() throws(TrackIOError) -> [LocationFix] {
    var fixes: [LocationFix] = []
    while let fix = try next() { fixes.append(fix) }
    return fixes
  }
}
