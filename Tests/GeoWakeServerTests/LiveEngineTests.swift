#if Server
import Foundation
import GeoWake
import Geodesy
import Geofencing
import Testing

@testable import GeoWakeServer

/// The live engine against the offline timeline (what `geowake analyze` runs): the same fixes,
/// cut into batches, with the engine dropped and reopened from its store at random points (a
/// crash: nothing but what was committed survives) and checkpoints between, give each device the
/// same events in the same order, none lost and none repeated.
@Suite struct LiveEngineTests {
  /// A small deterministic generator (splitmix64), so the walks are the same on every run.
  struct Walks {
    var state: UInt64
    mutating func next() -> Double {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
  }

  static func regions(_ walks: inout Walks) throws -> [Region] {
    try (0..<12).map { k in
      .circle(
        try CircularRegion(
          identifier: "r\(k)", center: Coordinate(latitude: 48.85 + 0.01 * walks.next(), longitude: 2.35 + 0.01 * walks.next()),
          radius: 50 + 300 * walks.next()))
    }
  }

  /// Walks of `devices` devices; with `twins`, one fix in ten has a twin at the same time a few
  /// metres away (as GPX files with whole-second times have).
  static func fixes(_ walks: inout Walks, devices: Int, perDevice: Int, twins: Bool = false) -> [FixInput] {
    var all: [FixInput] = []
    for d in 0..<devices {
      var lat = 48.85 + 0.01 * walks.next()
      var lon = 2.35 + 0.01 * walks.next()
      var time = 1_700_000_000 + 600 * walks.next()
      var heading = 2 * Double.pi * walks.next()
      for _ in 0..<perDevice {
        heading += walks.next() - 0.5
        let step = 5 + 35 * walks.next()
        lat += step * cos(heading) / 111_000
        lon += step * sin(heading) / (111_000 * cos(lat * .pi / 180))
        time += (5 + 25 * walks.next()).rounded()
        all.append(FixInput(device: "dev-\(d)", time: time, latitude: lat, longitude: lon, accuracy: [5, 10, 20][Int(3 * walks.next())]))
        if twins && walks.next() < 0.1 {
          all.append(FixInput(device: "dev-\(d)", time: time, latitude: lat + 3e-5, longitude: lon, accuracy: 10))
        }
      }
    }
    // Stable: twins keep their order.
    return all.enumerated().sorted { ($0.element.time, $0.element.device, $0.offset) < ($1.element.time, $1.element.device, $1.offset) }.map(\.element)
  }

  static func batch(_ fixes: ArraySlice<FixInput>) -> FixBatch {
    var text = ""
    for f in fixes {
      text += "{\"device\":\"\(f.device)\",\"time\":\(f.time),\"lat\":\(f.latitude),\"lon\":\(f.longitude),\"accuracy\":\(f.accuracy!)}\n"
    }
    return try! FixBatch(body: Array(text.utf8))
  }

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func equalsTheOfflineTimelineAcrossCrashes(seed: UInt64) async throws {
    var walks = Walks(state: seed)
    let regions = try Self.regions(&walks)
    let fixes = Self.fixes(&walks, devices: 8, perDevice: 300, twins: seed > 2)
    #expect(seed <= 2 || Set(fixes.map { "\($0.device) \($0.time)" }).count < fixes.count, "twins at one time")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-engine-\(seed)-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // Even seeds: the server's rules tuned (a dwell, a confirmation distance and time).
    var platform = Platform.server
    if seed.isMultiple(of: 2) {
      platform.regionMonitoring.loiteringDelay = 60
      platform.regionMonitoring.confirmationDistance = 5
      platform.regionMonitoring.confirmationTime = 10
    }
    let settings = EngineSettings(
      regions: regions, regionsFingerprint: "test", platform: platform, rules: seed.isMultiple(of: 2) ? ["dwell": "60"] : [:], seed: seed,
      dataDirectory: folder)

    // Offline: each device's timeline over its fixes, finished.
    let fleet = Fleet(regions: RegionSet(regions), platform: platform, seed: seed)
    var expected: [String: [String]] = [:]
    for device in Set(fixes.map(\.device)) {
      var timeline = try fleet.timeline(for: device)
      var events: [TimelineEvent] = []
      for fix in fixes where fix.device == device { timeline.process(fix.locationFix, into: &events) }
      try timeline.finish(into: &events)
      var visits = VisitBook()
      expected[device] = events.map { EventLines.line($0, device: device, visit: visits.visit(of: $0, device: device)).body }
    }

    #expect(expected.values.map(\.count).reduce(0, +) >= 20, "the walks cross the regions")
    #expect(!seed.isMultiple(of: 2) || expected.values.joined().contains { $0.contains("\"event\":\"dwell\"") }, "dwells")

    // Live: batches of 1 to 200, a crash (the engine dropped, reopened) or a checkpoint now and then,
    // and the batch before each crash sent again, as a client that had no answer would.
    // A checkpoint runs beside the next batches (its states are encoded off the engine).
    var engine: LiveEngine? = try LiveEngine(settings: settings)
    var start = 0
    var crashes = 0
    var checkpoint: Task<Void, any Error>?
    while start < fixes.count {
      let count = 1 + Int(200 * walks.next())
      let slice = fixes[start..<min(fixes.count, start + count)]
      let answer = try await engine!.ingest(Self.batch(slice))
      #expect(answer.items.count == slice.count)
      let roll = walks.next()
      // At least one crash: the first batch past the middle, whatever the rolls.
      if roll < 0.1 || (crashes == 0 && start + slice.count > fixes.count / 2) {
        try await checkpoint?.value
        checkpoint = nil
        engine = nil
        engine = try LiveEngine(settings: settings)
        crashes += 1
        let again = try await engine!.ingest(Self.batch(slice))
        #expect(again.items.allSatisfy(\.repeated) && again.events == 0)
      } else if roll < 0.2 {
        try await checkpoint?.value
        checkpoint = Task { [engine] in try await engine!.checkpoint() }
      }
      start += slice.count
    }
    try await checkpoint?.value
    for device in expected.keys.sorted() { _ = try await engine!.end(device: device) }
    #expect(crashes > 0)
    let log = try EventLog(dataDirectory: folder)
    var live: [String: [String]] = [:]
    var after: Int64 = 0
    var sequence: [Int64] = []
    while true {
      let page = try await log.events(after: after, limit: 1_000)
      guard let last = page.last else { break }
      for (seq, line) in page {
        sequence.append(seq)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let device = try #require(object["device"] as? String)
        let prefix = "{\"seq\":\(seq),"
        live[device, default: []].append("{" + line.dropFirst(prefix.count))
      }
      after = last.seq
    }
    #expect(sequence == Array(1...Int64(sequence.count)))
    #expect(live == expected.filter { !$0.value.isEmpty })
  }

  /// Fences put and deleted while fixes flow, with crashes right after some of the changes: each
  /// device's events equal a run without crashes in which every live device is moved onto each
  /// new set at the same place in the stream (and a region put is read from the body stored).
  @Test(arguments: [UInt64(11), 12, 13])
  func fenceChangesDuringLoadSurviveCrashes(seed: UInt64) async throws {
    var walks = Walks(state: seed)
    let regions = try Self.regions(&walks)
    let fixes = Self.fixes(&walks, devices: 6, perDevice: 250)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-fences-\(seed)-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let settings = EngineSettings(regions: regions, regionsFingerprint: "test", platform: .server, seed: seed, dataDirectory: folder)

    // The plan: batches of 1 to 150 fixes; after some, a change (a new region, one redefined, one deleted).
    enum Change {
      case put(String, [UInt8])
      case delete(String)
    }
    var plan: [(batch: Range<Int>, change: Change?, crash: Bool)] = []
    var start = 0
    var serial = 0
    while start < fixes.count {
      let end = min(fixes.count, start + 1 + Int(150 * walks.next()))
      var change: Change?
      let roll = walks.next()
      if roll < 0.3 {
        serial += 1
        let id = walks.next() < 0.5 ? "new-\(serial)" : "r\(Int(12 * walks.next()))"
        let lat = 48.85 + 0.01 * walks.next()
        let lon = 2.35 + 0.01 * walks.next()
        let radius = 100 + 400 * walks.next()
        let body = #"{"type":"Feature","properties":{"radius":\#(radius)},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
        change = .put(id, Array(body.utf8))
      } else if roll < 0.4 {
        change = .delete("r\(Int(12 * walks.next()))")
      }
      plan.append((start..<end, change, change != nil && walks.next() < 0.5))
      start = end
    }
    #expect(plan.count { $0.change != nil } >= 3)

    // Without crashes, in memory.
    var fences = FenceSet(regions: RegionSet(regions), notifications: [:], row: 0)
    var timelines: [String: DeviceTimeline] = [:]
    var books: [String: VisitBook] = [:]
    var expected: [String: [String]] = [:]
    var events: [TimelineEvent] = []
    func record(_ device: String) {
      expected[device, default: []] += events.map {
        EventLines.line($0, device: device, visit: books[device, default: VisitBook()].visit(of: $0, device: device)).body
      }
    }
    for step in plan {
      let fleet = Fleet(regions: fences.regions, platform: .server, notifications: fences.notifications, seed: seed)
      for fix in fixes[step.batch] {
        if timelines[fix.device] == nil { timelines[fix.device] = try fleet.timeline(for: fix.device) }
        events = []
        timelines[fix.device]!.process(fix.locationFix, into: &events)
        record(fix.device)
      }
      let before = fences
      let name: String
      switch step.change {
      case .put(let id, let body)?:
        let (region, wanted) = try FenceSet.region(id, body: body)
        fences = fences.putting(region, wanting: wanted, at: 0)
        name = id
      case .delete(let id)?:
        guard fences.regions.contains(try RegionIdentifier(id)) else { continue }
        fences = fences.removing(try RegionIdentifier(id), at: 0)
        name = id
      case nil: continue
      }
      let changed = LiveEngine.changed(name, from: before, to: fences)
      for device in timelines.keys.sorted() {
        events = []
        try timelines[device]!.replaceRegions(with: fences.regions, notifications: fences.notifications, into: &events)
        if let changed { books[device]?.open[changed.rawValue] = nil }
        record(device)
      }
    }
    for device in timelines.keys.sorted() {
      events = []
      try timelines[device]!.finish(into: &events)
      record(device)
    }
    #expect(expected.values.joined().count { $0.contains("when monitoring started") } > 0, "a region is put around a device")

    // Live, with crashes.
    var engine: LiveEngine? = try LiveEngine(settings: settings)
    for step in plan {
      _ = try await engine!.ingest(Self.batch(fixes[step.batch]))
      switch step.change {
      case .put(let id, let body)?:
        let (region, wanted) = try FenceSet.region(id, body: body)
        _ = try await engine!.put(region, wanting: wanted, body: body)
      case .delete(let id)?:
        _ = try await engine!.remove(try RegionIdentifier(id))
      case nil: break
      }
      if step.crash || walks.next() < 0.05 {
        if walks.next() < 0.5 { try await engine!.checkpoint() }
        engine = nil
        engine = try LiveEngine(settings: settings)
      }
    }
    #expect(await engine!.fences.regions.fingerprint == fences.regions.fingerprint)
    for device in timelines.keys.sorted() { _ = try await engine!.end(device: device) }
    let log = try EventLog(dataDirectory: folder)
    var live: [String: [String]] = [:]
    var after: Int64 = 0
    while true {
      let page = try await log.events(after: after, limit: 1_000)
      guard let last = page.last else { break }
      for (seq, line) in page {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let device = try #require(object["device"] as? String)
        live[device, default: []].append("{" + line.dropFirst("{\"seq\":\(seq),".count))
      }
      after = last.seq
    }
    #expect(live == expected.filter { !$0.value.isEmpty })
  }

  /// A retried batch is a repeat whether its fixes are in the log since the last checkpoint, in
  /// a checkpoint, or in a store made when fixes were indexed by device, time and place (the
  /// newest fix times are read off the old index once); a later fix is new.
  @Test func repeatsAreFoundInEveryStore() async throws {
    var walks = Walks(state: 21)
    let regions = try Self.regions(&walks)
    let fixes = Self.fixes(&walks, devices: 5, perDevice: 60, twins: true)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-repeats-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let settings = EngineSettings(regions: regions, regionsFingerprint: "test", platform: .server, seed: 21, dataDirectory: folder)
    let first = fixes[..<150]
    let second = fixes[150..<200]
    var engine: LiveEngine? = try LiveEngine(settings: settings)
    _ = try await engine!.ingest(Self.batch(first))
    try await engine!.checkpoint()
    _ = try await engine!.ingest(Self.batch(second))
    let again = try await engine!.ingest(Self.batch(fixes[..<200]))
    #expect(again.items.allSatisfy(\.repeated) && again.events == 0)
    // Every fix in a checkpoint: the newest times come from the store alone.
    try await engine!.checkpoint()
    engine = nil

    // The store as it was made before: the unique index on device, time and place, no newest times.
    do {
      let old = try EngineStore(directory: folder)
      try old.connection.execute(
        """
        DELETE FROM newest;
        DROP INDEX log_time;
        CREATE UNIQUE INDEX log_fix_place ON log(device, time, lat, lon) WHERE kind = 0;
        """)
    }
    engine = try LiveEngine(settings: settings)
    let afterMigration = try await engine!.ingest(Self.batch(fixes[..<200]))
    #expect(afterMigration.items.allSatisfy(\.repeated) && afterMigration.events == 0)
    let store = try EngineStore(directory: folder)
    let newest = try store.newestFixTimes()
    for device in Set(fixes[..<200].map(\.device)) {
      #expect(newest[device] == fixes[..<200].filter { $0.device == device }.map(\.time).max())
    }
    let indexes = try store.connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'log_%'")
    var names: [String] = []
    while try indexes.step() { names.append(indexes.text(0)) }
    #expect(names == ["log_time"])
    let rest = try await engine!.ingest(Self.batch(fixes[200...]))
    #expect(rest.items.allSatisfy { !$0.repeated })
  }

  /// A visit's id runs from the event that puts a device inside to the one that takes it out;
  /// a pass-through has its own; the ids depend on the device, region and time only.
  @Test func visitsRunFromEnterToExit() throws {
    let here = try Coordinate(latitude: 48.85, longitude: 2.35)
    func event(_ kind: RegionEvent.Kind, _ region: String, _ time: Double, state: RegionEvent.State? = nil) throws -> TimelineEvent {
      .region(RegionEvent(
        kind: kind, region: try RegionIdentifier(region), crossedAt: time, decidedAt: time, deliveredAt: time, coordinate: here,
        state: state, cause: .initialState, reason: ""))
    }
    var book = VisitBook()
    let ids = try [
      event(.enter, "a", 10), event(.dwell, "a", 20), event(.passThrough, "b", 25), event(.exit, "a", 30),
      event(.state, "c", 40, state: .inside), event(.enter, "a", 50), event(.state, "c", 60, state: .outside),
      event(.passThrough, "b", 70),
    ].map { book.visit(of: $0, device: "d") }
    #expect(ids[0] == ids[1] && ids[1] == ids[3], "enter, dwell and exit of one visit")
    #expect(ids[4] == ids[6], "a state inside to a state outside")
    #expect(Set(ids.compactMap { $0 }).count == 5, "five visits: a twice, b twice, c once")
    #expect(book.open.isEmpty == false && book.open["a"] == ids[5])
    var again = VisitBook()
    #expect(try again.visit(of: event(.enter, "a", 10), device: "d") == ids[0], "the same visit, the same id")
    var other = VisitBook()
    #expect(try other.visit(of: event(.enter, "a", 10), device: "e") != ids[0], "another device's visit, another id")
  }

  @Test func anNDJSONBatchNamesEachBadLineAndReadsTheOthers() throws {
    let body = """
      {"device":"a","time":1700000000,"lat":48.85,"lon":2.35}
      {"device":"a","time":1700000010,"lat":98.85,"lon":2.35}

      {"device":"a","time":"2023-11-14T22:13:40Z","lat":48.85,"lon":2.35,"accuracy":-3}
      not json
      {"device":"a","time":"2023-11-14T22:13:50","lat":48.85,"lon":2.35}
      """
    let batch = try FixBatch(body: Array(body.utf8))
    #expect(batch.items.map(\.line) == [1, 2, 4, 5, 6])
    let problems = batch.items.compactMap { item -> FixBatch.Problem? in if case .failure(let p) = item.fix { p } else { nil } }
    #expect(problems.map(\.field) == ["lat", "accuracy", nil, "time"])
    #expect(problems.map(\.line) == [2, 4, 5, 6])
    #expect(problems[0].column == 39)
  }

  @Test func aJSONArrayIsReadAndABrokenOneRefused() throws {
    let batch = try FixBatch(body: Array(#"[{"device":7,"time":1700000000,"lat":1,"lon":2,"cell":"208-1-1-9"}]"#.utf8))
    #expect(batch.items.count == 1)
    #expect((try? batch.items[0].fix.get())?.device == "7")
    #expect((try? batch.items[0].fix.get())?.cell == "208-1-1-9")
    #expect(throws: FixBatch.Problem.self) { try FixBatch(body: Array(#"[{"device":"a"}"#.utf8)) }
  }

  /// The antimeridian posted as 180° is the −180° the track readers make of it, and −0 is 0: the
  /// region rules get a coordinate in range, and the same fix posted either way is one fix.
  @Test func coordinatesAreReadAsTheTrackReadersReadThem() async throws {
    let batch = try FixBatch(body: Array(#"[{"device":"a","time":1700000000,"lat":-0.0,"lon":180},{"device":"a","time":1700000010,"lat":1,"lon":-180}]"#.utf8))
    let fixes = try batch.items.map { try $0.fix.get() }
    #expect(fixes.map(\.longitude) == [-180, -180])
    #expect(fixes[0].latitude.sign == .plus)
    #expect(fixes[0].locationFix.coordinate.longitude == -180)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-antimeridian-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let walks = Walks(state: 5)
    var copy = walks
    let engine = try LiveEngine(settings: EngineSettings(regions: try Self.regions(&copy), regionsFingerprint: "test", platform: .server, seed: 5, dataDirectory: folder))
    #expect(try await engine.ingest(batch).items.allSatisfy { $0.status == .accepted && !$0.repeated })
    let again = try FixBatch(body: Array(#"{"device":"a","time":1700000000,"lat":0,"lon":-180}"#.utf8))
    #expect(try await engine.ingest(again).items.allSatisfy(\.repeated))
  }

  /// A NATS URL the client would not take is refused before anything starts, with what is wrong.
  @Test func natsURLsAreChecked() {
    for good in ["nats://127.0.0.1:4222", "nats://localhost", "tls://nats.example.com:4443", "nats://user:secret@h:4222",
                 "nats://[::1]:4222", "nats://a:4222, nats://b:4222", "NATS://h:1/"] {
      #expect(NATSOptions.problem(in: good) == nil, "\(good)")
    }
    let bad: [(String, String)] = [
      ("127.0.0.1:4222", "no scheme"), ("http://h:4222", "not http://"), ("nats://:4222", "expected a host"),
      ("nats://h:0", "a port 1…65535"), ("nats://h:65536", "a port 1…65535"), ("nats://h:42x", "a port"),
      ("nats://h:4222/path", "nothing after"), ("nats://[::1:4222", "closing ]"), ("nats://a:1,", "empty server"),
      ("nats://a:1,ftp://b", "ftp://b: expected the scheme"), ("", "empty server"),
    ]
    for (url, why) in bad {
      let problem = NATSOptions.problem(in: url)
      #expect(problem?.contains(why) == true, "\(url): \(problem ?? "nil")")
    }
  }

  /// A device's name is one subject token: what a token may not hold is written %XX, and two
  /// names never share a token.
  @Test func deviceNamesAreSubjectTokens() {
    #expect(NATSBridge.token("van-1") == "van-1")
    #expect(NATSBridge.token("fleet.van 1*>%") == "fleet%2Evan%201%2A%3E%25")
    #expect(NATSBridge.token("café") == "café")
    let names = ["a.b", "a%2Eb", "a b", "a%20b", "a\tb", "é"]
    #expect(Set(names.map(NATSBridge.token)).count == names.count)
    for name in names { #expect(!NATSBridge.token(name).contains { $0 == "." || $0 == " " || $0 == "*" || $0 == ">" || $0 == "\t" }) }
  }

  /// A client over its rate waits as long as its debt says, another client is not held back,
  /// and a client with its batches in flight at the cap gets no more in.
  @Test func clientLimitsKeepEachSenderToItsShare() throws {
    let limits = ClientLimits(.init(rate: 100, inFlight: 2))
    let start = ContinuousClock.now
    try limits.admit("a", fixes: 100, now: start)
    limits.finish("a")
    #expect(throws: ClientLimits.Refusal.rate(retryAfter: 1)) { try limits.admit("a", fixes: 1, now: start) }
    try limits.admit("b", fixes: 100, now: start)
    limits.finish("b")
    // Half a second refills 50: a batch of 500 passes, into a debt of 450 fixes (4.5 s).
    try limits.admit("a", fixes: 500, now: start + .milliseconds(500))
    limits.finish("a")
    #expect(throws: ClientLimits.Refusal.rate(retryAfter: 5)) { try limits.admit("a", fixes: 1, now: start + .milliseconds(500)) }
    #expect(throws: ClientLimits.Refusal.rate(retryAfter: 1)) { try limits.admit("a", fixes: 1, now: start + .milliseconds(4_900)) }
    try limits.admit("a", fixes: 1, now: start + .milliseconds(5_100))
    limits.finish("a")
    // In flight: two let in, the third refused until one ends.
    let unlimited = ClientLimits(.init(rate: nil, inFlight: 2))
    try unlimited.admit("c", fixes: 1_000_000)
    try unlimited.admit("c", fixes: 1_000_000)
    #expect(throws: ClientLimits.Refusal.inFlight(limit: 2)) { try unlimited.admit("c", fixes: 1) }
    try unlimited.admit("d", fixes: 1)
    unlimited.finish("c")
    try unlimited.admit("c", fixes: 1)
  }

  @Test func tokensHaveTheirScopesAndOthersNone() throws {
    let tokens = try AccessTokens(text: "# a comment\n0123456789abcdef ingest\nfedcba9876543210XY read,admin\n")
    #expect(tokens.scopes(of: Array("0123456789abcdef".utf8)) == [.ingest])
    #expect(tokens.scopes(of: Array("fedcba9876543210XY".utf8)) == [.read, .admin])
    #expect(tokens.scopes(of: Array("0123456789abcdeg".utf8)) == nil)
    #expect(tokens.scopes(of: Array("0123456789abcdef0".utf8)) == nil)
    #expect(tokens.scopes(of: Array("".utf8)) == nil)
    #expect(throws: AccessTokens.Problem.self) { try AccessTokens(text: "short ingest\n") }
    #expect(throws: AccessTokens.Problem.self) { try AccessTokens(text: "0123456789abcdef write\n") }
    #expect(throws: AccessTokens.Problem.self) { try AccessTokens(text: "# nothing\n") }
  }
}
#endif
