public import BackgroundRuntime
public import TrackIO

/// Reads the user's launches for a fetch simulation: CSV with a header naming a `time` column
/// (or `launch`, `start`) and optionally `duration` (seconds on screen, default 60). Times are
/// ISO 8601; the offset each is written with (`+02:00`, `Z`) is the device clock's offset then,
/// so launch habits are learned in local time. Launches must be in time order, each after the
/// previous session ended. A time without a zone is an error unless `assumeUTC` (then it is
/// read as UTC, and habits are learned in the times as written).
public enum UsageCSVReader {
  /// Seconds on screen when the file has no `duration` column.
  public static let defaultDuration = 60.0

  public static func read(path: String, assumeUTC: Bool = false) throws(TrackIOError) -> [UserLaunch] {
    var launches: [UserLaunch] = []
    try TimedCSV.rows(path: path, columns: [["time", "launch", "start"]], optional: [["duration"]], header: "time,duration") {
      row throws(TrackIOError) in
      let (time, offset) = try row.time(0, "launch time", assumeUTC: assumeUTC)
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
/// times are fine); without a zone only with `assumeUTC`.
public enum FeedCSVReader {
  public static func read(path: String, assumeUTC: Bool = false) throws(TrackIOError) -> ContentFeed {
    var times: [Double] = []
    try TimedCSV.rows(path: path, columns: [["time", "published"]], optional: [], header: "time") { row throws(TrackIOError) in
      let (time, _) = try row.time(0, "publication time", assumeUTC: assumeUTC)
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
/// start; without a zone only with `assumeUTC`). Intervals may come in any order and overlap.
public enum DeviceConditionsCSVReader {
  public static func read(path: String, assumeUTC: Bool = false) throws(TrackIOError) -> DeviceConditions {
    var intervals: [DeviceConditions.Interval] = []
    let names = DeviceCondition.allCases.map(\.rawValue)
    try TimedCSV.rows(path: path, columns: [["start"], ["end"], ["condition"]], optional: [], header: "start,end,condition") {
      row throws(TrackIOError) in
      let (start, _) = try row.time(0, "start", assumeUTC: assumeUTC)
      let (end, _) = try row.time(1, "end", assumeUTC: assumeUTC)
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
