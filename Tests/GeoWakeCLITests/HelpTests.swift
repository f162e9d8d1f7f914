import BackgroundRuntime
import Foundation
import Geofencing
import SeededRandom
import Testing
import _GeoWakeTestSupport

/// What `--help` says is what runs: every command ends with examples that run as written, and
/// the numbers the help states are the profiles' values.
@Suite("Help")
struct HelpTests {
  static let commands: [[String]] = [
    ["analyze"], ["crossings"], ["compare"], ["info"], ["fetch"], ["push"], ["fidelity"], ["geodesic"],
    ["regions", "check"], ["cells", "check"], ["generate", "track"], ["generate", "regions"], ["generate", "usage"], ["generate", "feed"],
  ]

  /// The help of `command` as one line of words (the terminal's wrapping undone).
  static func help(_ command: [String]) throws -> String {
    let result = try CommandRunner.run(command + ["--help"])
    #expect(result.status == 0)
    return result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// The examples a help ends with, continuation lines joined.
  static func examples(_ command: [String]) throws -> [String] {
    let text = try CommandRunner.run(command + ["--help"]).stdout
    guard let start = text.range(of: "\nExamples:\n") else { return [] }
    var examples: [String] = []
    var continued = false
    for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
      if line.isEmpty || line.hasPrefix("USAGE:") { break }
      var words = line.trimmingCharacters(in: .whitespaces)
      let continues = words.hasSuffix(" \\")
      if continues { words.removeLast(2) }
      if continued { examples[examples.count - 1] += " " + words } else { examples.append(words) }
      continued = continues
    }
    return examples
  }

  @Test(arguments: commands)
  func everyHelpEndsWithExamplesThatRun(_ command: [String]) throws {
    let examples = try Self.examples(command)
    #expect(!examples.isEmpty, "\(command)")
    let folder = try TemporaryFolder()
    for (k, example) in examples.enumerated() {
      // `echo "…" | geowake …` gives the quoted text on standard input; `-o FILE` writes into a
      // temporary folder.
      var stdin = ""
      var line = example
      if line.hasPrefix("echo \""), let pipe = line.range(of: "\" | ") {
        stdin = String(line[line.index(line.startIndex, offsetBy: 6)..<pipe.lowerBound]) + "\n"
        line = String(line[pipe.upperBound...])
      }
      var words = line.split(separator: " ").map(String.init)
      #expect(words.first == "geowake", "\(example)")
      words.removeFirst()
      #expect(Array(words.prefix(command.count)) == command, "\(example)")
      if let o = words.firstIndex(of: "-o"), o + 1 < words.count { words[o + 1] = folder.path("example\(k)-" + words[o + 1]) }
      let result = try CommandRunner.run(words, stdin: stdin)
      #expect(result.status == 0, "\(example): \(result.stderr)")
      #expect(!result.stdout.isEmpty || words.contains("-o"), "\(example)")
    }
  }

  static func whole(_ x: Double) -> String { x == x.rounded() ? "\(Int(x))" : "\(x)" }

  /// The numbers `analyze --help` states for the platforms, from the profiles.
  @Test func analyzeStatesThePlatformsValues() throws {
    let help = try Self.help(["analyze"])
    let ios = RegionMonitoringProfile.ios
    let documented = RegionMonitoringProfile.iosDocumented
    let android = RegionMonitoringProfile.android
    let depth = try #require(ios.triggerDepth?.bounds)
    let lead = try #require(ios.entryLead?.bounds)
    for phrase in [
      "ios (the default, as iPhones were measured: \(ios.maximumRegions ?? -1)-region cap",
      "an exit confirmed \(Self.whole(depth.lowerBound))-\(Self.whole(depth.upperBound)) m beyond the boundary",
      "for \(Self.whole(ios.confirmationTime)) s, then a median \(Self.whole(ios.deliveryLatency.median)) s",
      "entries up to \(Self.whole(lead.upperBound)) m early",
      "Apple's stated \(Self.whole(documented.confirmationDistance)) m / \(Self.whole(documented.confirmationTime)) s and "
        + "\(Self.whole(documented.deliveryLatency.bounds.lowerBound / 60))-\(Self.whole(documented.deliveryLatency.bounds.upperBound / 60)) min",
      "\(android.maximumRegions ?? -1)-region cap", "dwell after \(Self.whole((android.loiteringDelay ?? -60) / 60)) min",
      "about every \(Self.whole((RegionMonitoringProfile.android8.evaluationInterval ?? -60) / 60)) min",
      "a broadcast receiver with \(Self.whole(RuntimeProfile.android.locationWakeBudget)) s (goAsync up to \(Self.whole(RuntimeProfile.android.backgroundTaskLimit)) s)",
      "jobs of up to \(Self.whole(RuntimeProfile.android.fetchDeadline / 60)) min",
      "reorder window: server \(Self.whole(RegionMonitoringProfile.server.reorderWindow)) s, ios none",
      "ios: \(Self.whole(RuntimeProfile.ios.locationWakeBudget)) s per location wake, background tasks up to \(Self.whole(RuntimeProfile.ios.backgroundTaskLimit)) s",
      "ios7, \(Self.whole(RuntimeProfile.ios7.backgroundTaskLimit)) s, or ios6, \(Self.whole(RuntimeProfile.ios6.backgroundTaskLimit)) s",
    ] {
      #expect(help.contains(phrase), "\(phrase)")
    }
    #expect(ios.reorderWindow == 0)
  }

  /// `push --help` states the silent-push budget of the default (ios, as phones were seen) and
  /// of ios-documented, and the payload limits, from the profiles.
  @Test func pushStatesTheBudgetsThatRun() throws {
    let help = try Self.help(["push"])
    for phrase in [
      "silent pushes on ios, the default, as phones were seen: \(PushProfile.ios.silentBudgetText);",
      "on ios-documented, read from Apple's words alone: \(PushProfile.iosDocumented.silentBudgetText);",
      "PayloadTooLarge over \(PushProfile.ios.payloadLimit) bytes", "BadCollapseId over \(PushProfile.ios.collapseIDLimit) bytes",
      "a keep-alive every \(Self.whole(PushProfile.ios.keepAliveInterval / 60)) min",
    ] {
      #expect(help.contains(phrase), "\(phrase)")
    }
    #expect(PushProfile.ios.silentBudgetText != PushProfile.iosDocumented.silentBudgetText)
  }

  @Test func fetchStatesAndroidsJobPeriod() throws {
    let help = try Self.help(["fetch"])
    guard case .periodicJob(let period) = FetchProfile.android.scheduler else {
      Issue.record("android's fetch is not a periodic job")
      return
    }
    #expect(help.contains("a periodic WorkManager job, at least every \(Self.whole(period / 60)) min"))
  }
}
