import BackgroundRuntime
import Foundation
import SavedState
import SeededRandom
import Testing

/// One device, one clock: what happens to the app through one input is what every later input
/// finds, and a run cut anywhere — into calls, or through a saved state — is the same run.
@Suite("Device")
struct DeviceTests {
  static let t0 = 1_714_550_400.0

  static func silent(_ time: Double, id: Int) -> ProviderRequest {
    ProviderRequest(
      time: time, token: String(repeating: "ab", count: 32),
      headers: [
        .init("apns-push-type", "background"), .init("apns-priority", "5"), .init("apns-topic", "com.example.news"),
        .init("apns-id", String(format: "00000000-0000-4000-8000-%012X", id)),
      ],
      payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
  }

  static func scenario(location: HandlerBehaviour, sessions: [(start: Double, duration: Double)] = [], forceQuits: [Double] = [])
    -> AppScenario
  {
    AppScenario(
      seed: 3, behaviours: [.location: location, .remoteNotification: HandlerBehaviour(work: 2), .fetch: HandlerBehaviour(work: 3)],
      sessions: sessions, forceQuits: forceQuits,
      configuration: AppConfiguration(backgroundModes: [.location, .remoteNotification, .fetch], fetchPolicy: .minimum))
  }

  static func run(_ device: inout Device, wakes: [Double], until end: Double) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    for (k, t) in wakes.enumerated() {
      device.run(until: t - 1, into: &events)
      device.wake(forLocationAt: t, label: "enter r\(k)")
    }
    device.finish(at: end, into: &events)
    return events
  }

  /// A location handler the watchdog kills leaves the app not running: the next push launches it
  /// from scratch, where after a handler that returned in time it resumes the suspended app.
  @Test func aWatchdogKillChangesWhatTheNextPushFinds() {
    let pushes = [Self.silent(Self.t0, id: 1), Self.silent(Self.t0 + 1_200, id: 2)]
    func secondWake(location: HandlerBehaviour) -> (RuntimeEvent?, [DeviceEvent]) {
      var device = Device(.init(scenario: Self.scenario(location: location)), start: Self.t0, pushes: pushes)
      let events = Self.run(&device, wakes: [Self.t0 + 600], until: Self.t0 + 3_600)
      let wake = events.lazy.compactMap { if case .app(let r) = $0, r.kind == .wake, r.facts == .wake(label: "00000000-0000-4000-8000-000000000002", budget: 30) { r } else { nil } }.first
      return (wake, events)
    }
    let (killed, killedEvents) = secondWake(location: HandlerBehaviour(work: 15))
    #expect(killedEvents.contains { if case .app(let r) = $0 { r.kind == .terminated && r.reason == .location } else { false } })
    #expect(killed?.stateBefore == .notRunning)
    #expect(killed?.detail.hasPrefix("launched") == true)
    let (returned, _) = secondWake(location: HandlerBehaviour(work: 4))
    #expect(returned?.stateBefore == .suspended)
    #expect(returned?.detail.hasPrefix("resumed") == true)
  }

  /// After a force-quit, pushes and fetches no longer launch the app (each says so), location
  /// events still do; once the user opens the app, pushes wake it again.
  @Test func aForceQuitStopsPushesAndFetchesUntilTheUserOpensTheApp() throws {
    let quit = Self.t0 + 1_000
    let open = Self.t0 + 5_000
    let pushes = [Self.silent(quit + 400, id: 1), Self.silent(quit + 1_800, id: 2), Self.silent(open + 600, id: 3)]
    let history = (0..<10).map { UserLaunch(time: Self.t0 - 86_400 * Double(10 - $0) + 3_600, duration: 60) }
    let feed = try ContentFeed.daytimeNews(from: Self.t0 - 11 * 86_400, days: 14, utcOffset: 0)
    var device = Device(
      .init(
        scenario: Self.scenario(location: HandlerBehaviour(work: 3), sessions: [(open, 60)], forceQuits: [quit]),
        fetching: .init(strategy: .fixed(interval: 900), feed: feed)),
      start: Self.t0, pushes: pushes, launches: history)
    let events = Self.run(&device, wakes: [quit + 900], until: open + 3_600)
    let steps = events.compactMap { if case .app(let r) = $0 { r } else { nil } }
    let between = steps.filter { $0.time > quit && $0.time < open }
    #expect(!between.contains { $0.kind == .wake && ($0.reason == .remoteNotification || $0.reason == .fetch) })
    #expect(between.contains { $0.kind == .wake && $0.reason == .location && $0.stateBefore == .notRunning })
    #expect(between.count { $0.kind == .lost && $0.reason == .remoteNotification } == 2)
    #expect(between.contains { $0.kind == .lost && $0.reason == .fetch })
    let outcomes = PushOutcome.fold(events.compactMap { if case .push(let p) = $0 { p } else { nil } })
    #expect(outcomes.map(\.app) == [.notLaunched, .notLaunched, .completed])
    #expect(outcomes[0].detail.contains("not launched: the app was force-quit"))
    let fetches = events.compactMap { if case .fetch(let f) = $0 { f } else { nil } }
    #expect(fetches.contains { $0.kind == .fetchLost && $0.time > quit && $0.time < open })
    #expect(steps.contains { $0.kind == .wake && $0.reason == .remoteNotification && $0.time > open })
  }

  /// Every run, however it is cut into calls and saved and restored on the way, gives the events
  /// of one uninterrupted run: random devices with every input.
  @Test(arguments: UInt64(1)...20)
  func cutAndRestoredAnywhereItIsOneRun(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let span = 6 * 3_600.0
    var sessions: [(start: Double, duration: Double)] = []
    var t = Self.t0 + random.uniform(0...1_800)
    while t < Self.t0 + span {
      sessions.append((t, random.uniform(30...400)))
      t += sessions[sessions.count - 1].duration + random.uniform(600...4_000)
    }
    let quits = (0..<Int(random.next(below: 3))).map { _ in Self.t0 + random.uniform(0...span) }.sorted()
    var scenario = Self.scenario(location: DevicePopulation.behaviour(&random), sessions: sessions, forceQuits: quits)
    scenario.behaviours[.remoteNotification] = DevicePopulation.behaviour(&random)
    scenario.behaviours[.fetch] = DevicePopulation.behaviour(&random)
    let pushes = (0..<Int(5 + random.next(below: 30))).map { _ in DevicePopulation.request(at: Self.t0 + random.uniform(0...span), &random) }
    let launches = (0..<Int(20 + random.next(below: 20))).map { _ in
      UserLaunch(time: Self.t0 - 5 * 86_400 + random.uniform(0...(5 * 86_400 + span)), duration: random.uniform(20...200))
    }
    let conditions = DeviceConditions((0..<4).map { _ in
      let from = Self.t0 + random.uniform(0...span)
      return .init(start: from, end: from + random.uniform(60...2_400), condition: [.offline, .lowPowerMode, .backgroundRefreshOff][Int(random.next(below: 3))])
    })
    let feed = try ContentFeed.daytimeNews(from: Self.t0 - 6 * 86_400, days: 8, utcOffset: 0)
    let configuration = Device.Configuration(
      scenario: scenario, conditions: conditions, fetching: .init(feed: feed))
    let wakes = (0..<Int(random.next(below: 20))).map { _ in Self.t0 + random.uniform(0...span) }.sorted()

    var whole = Device(configuration, start: Self.t0, pushes: pushes, launches: launches)
    let expected = Self.run(&whole, wakes: wakes, until: Self.t0 + span)
    #expect(zip(expected, expected.dropFirst()).allSatisfy { $0.time <= $1.time })
    #expect(expected.contains { if case .push = $0 { true } else { false } })

    // The same inputs with the clock run to random times, saved and restored through JSON.
    var device = Device(configuration, start: Self.t0, pushes: pushes, launches: launches)
    var events: [DeviceEvent] = []
    var pendingWakes = wakes[...]
    var clock = Self.t0
    while clock < Self.t0 + span {
      clock += random.uniform(1...1_500)
      while let w = pendingWakes.first, w - 1 <= clock {
        device.run(until: w - 1, into: &events)
        device.wake(forLocationAt: w, label: "enter r\(wakes.count - pendingWakes.count)")
        pendingWakes = pendingWakes.dropFirst()
      }
      device.run(until: min(clock, Self.t0 + span), into: &events)
      if random.next(below: 3) == 0 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let saved = try encoder.encode(device.snapshot())
        let snapshot = try JSONDecoder().decode(Device.Snapshot.self, from: saved)
        #expect(snapshot == device.snapshot())
        device = try Device(restoring: snapshot, configuration, pushes: pushes, launches: launches)
        #expect(try encoder.encode(device.snapshot()) == saved)
      }
    }
    device.finish(at: Self.t0 + span, into: &events)
    #expect(events == expected, "seed \(seed): \(events.count) events, \(expected.count) uninterrupted")
    #expect(device.pushTally == whole.pushTally)
    #expect(device.fetchTally == whole.fetchTally)
    #expect(device.runtimeSummary == whole.runtimeSummary)
    #expect(device.trackRecord == whole.trackRecord)
  }

  /// A live push is answered at once (APNs' status and apns-id) and what the device does with it
  /// follows; the answers are those of the same push sent from a schedule.
  @Test func aLivePushIsTheScheduledOne() {
    let pushes = (0..<12).map { Self.silent(Self.t0 + Double($0) * 240, id: $0 + 1) }
    let configuration = Device.Configuration(scenario: Self.scenario(location: HandlerBehaviour(work: 3)))
    var scheduled = Device(configuration, start: Self.t0, pushes: pushes)
    var expected: [DeviceEvent] = []
    scheduled.finish(at: Self.t0 + 4 * 3_600, into: &expected)

    var live = Device(configuration, start: Self.t0)
    var events: [DeviceEvent] = []
    for push in pushes {
      let answer = live.send(push, into: &events)
      #expect(answer.kind == .accepted && answer.status == 200 && answer.apnsID != nil)
    }
    live.finish(at: Self.t0 + 4 * 3_600, into: &events)
    #expect(events == expected)
    #expect(live.pushTally.count(.held) + live.pushTally.count(.delivered) + live.pushTally.count(.dropped) + live.pushTally.count(.delayed) == 12)
  }

  /// A saved device is restored only with its own configuration and inputs, and never once it
  /// has finished; a damaged snapshot is refused, not trusted.
  @Test func otherInputsAndDamagedSnapshotsAreRefused() throws {
    let pushes = (0..<5).map { Self.silent(Self.t0 + Double($0) * 600, id: $0 + 1) }
    let configuration = Device.Configuration(scenario: Self.scenario(location: HandlerBehaviour(work: 3)))
    var device = Device(configuration, start: Self.t0, pushes: pushes)
    var events: [DeviceEvent] = []
    device.run(until: Self.t0 + 1_000, into: &events)
    let snapshot = device.snapshot()
    #expect(throws: Never.self) { try Device(restoring: snapshot, configuration, pushes: pushes) }
    #expect(throws: SnapshotError.self) { try Device(restoring: snapshot, configuration, pushes: Array(pushes.dropLast())) }
    var other = configuration
    other.scenario.profile = .ios7
    #expect(throws: SnapshotError.self) { try Device(restoring: snapshot, other, pushes: pushes) }
    other = configuration
    other.push = .iosDocumented
    #expect(throws: SnapshotError.self) { try Device(restoring: snapshot, other, pushes: pushes) }
    other = configuration
    other.fetching = .init(feed: ContentFeed([]))
    #expect(throws: SnapshotError.self) { try Device(restoring: snapshot, other, pushes: pushes) }

    // Damaged fields: a time that is not finite, a count out of range.
    let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
    for (from, to) in [("\"taken\":[0,0,0,", "\"taken\":[0,0,0,9"), ("\"nextWorkID\":", "\"nextWorkID\":-")] {
      let damaged = json.replacingOccurrences(of: from, with: to)
      #expect(damaged != json, "the snapshot has \(from)")
      let decoded = try? JSONDecoder().decode(Device.Snapshot.self, from: Data(damaged.utf8))
      if let decoded { #expect(throws: SnapshotError.self) { try Device(restoring: decoded, configuration, pushes: pushes) } }
    }

    device.finish(at: Self.t0 + 7_200, into: &events)
    #expect(throws: SnapshotError.self) { try Device(restoring: device.snapshot(), configuration, pushes: pushes) }
  }
}
