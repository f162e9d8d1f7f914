#if Server
import BackgroundRuntime
import Crypto
import Foundation
import GeoWake
import GeoWakeReports
import Testing

@testable import GeoWakeServer

/// The APNs endpoint's devices against `geowake push`'s model (``PushSimulation``): several
/// devices' requests interleaved in time on a simulated clock, the engine dropped and reopened at
/// random points (a crash), give each device the steps PushSimulation gives its schedule alone,
/// none lost and none repeated.
@Suite struct PushDevicesTests {
  typealias Walks = LiveEngineTests.Walks

  /// A provider's request: when, to which token, and what.
  struct Sent {
    var time: Double
    var token: String
    var headers: [ProviderRequest.Header]
    var body: [UInt8]?
  }

  static func schedule(_ walks: inout Walks, token: String, start: Double) -> [Sent] {
    var t = start
    var out: [Sent] = []
    for i in 0..<(10 + Int(20 * walks.next())) {
      let gap = walks.next()
      t += gap < 0.4 ? 20 * walks.next() : gap < 0.8 ? 300 * walks.next() : 1_800 * walks.next()
      t = (t * 1000).rounded() / 1000
      var headers: [ProviderRequest.Header] = [.init("apns-topic", "com.example.news")]
      var body: [UInt8]? = Array("{\"aps\":{\"alert\":\"news \(i)\"}}".utf8)
      switch Int(10 * walks.next()) {
      case 0...4:
        headers += [.init("apns-push-type", "background"), .init("apns-priority", "5")]
        body = Array("{\"aps\":{\"content-available\":1},\"n\":\(i)}".utf8)
      case 5: headers += [.init("apns-push-type", "alert"), .init("apns-collapse-id", "c\(Int(2 * walks.next()))")]
      case 6: headers += [.init("apns-push-type", "alert"), .init("apns-expiration", "0")]
      case 7: headers += [.init("apns-push-type", "background"), .init("apns-priority", "10")]
      case 8: body = walks.next() < 0.5 ? nil : Array("{\"aps\":".utf8)
      default: headers += [.init("apns-push-type", "alert"), .init("apns-priority", "10")]
      }
      out.append(Sent(time: t, token: token, headers: headers, body: body))
    }
    return out
  }

  static func scenario() -> AppScenario {
    AppScenario(behaviours: [.remoteNotification: HandlerBehaviour(work: 2)], configuration: AppConfiguration(backgroundModes: [.remoteNotification]))
  }

  @Test(arguments: [UInt64(21), 22, 23])
  func equalThePushModelAcrossCrashes(seed: UInt64) async throws {
    var walks = Walks(state: seed)
    let platform = seed == 22 ? Platform.android : Platform.ios
    let start = 1_714_550_400.0
    let digits = Array("0123456789abcdef")
    var tokens: [String] = []
    for _ in 0..<3 { tokens.append(String((0..<64).map { _ in digits[Int(16 * walks.next())] })) }
    var schedules: [String: [Sent]] = [:]
    for token in tokens { schedules[token] = Self.schedule(&walks, token: token, start: start + 100 * walks.next()) }

    // Offline: each device's schedule alone, as geowake push runs it.
    var expected: [String: [String]] = [:]
    for token in tokens {
      let requests = schedules[token]!.map { ProviderRequest(time: $0.time, token: $0.token, headers: $0.headers, payload: $0.body) }
      let run = PushSimulation(
        requests: requests, device: PushDevice(scenario: platform.adapting(Self.scenario())), profile: platform.push, fetchProfile: platform.fetch
      ).run()
      var lines = EventLines()
      expected[token] = PushReport(run, scheduleSource: "").entries.map { lines.line($0, device: token).body }
    }
    #expect(expected.values.joined().contains { $0.contains("\"event\":\"pushRejected\"") })
    #expect(expected.values.joined().contains { $0.contains("\"event\":\"wake\"") })

    // Live: every request and each device's end (an hour after its last request) in time order.
    enum Step { case send(Sent), end(String) }
    var steps: [(Double, Int, Step)] = []
    for token in tokens {
      for sent in schedules[token]! { steps.append((sent.time, steps.count, .send(sent))) }
      steps.append((schedules[token]!.map(\.time).max()! + PushSimulation.runsPast, steps.count, .end(token)))
    }
    steps.sort { ($0.0, $0.1) < ($1.0, $1.1) }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-pushes-\(seed)-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let settings = EngineSettings(
      regions: [], regionsFingerprint: "test", platform: platform, rules: [:], seed: seed, dataDirectory: folder)
    let fallback = PushBook.Assignment(device: "", platform: platform, scenario: Self.scenario())
    func open(_ clock: ServerClock) async throws -> (LiveEngine, PushDevices) {
      let engine = try LiveEngine(settings: settings)
      let devices = try await PushDevices.start(engine: engine, clock: clock, keys: ProviderKeys(), assigned: [:], fallback: fallback, seed: seed, fingerprint: "test")
      return (engine, devices)
    }
    var clock = ServerClock(.simulated(start))
    var (engine, devices) = try await open(clock)
    var crashes = 0
    for (time, _, step) in steps {
      #expect(try await devices.setClock(to: time) == nil)
      switch step {
      case .send(let sent):
        _ = try await devices.send(method: "POST", path: "/3/device/" + sent.token, token: sent.token, headers: sent.headers, body: sent.body)
      case .end(let token): #expect(try await devices.end(device: token) == true)
      }
      if walks.next() < 0.08 || (crashes == 0 && time > steps[steps.count / 2].0) {
        // A crash: a new clock at the start resumes where the store's inputs end.
        clock = ServerClock(.simulated(start))
        (engine, devices) = try await open(clock)
        #expect(clock.now == time)
        crashes += 1
      }
    }
    #expect(crashes > 0)
    let log = try EventLog(dataDirectory: folder)
    var live: [String: [String]] = [:]
    var sequence: [Int64] = []
    for (seq, device, line) in try await log.eventsWithDevice(after: 0, limit: 100_000) {
      sequence.append(seq)
      live[device, default: []].append("{" + line.dropFirst("{\"seq\":\(seq),".count))
    }
    _ = engine
    #expect(sequence == Array(1...Int64(sequence.count)))
    for token in tokens { #expect(live[token] == expected[token], "device \(token.prefix(8))") }

    // The inputs replay only to the devices they were taken by.
    let reopened = try LiveEngine(settings: settings)
    await #expect(throws: StoreError.self) {
      _ = try await PushDevices.start(
        engine: reopened, clock: ServerClock(.simulated(start)), keys: ProviderKeys(), assigned: [:], fallback: fallback, seed: seed,
        fingerprint: "another setup")
    }
  }

  /// A write that fails takes no input: the store refusing writes (`PRAGMA query_only`) for one
  /// request, that request is answered with the store's error and the device and the stream are
  /// then those of the other requests alone, as `geowake push` runs them.
  @Test(arguments: [UInt64(31), 32])
  func aFailedWriteTakesNoInput(seed: UInt64) async throws {
    var walks = Walks(state: seed)
    let platform = Platform.ios
    let start = 1_714_550_400.0
    let token = String((0..<64).map { _ in Array("0123456789abcdef")[Int(16 * walks.next())] })
    let schedule = Self.schedule(&walks, token: token, start: start)
    let failing = 1 + Int(Double(schedule.count - 2) * walks.next())
    let kept = schedule.enumerated().filter { $0.offset != failing }.map(\.element)
    let offline = PushSimulation(
      requests: kept.map { ProviderRequest(time: $0.time, token: $0.token, headers: $0.headers, payload: $0.body) },
      device: PushDevice(scenario: platform.adapting(Self.scenario())), profile: platform.push, fetchProfile: platform.fetch
    ).run()
    var lines = EventLines()
    let expected = PushReport(offline, scheduleSource: "").entries.map { lines.line($0, device: token).body }

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-pushes-fail-\(seed)-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let settings = EngineSettings(regions: [], regionsFingerprint: "test", platform: platform, rules: [:], seed: seed, dataDirectory: folder)
    let engine = try LiveEngine(settings: settings)
    let devices = try await PushDevices.start(
      engine: engine, clock: ServerClock(.simulated(start)), keys: ProviderKeys(),
      assigned: [:], fallback: PushBook.Assignment(device: "", platform: platform, scenario: Self.scenario()), seed: seed, fingerprint: "test")
    for (k, sent) in schedule.enumerated() {
      #expect(try await devices.setClock(to: sent.time) == nil)
      func send() async throws -> PushBook.Answer {
        try await devices.send(method: "POST", path: "/3/device/" + token, token: token, headers: sent.headers, body: sent.body)
      }
      if k == failing {
        try await engine.executeOnStore("PRAGMA query_only=ON")
        await #expect(throws: StoreError.self) { _ = try await send() }
        try await engine.executeOnStore("PRAGMA query_only=OFF")
      } else {
        _ = try await send()
      }
    }
    // Ended as geowake push ends a schedule: an hour past its last request.
    #expect(try await devices.setClock(to: schedule.last!.time + PushSimulation.runsPast) == nil)
    #expect(try await devices.end(device: token) == true)
    let log = try EventLog(dataDirectory: folder)
    let live = try await log.eventsWithDevice(after: 0, limit: 100_000).map { seq, _, line in "{" + line.dropFirst("{\"seq\":\(seq),".count) }
    _ = engine
    #expect(live == expected)
  }

  /// A provider token signed ES256 as Apple's libraries sign it, against the keys given.
  static func jwt(key: P256.Signing.PrivateKey, keyID: String, team: String, issuedAt: Int, tamper: Bool = false) throws -> String {
    func base64URL(_ data: Data) -> String {
      data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
    }
    let header = base64URL(Data("{\"alg\":\"ES256\",\"kid\":\"\(keyID)\"}".utf8))
    let claims = base64URL(Data("{\"iss\":\"\(team)\",\"iat\":\(issuedAt)}".utf8))
    let signature = try key.signature(for: Data("\(header).\(claims)".utf8))
    let signed = tamper ? base64URL(Data("{\"iss\":\"\(team)\",\"iat\":\(issuedAt + 1)}".utf8)) : claims
    return "bearer \(header).\(signed).\(base64URL(signature.rawRepresentation))"
  }

  @Test func providerTokensAreVerifiedAgainstTheKeysGiven() throws {
    let key = P256.Signing.PrivateKey()
    let other = P256.Signing.PrivateKey()
    var keys = ProviderKeys()
    try keys.add(team: "TEAM123456", keyID: "KEY1234567", publicKey: key.publicKey)
    #expect(throws: ProviderKeys.Problem.self) { try keys.add(team: "TEAM123456", keyID: "KEY1234567", publicKey: other.publicKey) }
    let now = 1_714_550_400
    #expect(keys.problem(with: try Self.jwt(key: key, keyID: "KEY1234567", team: "TEAM123456", issuedAt: now)) == nil)
    #expect(keys.problem(with: try Self.jwt(key: other, keyID: "KEY1234567", team: "TEAM123456", issuedAt: now))?.contains("does not verify") == true)
    #expect(keys.problem(with: try Self.jwt(key: key, keyID: "KEY1234567", team: "TEAM123456", issuedAt: now, tamper: true))?.contains("does not verify") == true)
    #expect(keys.problem(with: try Self.jwt(key: key, keyID: "OTHERKEY00", team: "TEAM123456", issuedAt: now))?.contains("not one of the provider keys") == true)
    #expect(keys.problem(with: try Self.jwt(key: key, keyID: "KEY1234567", team: "OTHERTEAM0", issuedAt: now))?.contains("not one of the provider keys") == true)
    #expect(keys.problem(with: "bearer a.b") != nil)
    #expect(keys.problem(with: "basic abc") != nil)

    // A .p8 file as Apple hands it out.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-keys-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try key.pemRepresentation.write(toFile: folder + "/AuthKey.p8", atomically: true, encoding: .utf8)
    try "not a key".write(toFile: folder + "/bad.p8", atomically: true, encoding: .utf8)
    var fromFile = ProviderKeys()
    try fromFile.add(argument: "TEAM123456:KEY1234567:\(folder)/AuthKey.p8")
    #expect(fromFile.problem(with: try Self.jwt(key: key, keyID: "KEY1234567", team: "TEAM123456", issuedAt: now)) == nil)
    #expect(throws: ProviderKeys.Problem.self) { try fromFile.add(argument: "TEAM:KEY:\(folder)/bad.p8") }
    #expect(throws: ProviderKeys.Problem.self) { try fromFile.add(argument: "TEAM:\(folder)/AuthKey.p8") }
  }
}
#endif
