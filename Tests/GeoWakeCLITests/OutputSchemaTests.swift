import Foundation
import Testing
import _GeoWakeTestSupport

/// The JSON Lines the tools write, checked line by line against the JSON Schemas that
/// `docs/formats.md` publishes, on runs that produce every kind of entry.
@Suite("JSON Lines schemas")
struct OutputSchemaTests {
  /// A JSON value that keeps integers, numbers and booleans apart.
  indirect enum Value: Decodable, Equatable {
    case null, bool(Bool), integer(Int), number(Double), string(String), array([Value]), object([String: Value])

    init(from decoder: any Decoder) throws {
      let c = try decoder.singleValueContainer()
      if c.decodeNil() { self = .null }
      else if let b = try? c.decode(Bool.self) { self = .bool(b) }
      else if let i = try? c.decode(Int.self) { self = .integer(i) }
      else if let d = try? c.decode(Double.self) { self = .number(d) }
      else if let s = try? c.decode(String.self) { self = .string(s) }
      else if let a = try? c.decode([Value].self) { self = .array(a) }
      else { self = .object(try c.decode([String: Value].self)) }
    }

    static func parse(_ text: some StringProtocol) throws -> Value { try JSONDecoder().decode(Value.self, from: Data(text.utf8)) }

    var typeName: String {
      switch self {
      case .null: "null"
      case .bool: "boolean"
      case .integer: "integer"
      case .number: "number"
      case .string: "string"
      case .array: "array"
      case .object: "object"
      }
    }
  }

  /// The problems of `value` against `schema`, for the keywords the published schemas use: type,
  /// enum, properties, required, additionalProperties, minimum, maximum, pattern, oneOf.
  static func problems(_ value: Value, _ schema: [String: Value], at path: String = "$", root: [String: Value]? = nil) -> [String] {
    let root = root ?? schema
    if case .string(let reference)? = schema["$ref"], reference.hasPrefix("#/$defs/"),
      case .object(let defs)? = root["$defs"], case .object(let target)? = defs[String(reference.dropFirst(8))]
    {
      return problems(value, target, at: path, root: root)
    }
    var found: [String] = []
    if case .array(let options)? = schema["oneOf"] {
      let matching = options.filter { option in
        guard case .object(let s) = option else { return false }
        return problems(value, s, at: path, root: root).isEmpty
      }
      if matching.count != 1 { found.append("\(path): matches \(matching.count) of the oneOf schemas") }
    }
    if let type = schema["type"] {
      let allowed: [String]
      switch type {
      case .string(let t): allowed = [t]
      case .array(let ts): allowed = ts.compactMap { if case .string(let t) = $0 { t } else { nil } }
      default: allowed = []
      }
      let name = value.typeName
      if !(allowed.contains(name) || (name == "integer" && allowed.contains("number"))) {
        found.append("\(path): \(name), expected \(allowed.joined(separator: " or "))")
      }
    }
    if case .array(let choices)? = schema["enum"], !choices.contains(value) { found.append("\(path): \(value) not in the enum") }
    let number: Double? = { if case .integer(let i) = value { Double(i) } else if case .number(let d) = value { d } else { nil } }()
    if let number, case .integer(let m)? = schema["minimum"], number < Double(m) { found.append("\(path): \(number) below \(m)") }
    if let number, case .integer(let m)? = schema["maximum"], number > Double(m) { found.append("\(path): \(number) above \(m)") }
    if case .string(let text) = value, case .string(let pattern)? = schema["pattern"], text.range(of: pattern, options: .regularExpression) == nil {
      found.append("\(path): \"\(text)\" does not match \(pattern)")
    }
    if case .object(let members) = value {
      let properties: [String: Value] = { if case .object(let p)? = schema["properties"] { p } else { [:] } }()
      if case .array(let required)? = schema["required"] {
        for case .string(let key) in required where members[key] == nil { found.append("\(path): no \(key)") }
      }
      for (key, member) in members {
        if case .object(let s)? = properties[key] {
          found += problems(member, s, at: "\(path).\(key)", root: root)
        } else if schema["additionalProperties"] == .bool(false) {
          found.append("\(path): \(key) is not in the schema")
        }
      }
    }
    if case .array(let elements) = value, case .object(let items)? = schema["items"] {
      for (k, element) in elements.enumerated() { found += problems(element, items, at: "\(path)[\(k)]", root: root) }
    }
    return found
  }

  /// The schema `docs/formats.md` publishes with this `$id`.
  static func schema(_ id: String) throws -> [String: Value] {
    let text = try String(contentsOf: FixtureFiles.packageRoot.appendingPathComponent("docs/formats.md"), encoding: .utf8)
    let blocks = text.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
    let block = try #require(blocks.first { $0.contains("\"$id\": \"\(id)\"") }, "no schema \(id) in docs/formats.md")
    guard case .object(let schema) = try Value.parse(block) else { throw CocoaError(.coderReadCorrupt) }
    return schema
  }

  /// Checks every line of `output` (or `output` as one document, with `whole`).
  static func check(_ output: String, against id: String, whole: Bool = false) throws -> [[String: Value]] {
    let schema = try schema(id)
    var lines: [[String: Value]] = []
    for line in whole ? [Substring(output)] : output.split(separator: "\n") {
      let value = try Value.parse(line)
      let problems = Self.problems(value, schema)
      #expect(problems.isEmpty, "\(id): \(problems.prefix(3)) in \(line.prefix(200))")
      if case .object(let members) = value { lines.append(members) }
    }
    #expect(!lines.isEmpty, "\(id): no output")
    return lines
  }

  static let demo = ["--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"]

  @Test func crossingsAndAnalyzeShareTheCrossingSchema() throws {
    let crossings = try CommandRunner.run(["crossings", "--format", "jsonl"] + Self.demo)
    let crossingLines = try Self.check(crossings.stdout, against: "geowake:crossings.jsonl")
    // The geometric truth under the server profile: the same crossings, described the same way.
    let server = try CommandRunner.run(["analyze", "--profile", "server", "--format", "jsonl"] + Self.demo)
    let serverLines = try Self.check(server.stdout, against: "geowake:analyze.jsonl").filter { $0["event"] == .string("enter") || $0["event"] == .string("exit") }
    let plain = crossingLines.filter { $0["passThrough"] == .bool(false) }
    #expect(plain.count == serverLines.count)
    for (c, a) in zip(plain, serverLines) {
      for key in ["event", "region", "crossedAt", "lat", "lon", "fromFix", "toFix"] { #expect(c[key] == a[key], "\(key)") }
      #expect(c["at"] == c["crossedAt"])
    }
  }

  /// CSV has the JSON Lines keys as its columns and the same values, row for row (crossings,
  /// compare; analyze's has every key any entry has).
  @Test(arguments: [["crossings"], ["compare"]])
  func csvHoldsTheJSONLinesFields(_ command: [String]) throws {
    let jsonl = try CommandRunner.run(command + ["--format", "jsonl"] + Self.demo)
    let csv = try CommandRunner.run(command + ["--format", "csv"] + Self.demo)
    #expect(csv.status == 0, "\(csv.stderr)")
    let objects = try jsonl.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let rows = csv.stdout.split(separator: "\n").map(Self.csvFields)
    let header = try #require(rows.first)
    #expect(Set(header) == Set(objects.first?.keys.map { $0 } ?? []))
    #expect(rows.count == objects.count + 1)
    for (row, object) in zip(rows.dropFirst(), objects) {
      for (key, field) in zip(header, row) {
        let value = object[key]
        if let text = value as? String {
          #expect(field == text, "\(key)")
        } else if value == nil || value is NSNull {
          #expect(field.isEmpty, "\(key)")
        } else if field == "true" || field == "false" {
          #expect((value as? Bool) == (field == "true"), "\(key)")
        } else {
          // The same number (Foundation's JSON reader may round the last bit differently).
          let number = (value as? NSNumber)?.doubleValue ?? .nan
          #expect(Double(field).map { abs($0 - number) <= 1e-12 * max(1, abs(number)) } == true, "\(key): \(field) vs \(number)")
        }
      }
    }
  }

  /// A CSV line's fields (RFC 4180 quoting).
  static func csvFields(_ line: Substring) -> [String] {
    var fields: [String] = []
    var field = ""
    var quoted = false
    var previous: Character?
    for c in line {
      if quoted {
        if c == "\"" { quoted = false } else { field.append(c) }
      } else if c == "\"" {
        if previous == "\"" { field.append("\"") }
        quoted = true
      } else if c == "," {
        fields.append(field)
        field = ""
      } else {
        field.append(c)
      }
      previous = c
    }
    fields.append(field)
    return fields
  }

  @Test func everyKindOfTimelineEntryFollowsTheSchema() throws {
    // Region events with an app's wakes; cells and significant changes on a drive log; pushes
    // and fetches on a generated day.
    let app = try CommandRunner.run(["analyze", "--format", "jsonl", "--app", "Fixtures/demo/app-scenario.json"] + Self.demo)
    let appLines = try Self.check(app.stdout, against: "geowake:analyze.jsonl")
    #expect(appLines.contains { $0["event"] == .string("wake") && $0["at"] != nil && $0["crossedAt"] == nil })
    let cells = try CommandRunner.run(["analyze", "--significant-changes", "--format", "jsonl", "Fixtures/cells/drive_logs/Download__Driving__B_2020.02.14_09.38.22.csv"])
    let cellLines = try Self.check(cells.stdout, against: "geowake:analyze.jsonl")
    let kinds = Set(cellLines.compactMap { line -> String? in if case .string(let e)? = line["event"] { return e } else { return nil } })
    #expect(kinds.isSuperset(of: ["attach", "handoff", "significantChange"]))
    let fetch = try CommandRunner.run(["analyze", "--format", "jsonl", "--app", "Fixtures/demo/app-scenario.json", "--usage", "Fixtures/fetch/tokyo-hourly-checker.csv"] + Self.demo)
    let fetchLines = try Self.check(fetch.stdout, against: "geowake:analyze.jsonl")
    #expect(fetchLines.contains { $0["staleness"] != nil })
  }

  @Test func compareFollowsItsSchema() throws {
    let compare = try CommandRunner.run(["compare", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx", "--regions", "Fixtures/demo/tokyo-regions.csv", "--format", "jsonl"])
    #expect(compare.status == 0, "\(compare.stderr)")
    #expect(try Self.check(compare.stdout, against: "geowake:compare.jsonl").count == 2)
  }

  @Test func pushFetchFidelityAndInfoFollowTheirSchemas() throws {
    let push = try CommandRunner.run(["push", "--schedule", "Fixtures/push/news-app.jsonl", "--connectivity", "Fixtures/push/news-app-connectivity.csv", "--format", "jsonl"])
    let pushLines = try Self.check(push.stdout, against: "geowake:analyze.jsonl")
    #expect(pushLines.contains { $0["event"] == .string("pushRejected") } && pushLines.contains { $0["event"] == .string("wake") })
    #expect(pushLines.allSatisfy { $0["lat"] == .null })
    for usage in ["morning-checker", "hourly-checker"] {
      let fetch = try CommandRunner.run(["fetch", "--usage", "Fixtures/fetch/\(usage).csv", "--format", "jsonl"])
      let fetchLines = try Self.check(fetch.stdout, against: "geowake:fetch.jsonl")
      #expect(fetchLines.contains { $0["category"] == .string("app") } && fetchLines.contains { $0["check"] != nil })
    }
    let folder = try TemporaryFolder()
    let users = folder.path("users")
    #expect(try CommandRunner.run(["generate", "usage", "--population", "8", "--seed", "3", "-o", users]).status == 0)
    let population = try CommandRunner.run(["fetch", "--usage", users, "--format", "jsonl", "--report-only"])
    let populationLines = try Self.check(population.stdout, against: "geowake:fetch-population.jsonl")
    #expect(populationLines.filter { $0["type"] == .string("user") }.count == 32)
    let fidelity = try CommandRunner.run(["fidelity", "Fixtures/fidelity/mobilitynet", "--seeds", "2", "--format", "jsonl"])
    let fidelityLines = try Self.check(fidelity.stdout, against: "geowake:fidelity.jsonl")
    #expect(fidelityLines.filter { $0["kind"] == .string("platform") }.count == 2)
    let published = try CommandRunner.run(["fidelity", "--published", "--seeds", "1", "--format", "jsonl"])
    #expect(try Self.check(published.stdout, against: "geowake:fidelity-published.jsonl").count == 17)
    for track in ["Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx", "Fixtures/demo/tokyo-track.csv", "Fixtures/gpx/georust/garmin-activity.gpx", "Fuzz/seeds/track/walk.csv.gz", "Fuzz/seeds/track/Records.json", "Fuzz/seeds/track/walk.geojson"] {
      let info = try CommandRunner.run(["info", track, "--format", "json"])
      let object = try Self.check(info.stdout, against: "geowake:info.json", whole: true)
      #expect(object.first?["compressed"] == .bool(track.hasSuffix(".gz")), "\(track)")
    }
  }
}
