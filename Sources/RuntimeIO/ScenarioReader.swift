public import BackgroundRuntime
public import TrackIO

/// Reads an ``AppScenario`` from JSON:
///
/// ```json
/// { "profile": "ios",
///   "seed": 7,
///   "handlers": {
///     "location": {"work": 4, "backgroundTask": 20, "endsTaskOnExpiration": true, "variation": 0.2},
///     "fetch": {"work": 12},
///     "remoteNotification": {"work": 3} },
///   "sessions": [{"at": "2024-05-01T08:00:00Z", "duration": 300}],
///   "usage": {"daily": ["07:30", "12:15", "21:00"], "duration": 240, "from": "2024-05-01", "days": 14},
///   "forceQuits": ["2024-05-01T12:00:00Z"],
///   "backgroundModes": ["location", "fetch", "remote-notification"],
///   "fetchInterval": "minimum",
///   "permittedTaskIdentifiers": ["com.example.refresh"],
///   "appRefresh": {"identifier": "com.example.refresh", "earliestBeginAfter": 3600} }
/// ```
///
/// `backgroundModes` mirrors Info.plist `UIBackgroundModes` (`location`, `fetch`,
/// `remote-notification`, `processing`); `fetchInterval` is `"never"` (the default, as on iOS),
/// `"minimum"` or seconds > 0; `appRefresh` makes the app use BGAppRefreshTask requests instead
/// (the identifier must be permitted); handlers may give a `failureRate` (0…1) of completions that report
/// `failed`.
///
/// `usage` is a pattern of foreground sessions: every day from `from` (UTC) for `days` days (1…366),
/// a session of `duration` seconds at each `daily` time (`HH:MM` UTC). Its sessions join `sessions`;
/// together they must not overlap.
///
/// Every key is optional; unknown keys are errors. Durations are seconds ≥ 0, `variation` is in
/// 0…1, `profile` is `ios`, `ios7` or `ios6`, times are ISO 8601 with a zone (without one only
/// with `assumeUTC`, which reads them as UTC). Impossible combinations are
/// errors too: `endsTaskOnExpiration` without a `backgroundTask`, overlapping sessions. Each error
/// names the JSON path of the offending field (`$.handlers.location.work`) with its line and
/// column.
public enum ScenarioReader {
  public static func read(path: String, assumeUTC: Bool = false) throws(TrackIOError) -> AppScenario {
    var parser = try JSONParser(path: path)
    let root = try parser.parseDocument()
    let reader = Reader(parser: parser, assumeUTC: assumeUTC)
    return try reader.scenario(root)
  }

  struct Reader {
    let parser: JSONParser
    let assumeUTC: Bool

    func fail(_ path: String, _ node: JSONNode, _ message: String) -> TrackIOError {
      parser.error("\(path): \(message)", at: node.offset)
    }

    func members(_ node: JSONNode, _ path: String, allowed: [String]) throws(TrackIOError) -> [(key: String, value: JSONNode)] {
      guard case .object(let members) = node.value else { throw fail(path, node, "found \(node.kind): expected an object") }
      for (key, value) in members where !allowed.contains(key) {
        throw fail("\(path).\(key)", value, "unknown key: expected one of \(allowed.joined(separator: ", "))")
      }
      var seen = Set<String>()
      for (key, value) in members where !seen.insert(key).inserted { throw fail("\(path).\(key)", value, "appears twice") }
      return members
    }

    func number(_ node: JSONNode, _ path: String, _ range: ClosedRange<Double>, _ expected: String) throws(TrackIOError) -> Double {
      guard case .number(let v) = node.value else { throw fail(path, node, "found \(node.kind): expected \(expected)") }
      guard v.isFinite, range.contains(v) else { throw fail(path, node, "\(v) is out of range: expected \(expected)") }
      return v
    }

    func time(_ node: JSONNode, _ path: String) throws(TrackIOError) -> Double {
      guard case .string(let text) = node.value else { throw fail(path, node, "found \(node.kind): expected an ISO 8601 time such as 2024-05-01T08:00:00Z") }
      let bytes = Array(text.utf8)
      guard let t = bytes.withUnsafeBufferPointer({ ByteNumbers.timestamp($0) }) else {
        throw fail(path, node, "\"\(text)\" is not an ISO 8601 time such as 2024-05-01T08:00:00Z")
      }
      guard assumeUTC || bytes.withUnsafeBufferPointer(ByteNumbers.hasZone) else {
        throw fail(path, node, ByteNumbers.zonelessMessage(text))
      }
      return t
    }

    func scenario(_ root: JSONNode) throws(TrackIOError) -> AppScenario {
      var scenario = AppScenario()
      var usage: [(start: Double, duration: Double)] = []
      var usageNode: JSONNode?
      for (key, value) in try members(root, "$", allowed: [
          "profile", "seed", "handlers", "sessions", "usage", "forceQuits", "backgroundModes", "fetchInterval", "permittedTaskIdentifiers",
          "appRefresh",
        ]) {
        let path = "$.\(key)"
        switch key {
        case "profile":
          guard case .string(let name) = value.value, let profile = RuntimeProfile.named[name] else {
            throw fail(path, value, "expected \"ios\", \"ios7\", \"ios6\" or \"android\"")
          }
          scenario.profile = profile
          scenario.namedProfile = (name, line: parser.location(of: value.offset).line, column: parser.location(of: value.offset).column)
        case "seed":
          scenario.seed = UInt64(try number(value, path, 0...9_007_199_254_740_992, "a whole number ≥ 0"))
        case "handlers":
          for (name, node) in try members(value, path, allowed: ["location", "fetch", "remoteNotification"]) {
            guard let reason = LaunchReason(rawValue: name) else { continue }
            scenario.behaviours[reason] = try behaviour(node, "\(path).\(name)")
          }
        case "sessions":
          guard case .array(let items) = value.value else { throw fail(path, value, "found \(value.kind): expected an array of {\"at\", \"duration\"}") }
          for (k, item) in items.enumerated() {
            let itemPath = "\(path)[\(k)]"
            var at: Double?
            var duration: Double?
            for (field, node) in try members(item, itemPath, allowed: ["at", "duration"]) {
              if field == "at" { at = try time(node, "\(itemPath).at") } else { duration = try number(node, "\(itemPath).duration", 0...31_536_000, "seconds in 0...31536000") }
            }
            guard let at, let duration else { throw fail(itemPath, item, "expected both \"at\" and \"duration\"") }
            if let last = scenario.sessions.last, at < last.start + last.duration {
              throw fail(itemPath, item, "starts before session \(k - 1) ends: expected sessions in time order, not overlapping")
            }
            scenario.sessions.append((at, duration))
          }
        case "usage":
          usage = try pattern(value, path)
          usageNode = value
        case "backgroundModes":
          let names = BackgroundMode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
          guard case .array(let items) = value.value else { throw fail(path, value, "found \(value.kind): expected an array of \(names)") }
          for (k, item) in items.enumerated() {
            guard case .string(let name) = item.value, let mode = BackgroundMode(rawValue: name) else {
              throw fail("\(path)[\(k)]", item, "expected one of \(names)")
            }
            scenario.configuration.backgroundModes.insert(mode)
          }
        case "fetchInterval":
          switch value.value {
          case .string("never"): scenario.configuration.fetchPolicy = .never
          case .string("minimum"): scenario.configuration.fetchPolicy = .minimum
          case .number(let seconds) where seconds.isFinite && seconds > 0 && seconds <= 31_536_000:
            scenario.configuration.fetchPolicy = .custom(interval: seconds)
          default: throw fail(path, value, "expected \"never\", \"minimum\" or seconds in 0<..31536000")
          }
        case "permittedTaskIdentifiers":
          guard case .array(let items) = value.value else { throw fail(path, value, "found \(value.kind): expected an array of strings") }
          for (k, item) in items.enumerated() {
            guard case .string(let id) = item.value, !id.isEmpty else { throw fail("\(path)[\(k)]", item, "expected a non-empty string") }
            scenario.configuration.permittedTaskIdentifiers.insert(id)
          }
        case "appRefresh":
          var identifier: String?
          var after: Double?
          for (field, node) in try members(value, path, allowed: ["identifier", "earliestBeginAfter"]) {
            if field == "identifier" {
              guard case .string(let id) = node.value, !id.isEmpty else { throw fail("\(path).identifier", node, "expected a non-empty string") }
              identifier = id
            } else {
              after = try number(node, "\(path).earliestBeginAfter", 0...604_800, "seconds in 0...604800")
            }
          }
          guard let identifier, let after else { throw fail(path, value, "expected both \"identifier\" and \"earliestBeginAfter\"") }
          scenario.configuration.appRefresh = AppRefreshUse(identifier: identifier, earliestBeginAfter: after)
        case "forceQuits":
          guard case .array(let items) = value.value else { throw fail(path, value, "found \(value.kind): expected an array of times") }
          for (k, item) in items.enumerated() { scenario.forceQuits.append(try time(item, "\(path)[\(k)]")) }
        default: break
        }
      }
      if let usageNode, !usage.isEmpty {
        let all = (scenario.sessions + usage).sorted { $0.start < $1.start }
        for (a, b) in zip(all, all.dropFirst()) where b.start < a.start + a.duration {
          throw fail("$.usage", usageNode, "sessions overlap at \(TimestampText.iso8601(b.start)): expected the pattern's sessions apart from each other and from \"sessions\"")
        }
        scenario.sessions = all
      }
      return scenario
    }

    /// The sessions of a usage pattern.
    func pattern(_ node: JSONNode, _ path: String) throws(TrackIOError) -> [(start: Double, duration: Double)] {
      var times: [Double] = []
      var duration: Double?
      var from: Double?
      var days = 1
      for (key, value) in try members(node, path, allowed: ["daily", "duration", "from", "days"]) {
        let field = "\(path).\(key)"
        switch key {
        case "daily":
          guard case .array(let items) = value.value, !items.isEmpty else { throw fail(field, value, "expected a non-empty array of \"HH:MM\" times") }
          for (k, item) in items.enumerated() {
            guard case .string(let text) = item.value, let t = Self.timeOfDay(text) else {
              throw fail("\(field)[\(k)]", item, "expected a time of day \"HH:MM\" (UTC) such as \"07:30\"")
            }
            times.append(t)
          }
        case "duration": duration = try number(value, field, 1...86_400, "seconds in 1...86400")
        case "days": days = Int(try number(value, field, 1...366, "a whole number of days in 1...366"))
        case "from":
          guard case .string(let text) = value.value else { throw fail(field, value, "expected a date such as \"2024-05-01\"") }
          let bytes = Array((text + "T00:00:00Z").utf8)
          guard let t = bytes.withUnsafeBufferPointer({ ByteNumbers.timestamp($0) }) else {
            throw fail(field, value, "\"\(text)\" is not a date such as \"2024-05-01\"")
          }
          from = t
        default: break
        }
      }
      guard let duration, let from, !times.isEmpty else { throw fail(path, node, "expected \"daily\", \"duration\" and \"from\"") }
      var sessions: [(start: Double, duration: Double)] = []
      for day in 0..<days {
        for t in times.sorted() { sessions.append((from + Double(day) * 86_400 + t, duration)) }
      }
      return sessions
    }

    /// Seconds after midnight of `HH:MM`.
    static func timeOfDay(_ text: String) -> Double? {
      let parts = text.split(separator: ":")
      guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
        (0..<24).contains(h), (0..<60).contains(m)
      else { return nil }
      return Double(h * 3_600 + m * 60)
    }

    func behaviour(_ node: JSONNode, _ path: String) throws(TrackIOError) -> HandlerBehaviour {
      var b = HandlerBehaviour(work: 0)
      var endsGiven: JSONNode?
      for (key, value) in try members(node, path, allowed: ["work", "backgroundTask", "endsTaskOnExpiration", "variation", "failureRate"]) {
        let field = "\(path).\(key)"
        switch key {
        case "work": b.work = try number(value, field, 0...86_400, "seconds in 0...86400")
        case "backgroundTask": b.backgroundTask = try number(value, field, 0...86_400, "seconds in 0...86400")
        case "variation": b.variation = try number(value, field, 0...1, "a fraction in 0...1")
        case "failureRate": b.failureRate = try number(value, field, 0...1, "a fraction in 0...1")
        case "endsTaskOnExpiration":
          guard case .bool(let flag) = value.value else { throw fail(field, value, "found \(value.kind): expected true or false") }
          b.endsTaskOnExpiration = flag
          endsGiven = value
        default: break
        }
      }
      if let endsGiven, b.backgroundTask == nil {
        throw fail("\(path).endsTaskOnExpiration", endsGiven, "given without a backgroundTask: expected a backgroundTask for it to end")
      }
      return b
    }
  }
}
