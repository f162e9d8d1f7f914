import Foundation
import Testing
import _GeoWakeTestSupport

#if canImport(FoundationXML)
  import FoundationXML
#endif

@Suite("geowake push")
struct PushCommandTests {
  /// The bundled schedule under the documented silent-push budget (the measured one is
  /// `PushSimulationTests.measuredSilentBudget`).
  static let bundled = [
    "push", "--schedule", "Fixtures/push/news-app.jsonl", "--connectivity", "Fixtures/push/news-app-connectivity.csv", "--profile",
    "ios-documented",
  ]

  static func objects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
  }

  /// The requests' steps, by request (in the order the stream has them).
  static func steps(_ lines: [[String: Any]]) -> [Int: [[String: Any]]] {
    var steps: [Int: [[String: Any]]] = [:]
    for line in lines { if let k = line["request"] as? Int { steps[k, default: []].append(line) } }
    return steps
  }

  /// The step of a request that settles its fate (delivered, dropped, …).
  static func fate(_ steps: [[String: Any]]) -> [String: Any]? {
    steps.first { ["pushDelivered", "pushDelayed", "pushPiggybacked", "pushDropped", "pushCoalesced", "pushHeld", "pushRejected"].contains($0["event"] as? String ?? "") }
  }

  /// JSON Lines: every step of every request and of the app, in time order; each request answered
  /// once and settled once, with the reasons of the table.
  @Test func theStreamHasEveryStepInTimeOrder() throws {
    let result = try CommandRunner.run(Self.bundled + ["--format", "jsonl"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try Self.objects(result.stdout)
    let times = lines.map { $0["at"] as? String ?? "" }
    #expect(times == times.sorted() && !times.contains(""))
    let steps = Self.steps(lines)
    #expect(steps.count == 21)
    for (k, s) in steps {
      #expect(s.count { ["pushAccepted", "pushRejected"].contains($0["event"] as? String ?? "") } == 1, "request \(k)")
      #expect(s.count { ["pushDelivered", "pushDelayed", "pushPiggybacked", "pushDropped", "pushCoalesced", "pushHeld"].contains($0["event"] as? String ?? "") } <= 1)
      for line in s { for key in ["apnsId", "status", "apnsReason", "sentAt", "reason", "app", "carrier"] { #expect(line[key] != nil, "\(key)") } }
    }
    let fates = (0..<21).map { Self.fate(steps[$0] ?? []) }
    #expect(fates.count { $0?["event"] as? String == "pushRejected" } == 3)
    #expect(fates[13]?["apnsReason"] as? String == "BadPriority" && fates[13]?["status"] as? Int == 400)
    #expect(fates[14]?["apnsReason"] as? String == "InvalidPayload")
    #expect((fates[14]?["reason"] as? String)?.contains("byte 28, $.aps.content-available") == true)
    #expect(fates[11]?["event"] as? String == "pushPiggybacked" && fates[11]?["carrier"] as? String == fates[12]?["apnsId"] as? String)
    #expect(fates[16...18].map { $0?["event"] as? String } == ["pushCoalesced", "pushCoalesced", "pushDelayed"])
    #expect(fates[19]?["event"] as? String == "pushDropped")
    #expect(steps[20]?.last?["event"] as? String == "pushHandled" && steps[20]?.last?["app"] as? String == "completed")
    #expect(lines.contains { $0["event"] as? String == "wake" && $0["launchReason"] as? String == "remoteNotification" })
    // CSV: the same entries, one row each.
    let csv = try CommandRunner.run(Self.bundled + ["--format", "csv"])
    #expect(csv.status == 0 && csv.stdout.split(separator: "\n").count == lines.count + 1)
  }

  /// The measured budget by default: the twelve silent pushes five minutes apart wake the app
  /// three times, the newest held one leaves at the 09:00 keep-alive; the report names the budget.
  @Test func measuredBudgetByDefault() throws {
    let table = try CommandRunner.run(Array(Self.bundled.dropLast(2)))
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("outcomes: 5 delivered, 2 delayed, 0 piggybacked, 0 held, 9 dropped, 2 coalesced"))
    #expect(table.stdout.contains("silent-push budget (profile ios): at most 3 in any hour, none within 300 s of the previous"))
    #expect(table.stdout.contains("2024-05-01T08:55:00Z  00000000-0000-4000-8000-00000000000C  200                 delayed      2024-05-01T09:00:00Z  held past the silent-push budget, released at a keep-alive"))
    let documented = try CommandRunner.run(Self.bundled)
    #expect(documented.stdout.contains("silent-push budget (profile ios-documented): 2 back to back, then one every 30 min"))
    let bad = try CommandRunner.run(Array(Self.bundled.dropLast()) + ["windows"])
    #expect(bad.status == 64 && bad.stderr.contains("'windows'") && bad.stderr.contains("android-documented"), "\(bad.stderr)")
    // Android: FCM, without APNs' silent budget.
    let android = try CommandRunner.run(Array(Self.bundled.dropLast()) + ["Android"])
    #expect(android.status == 0, "\(android.stderr)")
    #expect(android.stdout.contains("delivery (profile fcm): FCM") && !android.stdout.contains("silent-push budget"))
  }

  @Test func tableAndHTML() throws {
    let table = try CommandRunner.run(Self.bundled)
    #expect(table.status == 0)
    #expect(table.stdout.contains("21 requests, 18 accepted, 3 rejected (400 BadCollapseId: 1, 400 BadPriority: 1, 400 InvalidPayload: 1)"))
    #expect(table.stdout.contains("outcomes: 5 delivered, 1 delayed, 1 piggybacked, 0 held, 9 dropped, 2 coalesced"))
    let html = try CommandRunner.run(Self.bundled + ["--format", "html"])
    #expect(html.status == 0)
    let parser = XMLParser(data: Data(html.stdout.utf8))
    #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
    #expect(html.stdout.components(separatedBy: "<tr><td>").count - 1 == 21)
  }

  @Test func withoutTheBackgroundModeNothingWakes() throws {
    let folder = try TemporaryFolder()
    let app = try folder.file("app.json", containing: #"{"backgroundModes": ["fetch"]}"#)
    let lines = try Self.objects(try CommandRunner.run(Self.bundled + ["--app", app, "--format", "jsonl"]).stdout)
    #expect(Self.fate(Self.steps(lines)[0] ?? [])?["app"] as? String == "notWoken")
    #expect(!lines.contains { $0["event"] as? String == "wake" })
  }

  @Test(arguments: [
    (#"{"at": "2024-05-01T08:00:00Z", "token": "ab", "headers": {"apns-priority": true}, "payload": {}}"#,
     "s.jsonl:1:76: error: $.headers.apns-priority: found a boolean: expected a string (or a number)"),
    (#"{"at": "8 o'clock", "token": "ab"}"#, "s.jsonl:1:8: error: $.at: \"8 o'clock\" is not an ISO 8601 time such as 2024-05-01T08:00:00Z"),
    (#"{"at": "2024-05-01T08:00:00", "token": "ab"}"#,
     "s.jsonl:1:8: error: $.at: time \"2024-05-01T08:00:00\" has no zone: expected Z or an offset such as +09:00 (--assume-utc reads times without one as UTC)"),
    (#"{"token": "ab"}"#, "s.jsonl:1:1: error: $: no \"at\": expected the time the provider sends the request"),
    (#"{"at": "2024-05-01T08:00:00Z", "token": "ab", "body": {}}"#,
     "s.jsonl:1:55: error: $.body: unknown key: expected at, token, headers, payload, payloadText, method or path"),
    (#"{"at": "2024-05-01T08:00:00Z", "token": "ab", "payload": {"aps": }"#, "s.jsonl:1:66: error:"),
  ])
  func badScheduleLinesAreLocated(_ line: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("s.jsonl", containing: line + "\n")
    let result = try CommandRunner.run(["push", "--schedule", path])
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix(expected.replacingOccurrences(of: "s.jsonl", with: path)), "\(result.stderr)")
  }

  @Test func scheduleTimesWithoutAZoneAreReadAsUTCWhenAsked() throws {
    let folder = try TemporaryFolder()
    let token = String(repeating: "ab", count: 32)
    func line(at time: String) -> String {
      #"{"at": "\#(time)", "token": "\#(token)", "headers": {"apns-topic": "com.x"}, "payload": {"aps": {"alert": "hi"}}}"# + "\n"
    }
    let zoneless = try folder.file("a.jsonl", containing: line(at: "2024-05-01T08:00:00"))
    let zoned = try folder.file("b.jsonl", containing: line(at: "2024-05-01T08:00:00Z"))
    let assumed = try CommandRunner.run(["push", "--schedule", zoneless, "--assume-utc", "--format", "jsonl"])
    let written = try CommandRunner.run(["push", "--schedule", zoned, "--format", "jsonl"])
    #expect(assumed.status == 0 && written.status == 0, "\(assumed.stderr)")
    #expect(assumed.stdout == written.stdout.replacingOccurrences(of: zoned, with: zoneless))
  }

  /// Requests dated centuries apart are read (and end at once, whatever the platform), with a
  /// warning naming their span: no clock of a push provider says 0040 or 4036.
  @Test(arguments: ["0040-11-29T05:00:00Z", "4036-11-29T02:40:00Z"])
  func requestsNoClockCouldDateAreWarnedAbout(_ odd: String) throws {
    let folder = try TemporaryFolder()
    let token = String(repeating: "ab", count: 32)
    let lines = ["2018-11-29T02:40:00Z", odd, "2018-11-29T03:10:00Z"].map {
      #"{"at": "\#($0)", "token": "\#(token)", "headers": {"apns-push-type": "background", "apns-priority": "5", "apns-topic": "com.x"}, "payload": {"aps": {"content-available": 1}}}"#
    }
    let path = try folder.file("odd.jsonl", containing: lines.joined(separator: "\n") + "\n")
    for platform in ["ios", "android"] {
      let result = try CommandRunner.run(["push", "--schedule", path, "--platform", platform])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.contains("warning: the requests of \(path) are dated from "), "\(result.stderr)")
    }
  }

  @Test func payloadTextCarriesBytesThatAreNotJSON() throws {
    let folder = try TemporaryFolder()
    let token = String(repeating: "ab", count: 32)
    let path = try folder.file("s.jsonl", containing: """
      {"at": "2024-05-01T08:00:00Z", "token": "\(token)", "headers": {"apns-topic": "com.x"}, "payloadText": "{\\"aps\\": {\\"alert\\": \\"hi\\"}"}
      {"at": "2024-05-01T08:01:00Z", "token": "\(token)", "headers": {"apns-topic": "com.x", "apns-topic": "com.x"}, "payload": {"aps": {}}}
      {"at": "2024-05-01T08:02:00Z", "token": "\(token)", "headers": {"apns-topic": "com.x"}, "payload": {"aps": {"alert": "\(String(repeating: "z", count: 4_100))"}}}
      {"at": "2024-05-01T08:03:00Z", "token": "zz\(token)", "headers": {"apns-topic": "com.x"}, "payload": {"aps": {}}}

      """)
    let lines = try Self.objects(try CommandRunner.run(["push", "--schedule", path, "--format", "jsonl"]).stdout)
    #expect(lines.map { $0["event"] as? String } == Array(repeating: "pushRejected", count: 4))
    #expect(lines.map { $0["apnsReason"] as? String } == ["InvalidPayload", "DuplicateHeaders", "PayloadTooLarge", "BadDeviceToken"])
    #expect(lines.map { $0["status"] as? Int } == [400, 400, 413, 400])
    #expect((lines[0]["reason"] as? String)?.hasPrefix("APNs refused it: 400 InvalidPayload: byte 23, $: found the end of the payload") == true)
  }
}

@Suite("geowake analyze --pushes")
struct AnalyzePushesTests {
  @Test func locationAndPushEventsShareOneAppTimeline() throws {
    let folder = try TemporaryFolder()
    let app = try folder.file("app.json", containing: #"{"backgroundModes": ["location", "remote-notification"], "handlers": {"location": {"work": 3}, "remoteNotification": {"work": 4}}}"#)
    let args = AnalyzeCommandTests.demo + ["--profile", "ios-documented", "--app", app, "--pushes", "Fixtures/push/tokyo-pushes.jsonl"]
    let table = try CommandRunner.run(args)
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("2018-11-29T05:00:00.000Z  -                         push #4           pushDelivered     reached the device as it was sent: shown to the user, the app not woken"))
    #expect(table.stdout.contains("launched in the background by a remoteNotification event (00000000-0000-4000-8000-000000000001)"))
    #expect(table.stdout.contains("pushes (tokyo-pushes.jsonl): tokyo-pushes.jsonl: 5 requests, 5 accepted, 0 rejected"))
    let lines = try PushCommandTests.objects(try CommandRunner.run(args + ["--format", "jsonl"]).stdout)
    let pushes = lines.filter { $0["event"] as? String == "pushDelivered" }
    #expect(pushes.count == 5)
    #expect(pushes.allSatisfy { $0["apnsId"] != nil && $0["status"] as? Int == 200 && $0["deliveredAt"] as? String == $0["at"] as? String })
    let times = lines.map { $0["at"] as? String ?? "" }
    #expect(times == times.sorted())
    #expect(lines.contains { $0["launchReason"] as? String == "remoteNotification" })
    #expect(lines.contains { $0["launchReason"] as? String == "location" })
    let usage = try CommandRunner.run(AnalyzeCommandTests.demo + ["--pushes", "Fixtures/push/tokyo-pushes.jsonl"])
    #expect(usage.status == 64 && usage.stderr.contains("--pushes needs --app"))
  }
}
