import BackgroundRuntime
import Testing
import RuntimeIO
import TrackIO
import _GeoWakeTestSupport

@Suite("Usage, feed and device-condition CSV")
struct ScheduleCSVReaderTests {
  func error(_ body: () throws(TrackIOError) -> Void) -> String {
    do throws(TrackIOError) {
      try body()
      return "no error"
    } catch { return error.description }
  }

  @Test func usageKeepsEachLaunchsClockOffset() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("u.csv", containing: "Time,Duration\n2024-05-06T07:45:00+02:00,240\n# a comment\n\n2024-05-06T10:00:00Z,30\n")
    let launches = try UsageCSVReader.read(path: path)
    #expect(launches == [
      UserLaunch(time: 1_714_974_300, duration: 240, utcOffset: 7_200), UserLaunch(time: 1_714_989_600, duration: 30, utcOffset: 0),
    ])
    let noDuration = try folder.file("n.csv", containing: "launch\n2024-05-06T07:45:00-05:30\n")
    #expect(try UsageCSVReader.read(path: noDuration) == [UserLaunch(time: 1_715_001_300, duration: 60, utcOffset: -19_800)])
  }

  @Test func usageErrorsSayWhereAndWhat() throws {
    let folder = try TemporaryFolder()
    let cases: [(String, String)] = [
      ("time,duration\n2024-05-06T07:45:00Z,60\n2024-05-06T07:40:00Z,60\n",
       "u.csv:3:1: error: 2024-05-06T07:40:00Z is not after the previous launch (line 2): expected launches in time order"),
      ("time,duration\n2024-05-06T07:45:00Z,600\n2024-05-06T07:50:00Z,60\n",
       "u.csv:3:1: error: 2024-05-06T07:50:00Z is before the previous session ends (2024-05-06T07:55:00Z): expected sessions that do not overlap"),
      ("time,duration\n2024-05-06 7:45,60\n",
       "u.csv:2:1: error: launch time \"2024-05-06 7:45\" is not an ISO 8601 time such as 2024-05-06T07:45:00+02:00"),
      ("time,duration\n2024-05-06T07:45:00Z,-5\n", "u.csv:2:22: error: duration \"-5\" is not valid: expected seconds in 0...86400"),
      ("time,duration\n2024-05-06T07:45:00Z\n", "u.csv:2:1: error: 1 fields: expected 2, as in the header"),
      ("when,duration\n", "u.csv:1:1: error: header has no time column: expected a header such as time,duration"),
      ("", "u.csv:1:1: error: empty file: expected a header time,duration"),
    ]
    for (text, expected) in cases {
      let path = try folder.file("u.csv", containing: text)
      #expect(error { () throws(TrackIOError) in _ = try UsageCSVReader.read(path: path) } == expected.replacingOccurrences(of: "u.csv", with: path))
    }
    #expect(error { () throws(TrackIOError) in _ = try UsageCSVReader.read(path: folder.path("missing.csv")) }.hasSuffix("missing.csv: error: no such file"))
  }

  @Test func feedInOrderWithExtraColumns() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("f.csv", containing: "published,title\n2024-05-06T06:00:00Z,\"Morning, news\"\n2024-05-06T06:00:00Z,Same minute\n2024-05-06T06:30:00Z,x\n")
    #expect(try FeedCSVReader.read(path: path).publications == [1_714_975_200, 1_714_975_200, 1_714_977_000])
    let unsorted = try folder.file("g.csv", containing: "time\n2024-05-06T06:30:00Z\n2024-05-06T06:00:00Z\n")
    #expect(error { () throws(TrackIOError) in _ = try FeedCSVReader.read(path: unsorted) }
      == "\(unsorted):3:1: error: 2024-05-06T06:00:00Z is before the previous publication (line 2): expected publications in time order")
  }

  @Test func deviceConditions() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("c.csv", containing: "start,end,condition\n2024-05-06T22:00:00Z,2024-05-07T06:00:00Z,lowPowerMode\n2024-05-06T12:00:00Z,2024-05-06T13:00:00Z,offline\n")
    let c = try DeviceConditionsCSVReader.read(path: path)
    #expect(c.intervals.map(\.condition) == [.offline, .lowPowerMode])
    #expect(c.blocking(at: 1_715_000_000)?.condition == .offline)
    let bad = try folder.file("d.csv", containing: "start,end,condition\n2024-05-06T22:00:00Z,2024-05-07T06:00:00Z,airplane\n")
    #expect(error { () throws(TrackIOError) in _ = try DeviceConditionsCSVReader.read(path: bad) }
      == "\(bad):2:43: error: unknown condition \"airplane\": expected lowPowerMode, backgroundRefreshOff, offline")
    let backwards = try folder.file("e.csv", containing: "start,end,condition\n2024-05-06T22:00:00Z,2024-05-06T21:00:00Z,offline\n")
    #expect(error { () throws(TrackIOError) in _ = try DeviceConditionsCSVReader.read(path: backwards) }
      == "\(backwards):2:22: error: end 2024-05-06T21:00:00Z is not after the start: expected an interval start ..< end")
  }

  /// A time without a zone does not say when it was, nor (for launches) the clock's local time
  /// that habits are learned in: refused at its line and column, read as UTC only when asked.
  @Test func timesWithoutAZoneAreRefusedUnlessAssumedUTC() throws {
    let folder = try TemporaryFolder()
    let hint = "expected Z or an offset such as +09:00 (--assume-utc reads times without one as UTC)"
    let usage = try folder.file("u.csv", containing: "time,duration\n2024-05-06T07:45:00+02:00,60\n2024-05-07T07:45:00,60\n")
    #expect(error { () throws(TrackIOError) in _ = try UsageCSVReader.read(path: usage) }
      == "\(usage):3:1: error: launch time \"2024-05-07T07:45:00\" has no zone: \(hint)")
    #expect(try UsageCSVReader.read(path: usage, assumeUTC: true).last == UserLaunch(time: 1_715_067_900, duration: 60, utcOffset: 0))
    let feed = try folder.file("f.csv", containing: "published\n2024-05-06 06:00:00\n")
    #expect(error { () throws(TrackIOError) in _ = try FeedCSVReader.read(path: feed) }
      == "\(feed):2:1: error: publication time \"2024-05-06 06:00:00\" has no zone: \(hint)")
    #expect(try FeedCSVReader.read(path: feed, assumeUTC: true).publications == [1_714_975_200])
    let conditions = try folder.file("c.csv", containing: "start,end,condition\n2024-05-06T22:00:00Z,2024-05-07T06:00:00,offline\n")
    #expect(error { () throws(TrackIOError) in _ = try DeviceConditionsCSVReader.read(path: conditions) }
      == "\(conditions):2:22: error: end \"2024-05-07T06:00:00\" has no zone: \(hint)")
    #expect(try DeviceConditionsCSVReader.read(path: conditions, assumeUTC: true).intervals.count == 1)
    // Zones of every form are times as written.
    let zoned = try folder.file("z.csv", containing: "time\n2024-05-06T07:45:00Z\n2024-05-06T11:45:00+0200\n2024-05-06T10:45:00.5-05:30\n")
    #expect(try UsageCSVReader.read(path: zoned).map(\.utcOffset) == [0, 7_200, -19_800])
  }
}
