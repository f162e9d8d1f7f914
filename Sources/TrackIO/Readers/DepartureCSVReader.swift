/// One row of a measured-departures file (see ``DepartureCSVReader``).
public struct DepartureRecord: Sendable, Equatable {
  public var id: String
  /// `ios` or `android`.
  public var platform: String
  public var departureTime: Double
  /// `nil`: no exit was observed.
  public var exitTime: Double?
  /// `normal`, `premature` or `none` when the file says; `nil` otherwise.
  public var exitClass: String?
  /// When the fence was created, when the file says.
  public var fenceCreatedTime: Double?
  /// The phone's operating system and version (`Android 6.0.1`), when the file says.
  public var os: String? = nil
  /// The line of the row, for messages.
  public var line: Int
}

/// Reads `departures.csv` of a measured-departures data set: a header naming `id`, `platform`
/// (`ios` or `android`), `departure_time` and `exit_time` (seconds since 1970 or ISO 8601;
/// `exit_time` empty when the phone reported no exit); optionally `exit_class` (`normal`,
/// `premature`, `none`), `fence_created_time`, `os` (the phone's system and version, such as
/// `Android 6.0.1`), and `notes`, whose `exit_class=…` and
/// `fence_created=±Ns` entries are read when those columns are absent. Ids must be unique and
/// name a folder beside the file (letters, digits, `_`, `-`, `.`). Other columns are ignored.
public enum DepartureCSVReader {
  public static let platforms = ["ios", "android"]
  public static let exitClasses = ["normal", "premature", "none"]

  public static func read(path: String) throws(TrackIOError) -> [DepartureRecord] {
    var records: [DepartureRecord] = []
    var seen: [String: Int] = [:]
    try TimedCSV.rows(
      path: path, columns: [["id"], ["platform"], ["departure_time"], ["exit_time"]],
      optional: [["exit_class"], ["fence_created_time"], ["notes"], ["os"]], header: "id,platform,departure_time,exit_time"
    ) { row throws(TrackIOError) in
      let id = row.text(row.column(0))
      let safe = !id.isEmpty && id != "." && id != ".."
        && id.utf8.allSatisfy { b in
          (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E
        }
      guard safe else {
        throw row.fail(row.column(0), "id \"\(id)\" is not a folder name: expected letters, digits, _, - and .")
      }
      if let first = seen[id] { throw row.fail(row.column(0), "id \"\(id)\" repeats line \(first): expected unique ids") }
      seen[id] = row.line
      let platform = row.text(row.column(1)).lowercased()
      guard platforms.contains(platform) else {
        throw row.fail(row.column(1), "platform \"\(row.text(row.column(1)))\" is not known: expected ios or android")
      }
      let departure = try time(row, row.column(2), "departure_time")
      let exitField = row.column(3)
      let exit = row.text(exitField).isEmpty ? nil : try time(row, exitField, "exit_time")
      let notes = row.optional(6).map { row.text($0) } ?? ""
      var exitClass = row.optional(4).map { row.text($0) }.flatMap { $0.isEmpty ? nil : $0 }
      if exitClass == nil, let noted = entry(notes, "exit_class") { exitClass = noted }
      if let exitClass, !exitClasses.contains(exitClass) {
        throw row.fail(row.optional(4) ?? row.optional(6)!, "exit class \"\(exitClass)\" is not known: expected normal, premature or none")
      }
      var created: Double? = nil
      if let k = row.optional(5), !row.text(k).isEmpty {
        created = try time(row, k, "fence_created_time")
      } else if let noted = entry(notes, "fence_created") {
        // "-39s(init)": seconds from the departure.
        let digits = noted.prefix { $0 == "-" || $0 == "+" || $0 == "." || $0.isNumber }
        guard let offset = Double(digits), noted.dropFirst(digits.count).hasPrefix("s") else {
          throw row.fail(row.optional(6)!, "fence_created=\(noted) is not an offset: expected seconds such as -39s")
        }
        created = departure + offset
      }
      records.append(DepartureRecord(
        id: id, platform: platform, departureTime: departure, exitTime: exit, exitClass: exitClass, fenceCreatedTime: created,
        os: row.optional(7).map { row.text($0) }.flatMap { $0.isEmpty ? nil : $0 }, line: row.line))
    }
    return records
  }

  private static func time(_ row: TimedCSV.Row, _ field: Int, _ what: String) throws(TrackIOError) -> Double {
    let bytes = row.fields.field(field, in: row.bytes)
    guard let t = ByteNumbers.double(bytes) ?? ByteNumbers.timestamp(bytes), ByteNumbers.epochSecondsRange.contains(t) else {
      throw row.fail(field, "\(what) \"\(row.text(field))\" is not a time: expected seconds since 1970 or ISO 8601")
    }
    return t
  }

  /// The value of `key=value` among the `; `-separated entries of `notes`.
  private static func entry(_ notes: String, _ key: String) -> String? {
    for part in notes.split(separator: ";") {
      let trimmed = part.drop { $0 == " " }
      if trimmed.hasPrefix(key + "=") { return String(trimmed.dropFirst(key.count + 1)) }
    }
    return nil
  }
}
