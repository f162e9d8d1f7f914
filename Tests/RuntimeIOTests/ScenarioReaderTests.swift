import BackgroundRuntime
import Testing
import RuntimeIO
import TrackIO
import _GeoWakeTestSupport

@Suite("Scenario reader")
struct ScenarioReaderTests {
  @Test func readsEveryField() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("app.json", containing: """
      {"profile": "ios7", "seed": 9,
       "handlers": {"location": {"work": 4, "backgroundTask": 20, "endsTaskOnExpiration": false, "variation": 0.2},
                    "fetch": {"work": 12}},
       "sessions": [{"at": "2024-05-01T08:00:00Z", "duration": 300}, {"at": "2024-05-01T09:00:00Z", "duration": 60}],
       "forceQuits": ["2024-05-01T12:00:00Z"]}
      """)
    let s = try ScenarioReader.read(path: path)
    #expect(s.profile == .ios7 && s.seed == 9)
    #expect(s.behaviours[.location] == HandlerBehaviour(work: 4, backgroundTask: 20, endsTaskOnExpiration: false, variation: 0.2))
    #expect(s.behaviours[.fetch] == HandlerBehaviour(work: 12))
    #expect(s.sessions.map(\.start) == [1_714_550_400, 1_714_554_000] && s.sessions.map(\.duration) == [300, 60])
    #expect(s.forceQuits == [1_714_564_800])
    #expect(s.configuration == AppConfiguration())  // nothing declared: no background modes, fetch never
  }

  @Test func readsTheAppConfiguration() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("app.json", containing: """
      {"backgroundModes": ["fetch", "remote-notification"], "fetchInterval": 1800, "permittedTaskIdentifiers": ["com.example.refresh"],
       "handlers": {"fetch": {"work": 5, "failureRate": 0.25}}}
      """)
    let s = try ScenarioReader.read(path: path)
    #expect(s.configuration == AppConfiguration(
      backgroundModes: [.fetch, .remoteNotification], fetchPolicy: .custom(interval: 1_800), permittedTaskIdentifiers: ["com.example.refresh"]))
    #expect(s.behaviours[.fetch] == HandlerBehaviour(work: 5, failureRate: 0.25))
    let refresh = try folder.file("r.json", containing: #"{"appRefresh": {"identifier": "com.example.refresh", "earliestBeginAfter": 900}}"#)
    #expect(try ScenarioReader.read(path: refresh).configuration.appRefresh == AppRefreshUse(identifier: "com.example.refresh", earliestBeginAfter: 900))
    let minimum = try folder.file("m.json", containing: #"{"fetchInterval": "minimum"}"#)
    #expect(try ScenarioReader.read(path: minimum).configuration.fetchPolicy == .minimum)
  }

  /// A usage pattern: a session at each daily time, every day of the period.
  @Test func usagePatternBecomesSessions() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("app.json", containing: """
      {"sessions": [{"at": "2024-05-01T10:00:00Z", "duration": 60}],
       "usage": {"daily": ["21:00", "07:30"], "duration": 240, "from": "2024-05-01", "days": 3}}
      """)
    let s = try ScenarioReader.read(path: path)
    let day = 1_714_521_600.0  // 2024-05-01T00:00:00Z
    #expect(s.sessions.map(\.start) == [
      day + 27_000, day + 36_000, day + 75_600, day + 86_400 + 27_000, day + 86_400 + 75_600, day + 172_800 + 27_000,
      day + 172_800 + 75_600,
    ])
    #expect(s.sessions.map(\.duration) == [240, 60, 240, 240, 240, 240, 240])
    let clash = try folder.file("clash.json", containing: #"{"sessions": [{"at": "2024-05-01T07:31:00Z", "duration": 60}], "usage": {"daily": ["07:30"], "duration": 240, "from": "2024-05-01"}}"#)
    #expect(throws: TrackIOError.self) { try ScenarioReader.read(path: clash) }
    let bad = try folder.file("bad.json", containing: #"{"usage": {"daily": ["7:30"], "duration": 240, "from": "2024-05-01"}}"#)
    do {
      _ = try ScenarioReader.read(path: bad)
      Issue.record("accepted")
    } catch {
      #expect(error.message == "$.usage.daily[0]: expected a time of day \"HH:MM\" (UTC) such as \"07:30\"")
    }
  }

  @Test(arguments: [
    (#"{"handlers": {"location": {"work": -3}}}"#, "1:36: error: $.handlers.location.work: -3.0 is out of range: expected seconds in 0...86400"),
    (#"{"handlers": {"locaton": {}}}"#, "1:26: error: $.handlers.locaton: unknown key: expected one of location, fetch, remoteNotification"),
    (#"{"profil": "ios"}"#, "1:12: error: $.profil: unknown key: expected one of profile, seed, handlers, sessions, usage, forceQuits, backgroundModes, fetchInterval, permittedTaskIdentifiers, appRefresh"),
    (#"{"appRefresh": {"identifier": "x"}}"#, "1:16: error: $.appRefresh: expected both \"identifier\" and \"earliestBeginAfter\""),
    (#"{"backgroundModes": ["fetch", "audio"]}"#,
     "1:31: error: $.backgroundModes[1]: expected one of \"location\", \"fetch\", \"remote-notification\", \"processing\""),
    (#"{"fetchInterval": -900}"#, "1:19: error: $.fetchInterval: expected \"never\", \"minimum\" or seconds in 0<..31536000"),
    (#"{"fetchInterval": "hourly"}"#, "1:19: error: $.fetchInterval: expected \"never\", \"minimum\" or seconds in 0<..31536000"),
    (#"{"handlers": {"fetch": {"failureRate": 1.5}}}"#, "1:40: error: $.handlers.fetch.failureRate: 1.5 is out of range: expected a fraction in 0...1"),
    (#"{"profile": "windows"}"#, "1:13: error: $.profile: expected \"ios\", \"ios7\", \"ios6\" or \"android\""),
    (#"{"handlers": {"fetch": {"work": 1, "endsTaskOnExpiration": true}}}"#,
     "1:60: error: $.handlers.fetch.endsTaskOnExpiration: given without a backgroundTask: expected a backgroundTask for it to end"),
    (#"{"handlers": {"fetch": {"variation": 2}}}"#, "1:38: error: $.handlers.fetch.variation: 2.0 is out of range: expected a fraction in 0...1"),
    (#"{"sessions": [{"at": "2024-05-01T08:00:00Z", "duration": 600}, {"at": "2024-05-01T08:05:00Z", "duration": 1}]}"#,
     "1:64: error: $.sessions[1]: starts before session 0 ends: expected sessions in time order, not overlapping"),
    (#"{"forceQuits": ["noon"]}"#, "1:17: error: $.forceQuits[0]: \"noon\" is not an ISO 8601 time such as 2024-05-01T08:00:00Z"),
    (#"{"sessions": [{"at": "2024-05-01T08:00:00", "duration": 60}]}"#,
     "1:22: error: $.sessions[0].at: time \"2024-05-01T08:00:00\" has no zone: expected Z or an offset such as +09:00 (--assume-utc reads times without one as UTC)"),
  ])
  func errorsNameTheJSONPath(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("app.json", containing: text)
    do {
      _ = try ScenarioReader.read(path: path)
      Issue.record("accepted")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
  }

  @Test func timesWithoutAZoneAreUTCOnlyWhenAssumed() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("app.json", containing: #"{"forceQuits": ["2024-05-01T12:00:00"]}"#)
    #expect(try ScenarioReader.read(path: path, assumeUTC: true).forceQuits == [1_714_564_800])
  }
}
