import Foundation
import Testing
import _GeoWakeTestSupport

#if canImport(FoundationXML)
  import FoundationXML
#endif

@Suite("geowake fetch")
struct FetchCommandTests {
  static func fetch(_ user: String, _ extra: [String] = []) throws -> CommandRunner.Result {
    try CommandRunner.run(["fetch", "--usage", "Fixtures/fetch/\(user)-checker.csv", "--feed", "Fixtures/fetch/news-feed.csv"] + extra)
  }

  /// The issue's bar on the bundled users, as the README prints it.
  @Test(arguments: ["morning", "hourly"])
  func bundledUsersKeepThePromise(_ user: String) throws {
    let result = try Self.fetch(user)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("14 days simulated (2024-05-06T00:00:00+02:00 … 2024-05-20T00:00:00+02:00) after 14 days of history"))
    #expect(result.stdout.components(separatedBy: "  ✓ ").count - 1 == 5, "\(result.stdout.suffix(900))")
    #expect(!result.stdout.contains("✗"))
    for strategy in ["scheduler ", "fixed 15 min ", "fixed 1 h ", "oracle "] { #expect(result.stdout.contains("\n" + strategy)) }
    #expect(result.stdout.contains("fetchRequested     fetch in the launch window "))
  }

  @Test func jsonLinesHaveStepsSummariesAndChecks() throws {
    let result = try Self.fetch("morning", ["--format", "jsonl"])
    #expect(result.status == 0, "\(result.stderr)")
    let objects = try result.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let launches = objects.filter { $0["event"] as? String == "launch" }
    #expect(launches.count == 14)
    #expect(launches.allSatisfy { $0["staleness"] as? Double == 0 })
    #expect(objects.contains { $0["category"] as? String == "app" && $0["event"] as? String == "wake" && $0["launchReason"] as? String == "fetch" })
    let summaries = objects.filter { $0["type"] as? String == "summary" }
    #expect(summaries.map { $0["strategy"] as? String } == ["scheduler", "fixed 15 min", "fixed 1 h", "oracle"])
    #expect((14...28).contains(summaries[0]["fetches"] as? Int ?? 0))
    #expect(objects.filter { $0["type"] as? String == "check" }.count == 5)
    // Every step says why, under the key every command uses.
    let steps = objects.filter { $0["type"] as? String == "step" }
    #expect(!steps.isEmpty && steps.allSatisfy { $0["reason"] is String && $0["detail"] == nil })
    // Times are local, in time order.
    let times = objects.compactMap { $0["at"] as? String }
    #expect(times.allSatisfy { $0.hasSuffix("+02:00") })
    #expect(times == times.sorted())
  }

  @Test func htmlIsWellFormed() throws {
    let result = try Self.fetch("hourly", ["--format", "html"])
    #expect(result.status == 0, "\(result.stderr)")
    let parser = XMLParser(data: Data(result.stdout.utf8))
    #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
    #expect(result.stdout.components(separatedBy: "<circle class=\"launch ").count - 1 == 194)
    #expect(result.stdout.contains("<h2>Staleness at launch <span class=\"zone\">(local time, UTC+02:00)</span></h2>"))
  }

  @Test func sameInputsSameBytes() throws {
    let a = try Self.fetch("hourly", ["--format", "jsonl"])
    let b = try Self.fetch("hourly", ["--format", "jsonl"])
    #expect(a.status == 0 && a.stdout == b.stdout)
  }

  /// The fixtures are what `geowake generate` writes: regenerating gives the same bytes.
  @Test func fixturesAreRegenerable() throws {
    for (args, file) in [
      (["generate", "usage", "--pattern", "morning"], "morning-checker.csv"), (["generate", "usage", "--pattern", "hourly"], "hourly-checker.csv"),
      (["generate", "feed", "--days", "29"], "news-feed.csv"),
      (["generate", "usage", "--pattern", "hourly", "--from", "2018-11-01", "--days", "29", "--utc-offset", "+09:00"], "tokyo-hourly-checker.csv"),
    ] {
      let result = try CommandRunner.run(args)
      #expect(result.status == 0)
      #expect(result.stdout == (try FixtureFiles.text("fetch/\(file)")), "\(file)")
    }
  }

  @Test func appScenarioWithoutAnIntervalGetsNoFetch() throws {
    let folder = try TemporaryFolder()
    let app = try folder.file("app.json", containing: #"{"backgroundModes": ["fetch"], "handlers": {"fetch": {"work": 2}}}"#)
    let result = try Self.fetch("morning", ["--app", app])
    // No fetch keeps no promise: the report is written, and the status says so.
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.contains("checks failed (\"fresh at ≥ 95 % of launches\""), "\(result.stderr)")
    #expect(result.stdout.contains("fetchUnavailable   the fetch interval policy is never (the default): the system does not fetch"))
    #expect(result.stdout.contains("\nscheduler      0 "))
    let fixed = try Self.fetch("morning", ["--app", app, "--policy", "custom:7200"])
    #expect(fixed.stdout.contains("app: fetch policy custom:7200, background modes fetch"))
    #expect(fixed.stdout.contains("\nscheduler      14 "))
  }

  @Test func badInputIsLocatedAndNothingIsOverwritten() throws {
    let folder = try TemporaryFolder()
    let unsorted = try folder.file("u.csv", containing: "time\n2024-05-06T08:00:00Z\n2024-05-06T07:00:00Z\n")
    let result = try CommandRunner.run(["fetch", "--usage", unsorted])
    #expect(result.status == 65)
    #expect(result.stderr.contains("u.csv:3:1: error: 2024-05-06T07:00:00Z is not after the previous launch (line 2)"))
    // Habits are learned in the clock's local time, so a launch without a zone is refused.
    let zoneless = try folder.file("z.csv", containing: "time\n2024-05-06T08:00:00\n")
    let unzoned = try CommandRunner.run(["fetch", "--usage", zoneless])
    #expect(unzoned.status == 65 && unzoned.stderr.contains("z.csv:2:1: error: launch time \"2024-05-06T08:00:00\" has no zone"))
    #expect(try CommandRunner.run(["fetch", "--usage", zoneless, "--assume-utc", "--report-only"]).status == 0)
    let policy = try Self.fetch("morning", ["--policy", "custom:-5"])
    #expect(policy.status == 64 && policy.stderr.contains("--policy must be never, minimum or custom:SECONDS"))
    let missing = try CommandRunner.run(["fetch", "--usage", folder.path("nope.csv")])
    #expect(missing.status == 66 && missing.stderr.contains("nope.csv: error: no such file"))
    let out = try folder.file("report.html", containing: "keep me")
    let refused = try Self.fetch("morning", ["--format", "html", "-o", out])
    #expect(refused.status == 73)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep me")
    #expect(try Self.fetch("morning", ["--format", "html", "-o", out, "--force"]).status == 0)
  }
}

@Suite("geowake analyze --usage")
struct AnalyzeFetchTests {
  /// Location, fetch and push events on one timeline, one app runtime.
  @Test func locationFetchAndPushTogether() throws {
    let folder = try TemporaryFolder()
    let app = try folder.file("app.json", containing: """
      {"backgroundModes": ["location", "fetch", "remote-notification"], "fetchInterval": "minimum",
       "handlers": {"location": {"work": 3}, "fetch": {"work": 5}, "remoteNotification": {"work": 4}}}
      """)
    let args = AnalyzeCommandTests.demo + [
      "--app", app, "--usage", "Fixtures/fetch/tokyo-hourly-checker.csv", "--pushes", "Fixtures/push/tokyo-pushes.jsonl", "--format", "jsonl",
    ]
    let result = try CommandRunner.run(args)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try result.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    let reasons = Set(lines.compactMap { $0["launchReason"] as? String })
    #expect(reasons.isSuperset(of: ["location", "fetch", "remoteNotification", "user"]), "\(reasons)")
    let requested = lines.filter { $0["event"] as? String == "fetchRequested" }.count
    #expect(requested > 3)
    #expect(lines.filter { $0["launchReason"] as? String == "fetch" && $0["event"] as? String == "wake" }.count == requested)
    #expect(lines.contains { $0["event"] as? String == "launch" && $0["staleness"] as? Double == 0 })
    let table = try CommandRunner.run(Array(args.dropLast(2)))
    #expect(table.stdout.contains("fetch (tokyo-hourly-checker.csv, policy minimum): "))
    let bad = try CommandRunner.run(AnalyzeCommandTests.demo + ["--usage", "Fixtures/fetch/tokyo-hourly-checker.csv"])
    #expect(bad.status == 64 && bad.stderr.contains("--usage needs --app"))
  }

  /// A folder of generated users is a population: spreads per strategy, the checks over users,
  /// one line per user; JSON Lines gives every user under every strategy.
  @Test func aFolderOfUsersIsAPopulation() throws {
    let folder = try TemporaryFolder()
    let users = folder.path("users")
    let generated = try CommandRunner.run(["generate", "usage", "--population", "9", "--seed", "77", "-o", users])
    #expect(generated.status == 0, "\(generated.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: users).sorted().first == "user-001-commuter.csv")
    let table = try CommandRunner.run(["fetch", "--usage", users, "--report-only"])
    #expect(table.status == 0, "\(table.stderr)")
    // Without --report-only, the status is 1 exactly when a check over the users failed.
    let checked = try CommandRunner.run(["fetch", "--usage", users])
    #expect(checked.stdout == table.stdout)
    #expect((checked.status == 1) == table.stdout.contains("\n  FAIL  "), "\(checked.stderr)")
    #expect((checked.status == 1) == checked.stderr.contains("checks failed"))
    #expect(table.stdout.hasPrefix("users: 9 from \(users)"))
    for line in ["\nscheduler ", "\nfixed 15 min ", "\nfixed 1 h ", "\noracle ", "every user: p90 staleness ≤ fixed 1 h's", "median fresh share ≥ fixed 1 h's", "every user: p90 staleness ≤ an even timer's",
                 "\nuser-009-commuter.csv "] {
      #expect(table.stdout.contains(line), "\(line)")
    }
    let jsonl = try CommandRunner.run(["fetch", "--usage", users, "--format", "jsonl"])
    let objects = try jsonl.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    #expect(objects.filter { $0["type"] as? String == "user" }.count == 36)
    #expect(objects.filter { $0["type"] as? String == "check" }.count == 6)
    // Deterministic, and html is for one user.
    #expect(try CommandRunner.run(["fetch", "--usage", users, "--report-only"]).stdout == table.stdout)
    #expect(try CommandRunner.run(["fetch", "--usage", users, "--format", "html", "-o", folder.path("x.html")]).status == 64)
  }
}
