import Foundation
import Testing
import TrackIO
import _GeoWakeTestSupport

/// Numeric CSV times are read by their size (seconds, milliseconds, microseconds, nanoseconds
/// since 1970): a unit other than seconds is said once, with the line, column and value, and so
/// is a column whose numbers change unit, which no log writes on purpose.
@Suite("Epoch units of CSV times")
struct EpochUnitWarningTests {
  static func read(_ rows: [String]) throws -> (fixes: [Double], warnings: [String]) {
    let folder = try TemporaryFolder()
    let path = try folder.file("t.csv", containing: "lat,lon,time\n" + rows.map { "37.77,-122.42,\($0)\n" }.joined())
    var reader = try FixCSVReader(path: path)
    var times: [Double] = []
    var warnings: [String] = []
    while let fix = try reader.next() {
      times.append(fix.time)
      warnings += reader.takeWarnings().map { String($0.warningDescription.dropFirst(path.count + 1)) }
    }
    warnings += reader.takeWarnings().map { String($0.warningDescription.dropFirst(path.count + 1)) }
    return (times, warnings)
  }

  @Test(arguments: [
    (1_700_000_000.0, 1.0, "seconds"), (1_700_000_000_000, 1e3, "milliseconds"),
    (1_700_000_000_000_000, 1e6, "microseconds"), (1_700_000_000_000_000_000, 1e9, "nanoseconds"),
  ])
  func eachUnitIsReadAndAllButSecondsAreSaid(start: Double, scale: Double, unit: String) throws {
    let rows = (0..<5).map { k in String(format: "%.0f", start + Double(k) * scale) }
    let (times, warnings) = try Self.read(rows)
    #expect(times == (0..<5).map { 1_700_000_000 + Double($0) })
    if unit == "seconds" {
      #expect(warnings.isEmpty)
    } else {
      #expect(warnings == ["2:15: warning: time \(rows[0]) is read as epoch \(unit) (2023-11-14T22:13:20Z): numbers of 10¹¹ or more are taken for milliseconds, of 10¹⁴ for microseconds, of 10¹⁷ for nanoseconds"])
    }
  }

  @Test func aColumnThatChangesUnitIsSaidOnce() throws {
    let (times, warnings) = try Self.read(["1700000000", "1700000001", "1700000002000", "1700000003", "1700000004000"])
    #expect(times == [1_700_000_000, 1_700_000_001, 1_700_000_002, 1_700_000_003, 1_700_000_004])
    #expect(warnings.count == 1)
    #expect(warnings.first?.hasPrefix("4:15: warning: time 1700000002000 is read as epoch milliseconds (2023-11-14T22:13:22Z), where the first time in the file was epoch seconds") == true, "\(warnings)")
  }
}

@Suite("Epoch units of JSON Lines times")
struct JSONLinesEpochUnitWarningTests {
  /// The same rule in JSON Lines, on both of its paths (a plain line, and one with an escape that
  /// the general path reads).
  @Test(arguments: [false, true])
  func millisecondsAndMixedUnitsAreSaid(escaped: Bool) throws {
    let folder = try TemporaryFolder()
    let key = escaped ? #""\u0074ime""# : #""time""#
    let text = [1_700_000_000_000, 1_700_000_001_000, 1_700_000_002].map { #"{\#(key): \#($0), "lat": 37.77, "lon": -122.42}"# + "\n" }.joined()
    let path = try folder.file("t.jsonl", containing: text)
    var reader = try TrackFileReader(path: path)
    var times: [Double] = []
    while let fix = try reader.next() { times.append(fix.time) }
    #expect(times == [1_700_000_000, 1_700_000_001, 1_700_000_002])
    let warnings = reader.takeWarnings().map { String($0.warningDescription.dropFirst(path.count + 1)) }
    let column = key.utf8.count + 4
    #expect(warnings.count == 2, "\(warnings)")
    #expect(warnings.first?.hasPrefix("1:\(column): warning: \"time\" 1700000000000 is read as epoch milliseconds (2023-11-14T22:13:20Z)") == true, "\(warnings)")
    #expect(warnings.last?.hasPrefix("3:\(column): warning: \"time\" 1700000002 is read as epoch seconds (2023-11-14T22:13:22Z), where the first") == true, "\(warnings)")
  }
}

@Suite("Times no clock can give")
struct ExtremeTimeTests {
  /// Any Double is written as a time, without a trap: beyond ±10¹⁵ s as the nearest that can be,
  /// NaN as "NaN" (a fuzzed CSV time of 10³⁰⁰ nanoseconds trapped the warning that named it).
  @Test func everyDoubleIsWritten() {
    #expect(TimestampText.iso8601(1e300) == TimestampText.iso8601(1e15))
    #expect(TimestampText.iso8601(-.infinity) == TimestampText.iso8601(-1e15))
    #expect(TimestampText.iso8601(.nan) == "NaN")
    #expect(TimestampText.iso8601(1_700_000_000) == "2023-11-14T22:13:20Z")
  }
}

@Suite("Times out of range")
struct TimeRangeTests {
  /// A number that no unit makes a time between the years 1 and 9999 is an error naming its line
  /// and column, in CSV and in JSON Lines on both of its paths; the edges of the range are read.
  @Test(arguments: ["1.5683e36", "1e300", "-1e30", "3e20", "-7e10"])
  func aNumberNoUnitMakesATimeIsAnError(text: String) throws {
    let folder = try TemporaryFolder()
    let csv = try folder.file("t.csv", containing: "time,lat,lon\n1700000000,37.77,-122.42\n\(text),37.77,-122.42\n")
    var reader = try FixCSVReader(path: csv)
    _ = try reader.next()
    let message = Self.error { _ = try reader.next() }
    #expect(message.hasPrefix("\(csv):3:1: error: time \"\(text)\" is no time between the years 1 and 9999"), "\(message)")
    for key in [#""time""#, #""\u0074ime""#] {
      let lines = try folder.file("t-\(key.count).jsonl", containing: #"{\#(key): 1700000000, "lat": 37.77, "lon": -122.42}"# + "\n" + #"{\#(key): \#(text), "lat": 37.77, "lon": -122.42}"# + "\n")
      var jsonl = try TrackFileReader(path: lines)
      _ = try jsonl.next()
      let message = Self.error { _ = try jsonl.next() }
      #expect(message.hasPrefix("\(lines):2:") && message.contains("is no time between the years 1 and 9999"), "\(message)")
    }
  }

  /// What the error `read` throws says (empty when it throws none).
  static func error(of read: () throws -> Void) -> String {
    do {
      try read()
      return ""
    } catch {
      return (error as? TrackIOError)?.description ?? "\(error)"
    }
  }

  @Test func theYearsOneAndNineThousandNineHundredNinetyNineAreRead() throws {
    let folder = try TemporaryFolder()
    let csv = try folder.file("t.csv", containing: "time,lat,lon\n-62135596800,37.77,-122.42\n253402300799,37.77,-122.42\n")
    var reader = try FixCSVReader(path: csv)
    var times: [Double] = []
    while let fix = try reader.next() { times.append(fix.time) }
    // 253402300799 is read as milliseconds (≥ 10¹¹): 1978, a time; -62135596800 as seconds.
    #expect(times == [-62_135_596_800, 253_402_300.799])
    // Written with four-digit years, as ISO 8601 has them, and read back.
    for (seconds, text) in [(-62_135_596_800.0, "0001-01-01T00:00:00Z"), (-59_011_459_200, "0100-01-01T00:00:00Z"), (253_402_300_799, "9999-12-31T23:59:59Z")] {
      #expect(TimestampText.iso8601(seconds) == text)
      #expect(TimestampText.parse(text) == seconds)
    }
  }
}
