public import SavedState
import SeededRandom

extension Device {
  /// A device's state, to be saved (`Codable`) when a server restarts or a long replay is split,
  /// and restored with the same configuration and inputs: the restored device emits exactly the
  /// events the original would have from then on.
  ///
  /// ```swift
  /// let configuration = Device.Configuration(scenario: scenario)
  /// var device = Device(configuration, start: 1_714_550_400)
  /// let saved = try JSONEncoder().encode(device.snapshot())
  /// // … later, in another process (with the same pushes and launches, if any):
  /// device = try Device(restoring: JSONDecoder().decode(Device.Snapshot.self, from: saved), configuration)
  /// ```
  ///
  /// It holds the app runtime (state, queues, work in progress), the track record, what APNs and
  /// the device still hold of the pushes, the fetch scheduler's history and plan, where each
  /// input stands, and the totals — not the inputs, which are given again. A finished device has
  /// nothing left to resume and is refused on restore.
  public struct Snapshot: Codable, Sendable, Hashable {
    /// When the device's life began.
    public internal(set) var start: Double
    var now: Double
    var begun: Bool
    var finished: Bool
    var fetchUntil: Double?
    /// How many of each input were given, and how many are taken.
    var inputs: [Int]
    var taken: [Int]
    var runtime: AppRuntime.Snapshot
    var trackRecord: FetchTrackRecord.Snapshot
    var power: PowerState
    var push: PushLane.Snapshot
    var fetch: FetchLane.Snapshot?
    var pushTally: PushTally
    var fetchTally: FetchTally
  }

  /// The device's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    Snapshot(
      start: start, now: now, begun: begun, finished: finished, fetchUntil: fetchUntil.isFinite ? fetchUntil : nil,
      inputs: [launches.count, forceQuits.count, changes.count, pushes.count],
      taken: [nextLaunch, nextForceQuit, nextChange, nextPush], runtime: core.runtime.snapshot(),
      trackRecord: core.trackRecord.snapshot, power: core.power, push: push.snapshot, fetch: fetch?.snapshot, pushTally: pushTally, fetchTally: fetchTally)
  }

  /// A device in the state of `snapshot`, with the configuration and inputs it was made with.
  /// - Throws: ``SnapshotError`` when the device had finished, when the configuration or the
  ///   inputs differ from the snapshot's (their numbers, the start, the profiles, whether fetches
  ///   are simulated), or when a field is out of range.
  public init(
    restoring snapshot: Snapshot, _ configuration: Configuration, pushes: [ProviderRequest] = [], launches: [UserLaunch] = []
  ) throws(SnapshotError) {
    guard !snapshot.finished else { throw SnapshotError(.invalidField("finished", "the device had finished: nothing is left to resume")) }
    guard snapshot.start.isFinite, snapshot.now.isFinite, snapshot.now >= snapshot.start else {
      throw SnapshotError(.invalidField("now", "not a finite time from the start on"))
    }
    self.init(configuration, start: snapshot.start, pushes: pushes, launches: launches)
    let inputs = [self.launches.count, forceQuits.count, changes.count, self.pushes.count]
    guard snapshot.inputs == inputs else {
      throw SnapshotError(.settingsDiffer("input: \(snapshot.inputs) launches, force-quits, condition changes and pushes then, \(inputs) given"))
    }
    guard snapshot.taken.count == inputs.count, zip(snapshot.taken, inputs).allSatisfy({ (0...$1).contains($0) }) else {
      throw SnapshotError(.invalidField("taken", "each must be between 0 and the number of inputs"))
    }
    guard (snapshot.fetch == nil) == (fetch == nil) else {
      throw SnapshotError(.settingsDiffer(snapshot.fetch == nil ? "setting: fetches were not simulated" : "setting: fetches were simulated"))
    }
    let scenario = configuration.scenario
    core.runtime = try AppRuntime(restoring: snapshot.runtime, profile: scenario.profile, behaviours: scenario.behaviours)
    core.trackRecord = FetchTrackRecord(restoring: snapshot.trackRecord, profile: configuration.fetch)
    guard snapshot.power.rules == core.power.rules, snapshot.power.start == start,
      [snapshot.power.lastUse, snapshot.power.screenOnUntil, snapshot.power.lastMotion].allSatisfy({ $0?.isFinite ?? true })
    else { throw SnapshotError(.invalidField("power", "other power rules, another start, or a time that is not finite")) }
    core.power = snapshot.power
    try push.restore(snapshot.push)
    if let saved = snapshot.fetch { try fetch?.restore(saved, profile: configuration.fetch) }
    now = snapshot.now
    begun = snapshot.begun
    fetchUntil = snapshot.fetchUntil ?? .infinity
    (nextLaunch, nextForceQuit, nextChange, nextPush) = (snapshot.taken[0], snapshot.taken[1], snapshot.taken[2], snapshot.taken[3])
    pushTally = snapshot.pushTally
    fetchTally = snapshot.fetchTally
  }
}

// MARK: - The push side

extension PushLane {
  struct Snapshot: Codable, Sendable, Hashable {
    var profileName: String
    var validator: APNsValidator.Snapshot
    var random: SeededGenerator
    var online: Bool
    var lowPower: Bool
    var stored: Stored?
    var held: Accepted?
    var deferred: [Accepted]
    var tokens: Double
    var refilledAt: Double?
    var silentLaunches: [Double]
    var waking: [Waking]
    var sent: Int
    var nextKeepAlive: Double?
    var fcmStored: [Stored]
    var dozeHeld: [Accepted]
    var highPriorityDeliveries: [Double]
    var invisibleHighPrioritySince: Double?
    var pendingNotes: [Int: [PushOutcome.Note]]
  }

  var snapshot: Snapshot {
    Snapshot(
      profileName: profile.name, validator: validator.snapshot, random: random, online: online, lowPower: lowPower, stored: stored,
      held: held, deferred: deferred, tokens: tokens, refilledAt: refilledAt.isFinite ? refilledAt : nil,
      silentLaunches: silentLaunches, waking: waking, sent: sent, nextKeepAlive: nextKeepAlive, fcmStored: fcmStored, dozeHeld: dozeHeld,
      highPriorityDeliveries: highPriorityDeliveries, invisibleHighPrioritySince: invisibleHighPrioritySince, pendingNotes: pendingNotes)
  }

  mutating func restore(_ s: Snapshot) throws(SnapshotError) {
    guard s.profileName == profile.name else { throw SnapshotError(.profileDiffers(snapshot: s.profileName, given: profile.name)) }
    let times = [s.refilledAt, s.nextKeepAlive, s.stored?.until, s.invisibleHighPrioritySince].compactMap { $0 } + s.silentLaunches
      + s.waking.map(\.start) + s.fcmStored.map(\.until) + s.highPriorityDeliveries
    guard times.allSatisfy(\.isFinite), s.tokens.isFinite, s.tokens >= 0, s.sent >= 0 else {
      throw SnapshotError(.invalidField("push", "a time or the silent-push budget is not finite, or a count is negative"))
    }
    validator.restore(s.validator)
    random = s.random
    online = s.online
    lowPower = s.lowPower
    stored = s.stored
    held = s.held
    deferred = s.deferred
    tokens = s.tokens
    refilledAt = s.refilledAt ?? -.infinity
    silentLaunches = s.silentLaunches
    waking = s.waking
    sent = s.sent
    nextKeepAlive = s.nextKeepAlive
    fcmStored = s.fcmStored
    dozeHeld = s.dozeHeld
    highPriorityDeliveries = s.highPriorityDeliveries
    invisibleHighPrioritySince = s.invisibleHighPrioritySince
    pendingNotes = s.pendingNotes
  }
}

// MARK: - The fetch side

extension FetchLane {
  struct Snapshot: Codable, Sendable, Hashable {
    var scheduler: FetchScheduler.Snapshot
    var now: Double
    var fetchedThrough: Double
    var switcherSnapshot: Double?
    var lastLaunchEnd: Double?
    var inFlight: Double?
    var plan: [FetchDecision]
    var planIndex: Int
    var review: Double?
    var needsPlan: Bool
    var nextFixed: Double
    /// Nil in snapshots written before the even timer paused while the app is dormant.
    var evenPaused: Double?
    var random: SeededGenerator
    var lastRefusal: TaskSchedulerError?
    var jobDue: Double
    var jobRuns: [JobRun]
  }

  var snapshot: Snapshot {
    Snapshot(
      scheduler: scheduler.snapshot, now: now, fetchedThrough: fetchedThrough, switcherSnapshot: switcherSnapshot, lastLaunchEnd: lastLaunchEnd,
      inFlight: inFlight, plan: plan, planIndex: planIndex, review: review, needsPlan: needsPlan, nextFixed: nextFixed, evenPaused: evenPaused, random: random,
      lastRefusal: lastRefusal, jobDue: jobDue, jobRuns: jobRuns)
  }

  mutating func restore(_ s: Snapshot, profile: FetchProfile) throws(SnapshotError) {
    let times = [s.now, s.fetchedThrough, s.nextFixed, s.jobDue]
      + [s.switcherSnapshot, s.lastLaunchEnd, s.inFlight, s.review, s.evenPaused].compactMap { $0 }
      + s.jobRuns.flatMap { [$0.start, $0.end] }
    guard times.allSatisfy(\.isFinite), (0...s.plan.count).contains(s.planIndex) else {
      throw SnapshotError(.invalidField("fetch", "a time is not finite, or the plan's index is out of range"))
    }
    scheduler = FetchScheduler(restoring: s.scheduler, configuration: scheduler.configuration, profile: profile)
    now = s.now
    fetchedThrough = s.fetchedThrough
    switcherSnapshot = s.switcherSnapshot
    lastLaunchEnd = s.lastLaunchEnd
    inFlight = s.inFlight
    plan = s.plan
    planIndex = s.planIndex
    review = s.review
    needsPlan = s.needsPlan
    nextFixed = s.nextFixed
    evenPaused = s.evenPaused
    random = s.random
    lastRefusal = s.lastRefusal
    jobDue = s.jobDue
    jobRuns = s.jobRuns
  }
}
