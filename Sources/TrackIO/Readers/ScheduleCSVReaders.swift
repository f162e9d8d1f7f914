public import BackgroundRuntime

/// Reads the user's launches for a fetch simulation: CSV with a header naming a `time` column
/// (or `launch`, `start`) and optionally `duration` (seconds on screen, default 60). Times are
/// ISO 8601; the offset each is written with (`+02:00`, `Z`) is the device clock's offset then,
/// so launch habits are learned in local time. Launches must be in time order, each after the
/// previous session ended.
public enum UsageCSVReader {
  /// Seconds on screen when the file has no `duration` column.
  public static let defaultDuration = 60.0

  public static func read(path: String) throws(TrackIOError) -> [UserLaunch] {
    var launches: [UserLaunch] = []
    try TimedCSV.rows(path: path, columns: [["time", "launch", "start"]], optional: [["duration"]], header: "time,duration") {
      row throws(TrackIOError) in
      let (time, offset) = try row.time(0, "launch time")
      let duration = try row.optional(1).map { k throws(TrackIOError) in try row.number(k, "duration", 0...86_400, "seconds in 0...86400") }
        ?? defaultDuration
      if let last = launches.last {
        guard time > last.time else {
          throw row.fail(row.column(0), "\(row.text(row.column(0))) is not after the previous launch (line \(row.line - 1)): expected launches in time order")
        }
        guard time >= last.time + last.duration else {
          throw row.fail(row.column(0), "\(row.text(row.column(0))) is before the previous session ends (\(TimestampText.iso8601(last.time + last.duration))): expected sessions that do not overlap")
        }
      }
      launches.append(UserLaunch(time: time, duration: duration, utcOffset: offset))
    }
    return launches
  }
}

/// Reads a content feed: CSV with a header naming a `time` column (or `published`); other
/// columns (a title, a link) are allowed and ignored. Times are ISO 8601, in time order (equal
/// times are fine).
public enum FeedCSVReader {
  public static func read(path: String) throws(TrackIOError) -> ContentFeed {
    var times: [Double] = []
    try TimedCSV.rows(path: path, columns: [["time", "published"]], optional: [], header: "time") { row throws(TrackIOError) in
      let (time, _) = try row.time(0, "publication time")
      if let last = times.last, time < last {
        throw row.fail(row.column(0), "\(row.text(row.column(0))) is before the previous publication (line \(row.line - 1)): expected publications in time order")
      }
      times.append(time)
    }
    return ContentFeed(times)
  }
}

/// Reads device conditions: CSV with `start,end,condition`, where condition is `lowPowerMode`,
/// `backgroundRefreshOff` or `offline` and the interval is `start ..< end` (ISO 8601, end after
/// start). Intervals may come in any order and overlap.
public enum DeviceConditionsCSVReader {
  public static func read(path: String) throws(TrackIOError) -> DeviceConditions {
    var intervals: [DeviceConditions.Interval] = []
    let names = DeviceCondition.allCases.map(\.rawValue)
    try TimedCSV.rows(path: path, columns: [["start"], ["end"], ["condition"]], optional: [], header: "start,end,condition") {
      row throws(TrackIOError) in
      let (start, _) = try row.time(0, "start")
      let (end, _) = try row.time(1, "end")
      guard end > start else {
        throw row.fail(row.column(1), "end \(row.text(row.column(1))) is not after the start: expected an interval start ..< end")
      }
      let name = row.text(row.column(2))
      guard let condition = DeviceCondition(rawValue: name) else {
        throw row.fail(row.column(2), "unknown condition \"\(name)\": expected \(names.joined(separator: ", "))")
      }
      intervals.append(.init(start: start, end: end, condition: condition))
    }
    return DeviceConditions(intervals)
  }
}

/// Small time-keyed CSV files: a header locating the columns, then one row per line, each
/// handed over with helpers that locate errors at `path:line:column`.
enum TimedCSV {
  struct Row {
    let path: String
    let line: Int
    let bytes: UnsafeBufferPointer<UInt8>
    let fields: CSVFields
    /// The field index of each required column, then of each optional one (nil: absent).
    let columns: [Int?]

    func column(_ k: Int) -> Int { columns[k]! }
    func optional(_ k: Int) -> Int? { columns[k].flatMap { $0 < fields.count ? $0 : nil } }
    func text(_ field: Int) -> String { fields.text(field, in: bytes) }

    func fail(_ field: Int, _ message: String) -> TrackIOError {
      TrackIOError(path: path, line: line, column: fields.column(field), message: message)
    }

    /// Required column `k` as an ISO 8601 time, with its offset.
    func time(_ k: Int, _ what: String) throws(TrackIOError) -> (Double, Int) {
      let f = column(k)
      guard let t = ByteNumbers.timestampWithOffset(fields.field(f, in: bytes)) else {
        throw fail(f, "\(what) \"\(text(f))\" is not an ISO 8601 time such as 2024-05-06T07:45:00+02:00")
      }
      return t
    }

    func number(_ field: Int, _ what: String, _ range: ClosedRange<Double>, _ expected: String) throws(TrackIOError) -> Double {
      guard let v = ByteNumbers.double(fields.field(field, in: bytes)), v.isFinite, range.contains(v) else {
        throw fail(field, "\(what) \"\(text(field))\" is not valid: expected \(expected)")
      }
      return v
    }
  }

  /// Calls `body` for each data row of `path`. `columns` lists the aliases of each required
  /// column, `optional` those of optional ones; `header` is the header shown in errors.
  static func rows(
    path: String, columns: [[String]], optional: [[String]], header: String, _ body: (Row) throws(TrackIOError) -> Void
  ) throws(TrackIOError) {
    var lines = try ByteLineReader(path: path)
    let shownPath = lines.path
    var fields = CSVFields()
    var located: [Int?]?
    var width = 0
    while true {
      let number = lines.lineNumber + 1
      let more: Bool? = try lines.nextLine { bytes throws(TrackIOError) -> Bool in
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return true }
        if bytes.first == UInt8(ascii: "#") { return true }
        fields.split(bytes)
        if let open = fields.unterminatedQuote {
          throw TrackIOError(path: shownPath, line: number, column: open + 1, message: "quoted field is not closed")
        }
        guard let columnsFound = located else {
          let names = CSVHeader(fields, line: bytes)
          var found: [Int?] = []
          for aliases in columns {
            guard let k = names.column(aliases) else {
              throw TrackIOError(
                path: shownPath, line: number, column: 1,
                message: "header has no \(aliases[0]) column: expected a header such as \(header)")
            }
            found.append(k)
          }
          for aliases in optional { found.append(names.column(aliases)) }
          located = found
          width = fields.count
          return true
        }
        guard fields.count == width else {
          throw TrackIOError(path: shownPath, line: number, column: 1, message: "\(fields.count) fields: expected \(width), as in the header")
        }
        try body(Row(path: shownPath, line: number, bytes: bytes, fields: fields, columns: columnsFound))
        return true
      }
      guard more != nil else { break }
    }
    if located == nil {
      throw TrackIOError(path: shownPath, line: 1, column: 1, message: "empty file: expected a header \(header)")
    }
  }
}
