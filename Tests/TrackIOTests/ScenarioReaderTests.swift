import BackgroundRuntime
import Testing
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
  }

  @Test(arguments: [
    (#"{"handlers": {"location": {"work": -3}}}"#, "1:36: error: $.handlers.location.work: -3.0 is out of range: expected seconds in 0...86400"),
    (#"{"handlers": {"locaton": {}}}"#, "1:26: error: $.handlers.locaton: unknown key: expected one of location, fetch, remoteNotification"),
    (#"{"profil": "ios"}"#, "1:12: error: $.profil: unknown key: expected one of profile, seed, handlers, sessions, forceQuits"),
    (#"{"profile": "android"}"#, "1:13: error: $.profile: expected \"ios\", \"ios7\" or \"ios6\""),
    (#"{"handlers": {"fetch": {"work": 1, "endsTaskOnExpiration": true}}}"#,
     "1:60: error: $.handlers.fetch.endsTaskOnExpiration: given without a backgroundTask: expected a backgroundTask for it to end"),
    (#"{"handlers": {"fetch": {"variation": 2}}}"#, "1:38: error: $.handlers.fetch.variation: 2.0 is out of range: expected a fraction in 0...1"),
    (#"{"sessions": [{"at": "2024-05-01T08:00:00Z", "duration": 600}, {"at": "2024-05-01T08:05:00Z", "duration": 1}]}"#,
     "1:64: error: $.sessions[1]: starts before session 0 ends: expected sessions in time order, not overlapping"),
    (#"{"forceQuits": ["noon"]}"#, "1:17: error: $.forceQuits[0]: \"noon\" is not an ISO 8601 time such as 2024-05-01T08:00:00Z"),
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
}
