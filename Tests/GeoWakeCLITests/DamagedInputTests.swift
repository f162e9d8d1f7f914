import Foundation
import SeededRandom
import Testing
import _GeoWakeTestSupport

/// Real files from other projects, damaged at random (bytes changed, the file cut, stretches
/// repeated or dropped), through every command that reads them: each run ends with success or a
/// sysexits status and a located message, never a trap or a hang. (`make fuzz` goes further, in
/// process; this holds the commands themselves to it, on the Fixtures, the same cases every run.)
@Suite("Damaged input")
struct DamagedInputTests {
  /// `bytes` damaged by 1–4 seeded changes.
  static func damage(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
    var data = bytes
    let specials = Array(",\"<>{}[]-9.\n:".utf8)
    for _ in 0..<(1 + Int(random.next(below: 4))) {
      guard !data.isEmpty else { break }
      let at = Int(random.next(below: UInt64(data.count)))
      let span = min(data.count - at, 1 + Int(random.next(below: 400)))
      switch random.next(below: 5) {
      case 0, 1:
        for _ in 0..<(1 + Int(random.next(below: 8))) {
          let k = Int(random.next(below: UInt64(data.count)))
          data[k] = random.next(below: 2) == 0 ? UInt8(truncatingIfNeeded: random.next()) : specials[Int(random.next(below: UInt64(specials.count)))]
        }
      case 2: data.removeSubrange(at...)
      case 3: data.insert(contentsOf: Array(data[at..<(at + span)]) + Array(data[at..<(at + span)]), at: at)
      default: data.removeSubrange(at..<(at + span))
      }
    }
    return data
  }

  /// The files each command reads, by the extension the damaged copy keeps.
  static func files(_ folder: String, _ suffix: String) throws -> [String] {
    let root = FixtureFiles.packageRoot.appendingPathComponent("Fixtures/" + folder)
    let all = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    return all.filter { $0.hasSuffix(suffix) }.sorted().map { "Fixtures/\(folder)/\($0)" }.filter { path in
      let size = (try? FileManager.default.attributesOfItem(atPath: FixtureFiles.packageRoot.appendingPathComponent(path).path)[.size]) as? Int
      return (1..<200_000).contains(size ?? 0)
    }
  }

  /// A command and the inputs it is given, `FILE` standing for the damaged copy.
  static let cases: [(name: String, sources: (String, String), arguments: [String])] = [
    ("info", ("gpx", ".gpx"), ["info", "--lenient", "FILE"]),
    ("info csv", ("demo", ".csv"), ["info", "FILE"]),
    ("crossings", ("gpx", ".gpx"), ["crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", "FILE"]),
    ("analyze", ("gpx", ".gpx"), ["analyze", "--lenient", "--regions", "Fixtures/demo/tokyo-regions.csv", "FILE", "--app", "Fixtures/demo/app-scenario.json"]),
    ("compare", ("gpx", ".gpx"), ["compare", "--lenient", "--regions", "Fixtures/demo/tokyo-regions.csv", "FILE"]),
    ("regions check", ("polygons", ".json"), ["regions", "check", "FILE"]),
    ("analyze regions", ("demo", "regions.csv"), ["analyze", "--regions", "FILE", "Fixtures/demo/tokyo-track.csv"]),
    ("fetch", ("fetch", "checker.csv"), ["fetch", "--usage", "FILE", "--report-only"]),
    ("push", ("push", ".jsonl"), ["push", "--schedule", "FILE"]),
    ("cells check", ("cells/opencellid", ".csv"), ["cells", "check", "--lenient", "FILE"]),
  ]

  @Test(arguments: cases.indices)
  func noDamagedFileMakesACommandTrap(_ k: Int) throws {
    let (name, (folder, suffix), arguments) = Self.cases[k]
    let sources = try Self.files(folder, suffix)
    #expect(!sources.isEmpty, "\(name)")
    let temporary = try TemporaryFolder()
    var random = SeededGenerator(seed: 0xDA3A6E + UInt64(k))
    var refused = 0
    for trial in 0..<100 {
      let source = sources[Int(random.next(below: UInt64(sources.count)))]
      let bytes = try [UInt8](Data(contentsOf: FixtureFiles.packageRoot.appendingPathComponent(source)))
      let path = temporary.path("damaged-\(trial)" + (suffix.hasPrefix(".") ? suffix : "." + (suffix.split(separator: ".").last ?? "csv")))
      try Data(Self.damage(bytes, &random)).write(to: URL(fileURLWithPath: path))
      let result = try CommandRunner.run(arguments.map { $0 == "FILE" ? path : $0 })
      #expect([0, 65, 66, 74].contains(result.status), "\(name), trial \(trial) (\(source)): status \(result.status)\n\(result.stderr.suffix(600))")
      if result.status != 0 {
        refused += 1
        // A refusal says where: the damaged file's name, with a line (or the file alone).
        #expect(result.stderr.contains("damaged-\(trial)"), "\(name), trial \(trial): \(result.stderr.suffix(300))")
      }
    }
    // The damage is real: a strict reading refuses some of the files.
    #expect(refused > 0 || arguments.contains("--lenient"), "\(name): \(refused) of 100 refused")
  }
}
