import BackgroundRuntime
import Foundation
import GeoWake
import SeededRandom
import Testing

/// Android's app runtime on a device: receivers, FCM and jobs with their limits, the standby
/// buckets' quotas, Doze's maintenance windows, the stopped state (docs/platform-rules.md).
@Suite("Android runtime")
struct AndroidRuntimeTests {
  static let t0 = 1_714_550_400.0
  static let day = 86_400.0
  static let rules = AndroidPowerRules.android13

  /// A message in the schedule's APNs form: a data message (content-available, push type
  /// background) at `priority` (10: FCM's high priority), or a notification message (an alert).
  static func message(_ time: Double, id: Int, priority: Int = 10, alert: Bool = false) -> ProviderRequest {
    ProviderRequest(
      time: time, token: String(repeating: "ab", count: 32),
      headers: [
        .init("apns-push-type", alert ? "alert" : "background"), .init("apns-priority", "\(priority)"),
        .init("apns-topic", "com.example.news"), .init("apns-id", String(format: "00000000-0000-4000-8000-%012X", id)),
      ],
      payload: Array((alert ? #"{"aps":{"alert":"news"}}"# : #"{"aps":{"content-available":1}}"#).utf8))
  }

  static func highPriorityData(_ time: Double, id: Int) -> ProviderRequest { message(time, id: id, priority: 10) }

  static func scenario(location: HandlerBehaviour = HandlerBehaviour(work: 2), sessions: [(start: Double, duration: Double)] = [], forceQuits: [Double] = [])
    -> AppScenario
  {
    Platform.android.adapting(AppScenario(
      seed: 5, behaviours: [.location: location, .remoteNotification: HandlerBehaviour(work: 2), .fetch: HandlerBehaviour(work: 20)],
      sessions: sessions, forceQuits: forceQuits, configuration: AppConfiguration(fetchPolicy: .minimum)))
  }

  static func configuration(_ scenario: AppScenario, feed: ContentFeed? = nil) -> Device.Configuration {
    Device.Configuration(
      scenario: scenario, push: Platform.android.push, fetch: Platform.android.fetch, fetching: feed.map { .init(feed: $0) })
  }

  static func steps(_ events: [DeviceEvent]) -> [RuntimeEvent] { events.compactMap { if case .app(let r) = $0 { r } else { nil } } }
  static func pushes(_ events: [DeviceEvent]) -> [PushEvent] { events.compactMap { if case .push(let p) = $0 { p } else { nil } } }

  /// A geofence transition reaches the receiver with 10 s; goAsync keeps it to 60 s; past the
  /// limit the ANR kills the process. A job runs up to 10 min.
  @Test func receiversAndJobsHaveAndroidsLimits() throws {
    func run(_ location: HandlerBehaviour) -> [RuntimeEvent] {
      var device = Device(Self.configuration(Self.scenario(location: location)), start: Self.t0)
      var events: [DeviceEvent] = []
      device.wake(forLocationAt: Self.t0 + 100, label: "enter depot")
      device.finish(at: Self.t0 + 1_000, into: &events)
      return Self.steps(events)
    }
    let quick = run(HandlerBehaviour(work: 3))
    let wake = try #require(quick.first { $0.kind == .wake })
    #expect(wake.budgetRemaining == 10 && wake.lifecycle == .android)
    #expect(wake.detail == "a geofence transition broadcast to the app's receiver (enter depot): the process started, 10 s to finish")
    let anr = run(HandlerBehaviour(work: 15))
    let killed = try #require(anr.first { $0.kind == .terminated })
    #expect(killed.time == Self.t0 + 110)
    #expect(killed.detail.hasPrefix("ANR: the broadcast receiver ran past its limit"))
    let async = run(HandlerBehaviour(work: 4, backgroundTask: 70, endsTaskOnExpiration: false))
    #expect(async.contains { $0.kind == .budgetExtended && $0.budgetRemaining == 60 })
    #expect(async.first { $0.kind == .terminated }?.time == Self.t0 + 160)

    // A fetch is a job with 10 min.
    let feed = try ContentFeed.daytimeNews(from: Self.t0 - Self.day, days: 3, utcOffset: 0)
    var device = Device(Self.configuration(Self.scenario(), feed: feed), start: Self.t0)
    var events: [DeviceEvent] = []
    device.finish(at: Self.t0 + 3_600, into: &events)
    let job = try #require(Self.steps(events).first { $0.kind == .wake && $0.reason == .fetch })
    #expect(job.budgetRemaining == 600)
    #expect(job.detail.contains("a WorkManager job (background fetch)"))
  }

  /// In the frequent bucket (the app last used a day and a half ago) the eleventh high-priority
  /// message of a day arrives at normal priority; in the active bucket none is downgraded.
  @Test func theBucketsQuotaLimitsHighPriorityMessages() throws {
    func notes(lastUse: Double) -> [PushEvent] {
      // The user's last launch, before the device's start, sets the bucket.
      let launches = [UserLaunch(time: Self.t0 - lastUse, duration: 60)]
      let messages = (0..<15).map { Self.highPriorityData(Self.t0 + Double($0) * 600, id: $0 + 1) }
      let feed = try! ContentFeed.daytimeNews(from: Self.t0 - 3 * Self.day, days: 5, utcOffset: 0)
      var scenario = Self.scenario()
      scenario.configuration.fetchPolicy = .never
      var device = Device(Self.configuration(scenario, feed: feed), start: Self.t0, pushes: messages, launches: launches)
      var events: [DeviceEvent] = []
      device.finish(at: Self.t0 + 4 * 3_600, into: &events)
      return Self.pushes(events)
    }
    let frequent = notes(lastUse: 1.5 * Self.day)
    let downgraded = frequent.filter { $0.notes.all.contains(.highPriorityQuota(bucket: "frequent", perDay: 10)) }
    #expect(downgraded.map(\.request) == Array(10..<15))
    let active = notes(lastUse: 3_600)
    #expect(!active.contains { $0.notes.all.contains { if case .highPriorityQuota = $0 { true } else { false } } })
    #expect(active.count { $0.kind == .delivered } == 15)
  }

  /// Overnight, with the screen off and the device still, Doze holds jobs and normal-priority
  /// messages to its maintenance windows; a high-priority message is delivered at once.
  /// Doze's cycles, walked one by one (the oracle), and as the rules compute them: the same at
  /// any time, however long the device has been quiet — a spell of centuries (a clock set back)
  /// is answered at once rather than walked.
  @Test func dozeAgreesWithItsCyclesWalkedOneByOne() {
    func walked(_ time: Double, quiet: Double) -> (idle: Bool, windowAt: Double?) {
      let r = Self.rules
      var t = quiet + r.idleEntryDelay
      guard time >= t else { return (false, nil) }
      var (idle, window) = (r.firstIdlePeriod, r.firstMaintenanceWindow)
      while true {
        if time < t + idle { return (true, t + idle) }
        if time < t + idle + window { return (false, nil) }
        t += idle + window
        (idle, window) = (min(r.maximumIdlePeriod, idle * r.idleFactor), min(r.maximumMaintenanceWindow, window * r.maintenanceFactor))
      }
    }
    var random = SeededGenerator(seed: 52)
    for _ in 0..<2_000 {
      let quiet = Self.t0 - random.unit() * 400 * Self.day
      let time = Self.t0 + random.unit() * Self.day
      let (expected, got) = (walked(time, quiet: quiet), Self.rules.doze(at: time, quietSince: quiet))
      #expect(expected.idle == got.idle)
      // Cycles stepped over in one product land within a millisecond of the sum walked (the
      // rounding of thousands of additions of times near 1.7·10⁹ s).
      #expect(abs((expected.windowAt ?? 0) - (got.windowAt ?? 0)) < 1e-3)
    }
    // A device quiet since the year 40, asked about 2018: answered, and in a cycle.
    let ancient = -61_886_000_000.0
    let answer = Self.rules.doze(at: 1_543_460_000, quietSince: ancient)
    #expect(answer.idle == (answer.windowAt != nil))
    #expect(answer.windowAt.map { $0 > 1_543_460_000 && $0 <= 1_543_460_000 + Self.rules.maximumIdlePeriod } ?? true)
    // The schedule the push fuzz target found: normal-priority data messages, one dated in the
    // year 40, through FCM and Doze. It ends, with an outcome for each.
    let schedule = [Self.message(ancient, id: 1, priority: 5), Self.message(1_543_460_000, id: 2, priority: 5), Self.message(1_543_461_800, id: 3, priority: 5)]
    let run = PushSimulation(
      requests: schedule, device: PushDevice(scenario: Self.scenario()), profile: Platform.android.push, fetchProfile: Platform.android.fetch
    ).run()
    #expect(run.outcomes.count == 3)
    // And on iOS, with a push dated 4036 after pushes of 2018 (found the same way): the
    // keep-alives between them, which do nothing, are stepped over rather than walked.
    let apart = [Self.message(1_543_459_200, id: 1, priority: 5), Self.message(64_403_000_000, id: 2, priority: 5), Self.message(1_543_461_000, id: 3, priority: 5)]
    let ios = PushSimulation(requests: apart, device: PushDevice(scenario: AppScenario(
      behaviours: [.remoteNotification: HandlerBehaviour(work: 2)], configuration: AppConfiguration(backgroundModes: [.remoteNotification])))).run()
    #expect(ios.outcomes.count == 3)
  }

  @Test func dozeHoldsJobsAndNormalMessagesToItsWindows() throws {
    let evening = Self.t0 + 20 * 3_600
    let night = [Self.message(evening + 4 * 3_600, id: 1, priority: 5), Self.highPriorityData(evening + 4 * 3_600 + 60, id: 2)]
    let feed = try ContentFeed.daytimeNews(from: Self.t0 - Self.day, days: 4, utcOffset: 0)
    let scenario = Self.scenario(sessions: [(evening, 300)])
    var device = Device(Self.configuration(scenario, feed: feed), start: Self.t0, pushes: night)
    var events: [DeviceEvent] = []
    device.finish(at: evening + 12 * 3_600, into: &events)
    let quiet = evening + 300
    // Every job and every normal-priority delivery after the session falls outside an idle period.
    let jobs = events.compactMap { if case .fetch(let f) = $0, f.kind == .fetchRequested, f.time > quiet { f } else { nil } }
    #expect(jobs.count >= 4)
    for job in jobs { #expect(!Self.rules.doze(at: job.time, quietSince: quiet).idle, "a job at \(job.time - quiet) s into the night") }
    #expect(jobs.contains { if case .decision(let d) = $0.facts, case .job(_, _, .doze?) = d.basis { true } else { false } })
    let gaps = zip(jobs, jobs.dropFirst()).map { $1.time - $0.time }
    #expect(gaps.contains { $0 > 3 * 3_600 }, "idle periods grow to hours: \(gaps)")
    let steps = Self.pushes(events)
    let normal = try #require(steps.first { $0.request == 0 && $0.kind == .delayed })
    #expect(normal.notes.all.contains(.deferredByDoze) && !Self.rules.doze(at: normal.time, quietSince: quiet).idle)
    #expect(Self.rules.doze(at: night[0].time, quietSince: quiet).idle, "the message is sent in an idle period")
    let high = try #require(steps.first { $0.request == 1 && ($0.kind == .delivered || $0.kind == .delayed) })
    #expect(high.kind == .delivered && high.time == night[1].time)
  }

  /// A force-stopped app gets nothing — no geofence transition, no message, no job — until the
  /// user opens it; then everything reaches it again.
  @Test func aForceStoppedAppGetsNothingUntilOpened() throws {
    let stop = Self.t0 + 600
    let open = Self.t0 + 7_200
    let scenario = Self.scenario(sessions: [(open, 60)], forceQuits: [stop])
    let messages = [Self.highPriorityData(stop + 300, id: 1), Self.highPriorityData(open + 600, id: 2)]
    var device = Device(Self.configuration(scenario), start: Self.t0, pushes: messages)
    var events: [DeviceEvent] = []
    device.run(until: stop + 100, into: &events)
    device.wake(forLocationAt: stop + 200, label: "enter depot")
    device.run(until: open + 100, into: &events)
    device.wake(forLocationAt: open + 200, label: "exit depot")
    device.finish(at: open + 3_600, into: &events)
    let steps = Self.steps(events)
    #expect(steps.contains { $0.kind == .lost && $0.reason == .location && $0.time == stop + 200 })
    #expect(steps.first { $0.kind == .lost && $0.reason == .location }?.detail.contains("force-stopped") == true)
    #expect(steps.contains { $0.kind == .lost && $0.reason == .remoteNotification && $0.time == stop + 300 })
    #expect(steps.contains { $0.kind == .wake && $0.reason == .location && $0.time == open + 200 })
    #expect(steps.contains { $0.kind == .wake && $0.reason == .remoteNotification && $0.time == open + 600 })
  }

  /// Samsung's battery manager: an app unused for 3 days is asleep (the restricted bucket: a job
  /// a day, rare's message quota), one unused for 16 days in deep sleep: a geofence transition, a
  /// message, a job reach it no more until the user opens it, each lost with the reason; then
  /// everything reaches it again, and the next deep sleep is 16 days after that use. The same
  /// device on AOSP's rules never sleeps so.
  @Test func samsungPutsUnusedAppsToSleepAndDeepSleep() throws {
    let samsung = Platform.androidSamsung
    #expect(samsung.runtime.power?.bucket(idleFor: 3.5 * Self.day) == .restricted)
    #expect(Platform.android.runtime.power?.bucket(idleFor: 3.5 * Self.day) == .rare)
    let unused = try #require(samsung.runtime.power?.deepSleepAfter)
    #expect(unused == 16 * Self.day)
    let open = Self.t0 + 20 * Self.day
    func run(_ platform: Platform) -> [DeviceEvent] {
      let scenario = platform.adapting(AppScenario(
        seed: 5, behaviours: [.location: HandlerBehaviour(work: 2), .remoteNotification: HandlerBehaviour(work: 2), .fetch: HandlerBehaviour(work: 20)],
        sessions: [(Self.t0, 60), (open, 60)], configuration: AppConfiguration(fetchPolicy: .minimum)))
      let feed = try! ContentFeed.daytimeNews(from: Self.t0 - Self.day, days: 40, utcOffset: 0)
      let messages = [Self.highPriorityData(Self.t0 + 17 * Self.day, id: 1), Self.highPriorityData(open + 600, id: 2)]
      var device = Device(
        Device.Configuration(scenario: scenario, push: platform.push, fetch: platform.fetch, fetching: .init(feed: feed)), start: Self.t0,
        pushes: messages)
      var events: [DeviceEvent] = []
      device.run(until: Self.t0 + 18 * Self.day, into: &events)
      device.wake(forLocationAt: Self.t0 + 18 * Self.day, label: "enter depot")
      device.run(until: open + 1_000, into: &events)
      device.wake(forLocationAt: open + 1_000, label: "exit depot")
      device.finish(at: open + 2 * Self.day, into: &events)
      return events
    }
    let events = run(samsung)
    let steps = Self.steps(events)
    let sleep = try #require(steps.first { $0.kind == .forceQuit })
    #expect(sleep.time == Self.t0 + 60 + unused, "16 days after the first session ended")
    #expect(sleep.detail.contains("deep sleep, unused for 16 days"))
    let lost = steps.filter { $0.kind == .lost }
    #expect(lost.contains { $0.reason == .location && $0.time == Self.t0 + 18 * Self.day && $0.detail.contains("deep sleep") })
    #expect(lost.contains { $0.reason == .remoteNotification && $0.time == Self.t0 + 17 * Self.day })
    #expect(lost.allSatisfy { $0.time > sleep.time && $0.time < open && !$0.detail.contains("force-stopped") })
    let outcomes = PushOutcome.fold(Self.pushes(events))
    #expect(outcomes[0].notes.all.contains(.notLaunchedInDeepSleep) && outcomes[0].detail.contains("deep sleep"), "\(outcomes[0].detail)")
    // No job runs while it sleeps deeply; after the user opens it, jobs, messages and
    // transitions reach it again.
    let jobs = events.compactMap { if case .fetch(let f) = $0, f.kind == .fetchCompleted { f.time } else { nil } }
    #expect(!jobs.contains { $0 > sleep.time && $0 < open })
    #expect(jobs.contains { $0 > open })
    let refused = events.compactMap { if case .fetch(let f) = $0, f.kind == .fetchLost, f.time > sleep.time, f.time < open { f } else { nil } }
    #expect(!refused.isEmpty && refused.allSatisfy { $0.facts == .lostInDeepSleep })
    #expect(steps.contains { $0.kind == .wake && $0.reason == .location && $0.time == open + 1_000 })
    #expect(steps.contains { $0.kind == .wake && $0.reason == .remoteNotification && $0.time == open + 600 })
    #expect(steps.count { $0.kind == .forceQuit } == 1, "the next deep sleep is 16 days after the second use")
    // Between the two, asleep (3 days unused): one job a day at most.
    let asleep = jobs.filter { $0 > Self.t0 + 3 * Self.day + 60 && $0 < sleep.time }
    #expect(!asleep.isEmpty)
    for day in 3..<16 {
      let from = Self.t0 + Double(day) * Self.day
      #expect(asleep.count { $0 >= from && $0 < from + Self.day } <= 1, "day \(day): \(asleep.count { $0 >= from && $0 < from + Self.day }) jobs")
    }
    // AOSP: no deep sleep, the transition and the message reach the app.
    let aosp = Self.steps(run(.android8))
    #expect(!aosp.contains { $0.kind == .forceQuit || $0.kind == .lost })
    #expect(aosp.contains { $0.kind == .wake && $0.reason == .location && $0.time == Self.t0 + 18 * Self.day })
  }

  /// FCM: a notification message is shown by the system without waking the app; a data message
  /// wakes it; while offline every message is kept (collapsible ones coalesced) and all arrive
  /// when the device is back.
  @Test func fcmStoresEveryMessageAndWakesOnlyForData() throws {
    let offline = DeviceConditions([.init(start: Self.t0 + 1_000, end: Self.t0 + 5_000, condition: .offline)])
    let messages = [
      Self.message(Self.t0 + 100, id: 1, alert: true), Self.highPriorityData(Self.t0 + 200, id: 2),
      Self.highPriorityData(Self.t0 + 2_000, id: 3), Self.message(Self.t0 + 3_000, id: 4, priority: 5), Self.highPriorityData(Self.t0 + 4_000, id: 5),
    ]
    var configuration = Self.configuration(Self.scenario(sessions: [(Self.t0 + 900, 30)]))
    configuration.conditions = offline
    var device = Device(configuration, start: Self.t0, pushes: messages)
    var events: [DeviceEvent] = []
    device.finish(at: Self.t0 + 10_000, into: &events)
    let outcomes = PushOutcome.fold(Self.pushes(events))
    #expect(outcomes[0].app == .shown && outcomes[0].detail.contains("notification message"))
    #expect(outcomes[1].app == .completed)
    // Back online at +5,000 s: the stored high-priority messages arrive; the normal one, in Doze
    // by then (the screen went off at +930 s), waits for a maintenance window.
    for k in [2, 4] { #expect(outcomes[k].deliveredAt == Self.t0 + 5_000 && outcomes[k].detail.hasPrefix("stored by FCM"), "\(outcomes[k].detail)") }
    #expect(outcomes[3].detail.hasPrefix("stored by FCM while the device was offline; normal priority: held by Doze"))
    let window = try #require(outcomes[3].deliveredAt)
    #expect(window > Self.t0 + 5_000 && !Self.rules.doze(at: window, quietSince: Self.t0 + 930).idle)
    #expect(Self.steps(events).count { $0.kind == .wake || $0.kind == .deliveredWhileRunning } >= 3)
  }

  /// Every preset holds the profiles of its own platform, by name and lifecycle; an app's scenario
  /// takes the platform's runtime unless it is of the platform's lifecycle.
  @Test func everyPlatformHoldsItsOwnRules() {
    #expect(Platform.all.map(\.name) == Platform.Name.allCases)
    for platform in Platform.all {
      #expect(platform.regionMonitoring.name == platform.name.rawValue)
      switch platform.name.family {
      case .ios, .server:
        #expect(platform.runtime.lifecycle == .ios && platform.push.delivery == .apns && platform.fetch.scheduler == .launchHabits)
      case .android:
        #expect(platform.runtime.lifecycle == .android && platform.push.delivery == .fcm && platform.runtime.power != nil)
        #expect(platform.significantChanges == nil)
      }
    }
    #expect(Platform.iosDocumented.push == .iosDocumented && Platform.ios.push == .ios)
    let ios7 = AppScenario(profile: .ios7)
    #expect(Platform.ios.adapting(ios7).profile == .ios7)
    #expect(Platform.android.adapting(ios7).profile == .android)
    #expect(Platform.ios.adapting(AppScenario(profile: .android)).profile == .ios)
  }

  /// The same device saved and restored anywhere gives the same events on Android too.
  @Test(arguments: UInt64(1)...8)
  func androidDevicesRestoreToTheSameEvents(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    // Even seeds: a Samsung phone over 20 days, its sessions bunched into the first two, so that
    // the app sleeps deeply for days, with saves before, during and after.
    let samsung = seed.isMultiple(of: 2)
    let span = (samsung ? 20 : 2) * Self.day
    let pushes = (0..<40).map { k in
      random.next(below: 2) == 0 ? Self.highPriorityData(Self.t0 + random.uniform(0...span), id: k + 1)
        : Self.message(Self.t0 + random.uniform(0...span), id: k + 1, priority: [5, 1][Int(random.next(below: 2))], alert: random.next(below: 3) == 0)
    }
    let sessions = (0..<6).map { k in (start: Self.t0 + Double(k) * 2 * Self.day / 6 + random.uniform(0...3_600), duration: random.uniform(30...600)) }
    let feed = try ContentFeed.daytimeNews(from: Self.t0 - Self.day, days: samsung ? 22 : 4, utcOffset: 0)
    var configuration = Self.configuration(Self.scenario(location: DevicePopulation.behaviour(&random), sessions: sessions), feed: feed)
    if samsung { configuration.scenario.profile = Platform.androidSamsung.runtime }
    let moves = (0..<20).map { _ in Self.t0 + random.uniform(0...span) }.sorted()
    func drive(_ device: inout Device, saving: Bool) throws -> [DeviceEvent] {
      var events: [DeviceEvent] = []
      for (k, t) in moves.enumerated() {
        device.run(until: t, into: &events)
        device.noteMotion(at: t)
        if k % 3 == 0 { device.wake(forLocationAt: t + 30, label: "enter r\(k)") }
        if saving {
          let saved = try JSONEncoder().encode(device.snapshot())
          device = try Device(restoring: JSONDecoder().decode(Device.Snapshot.self, from: saved), configuration, pushes: pushes)
        }
      }
      device.finish(at: Self.t0 + span, into: &events)
      return events
    }
    var whole = Device(configuration, start: Self.t0, pushes: pushes)
    var cut = Device(configuration, start: Self.t0, pushes: pushes)
    let expected = try drive(&whole, saving: false)
    #expect(try drive(&cut, saving: true) == expected)
    let disorder = zip(expected, expected.dropFirst()).first { $0.time > $1.time }
    #expect(disorder == nil, "\(String(describing: disorder))")
    #expect(expected.contains { if case .fetch(let f) = $0 { f.kind == .fetchRequested } else { false } })
    if samsung {
      #expect(expected.contains { if case .app(let r) = $0, case .deepSleep = r.facts { true } else { false } }, "a deep sleep")
    }
  }
}
