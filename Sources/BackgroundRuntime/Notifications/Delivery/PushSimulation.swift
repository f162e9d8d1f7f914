import SeededRandom

/// What became of one provider request.
public struct PushOutcome: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// Reached the device as soon as it was sent.
    case delivered
    /// Reached the device later: stored while offline, rate limited, deferred by power.
    case delayed
    /// A held silent push that rode along with a regular notification.
    case piggybacked
    /// Still waiting at the end: held on the device or stored by APNs.
    case held
    /// Never delivered: expired, replaced, discarded.
    case dropped
    /// Replaced by a newer notification with the same collapse ID before it was delivered.
    case coalesced
    /// Refused by APNs.
    case rejected
  }

  /// The request's position in the schedule (0-based).
  public var request: Int
  /// When it was sent (seconds since the Unix epoch).
  public var time: Double
  public var apnsID: String?
  /// APNs' HTTP answer: 200, or the rejection's status.
  public var status: Int
  public var reason: APNsReason?
  /// For `Unregistered`: when the token stopped being valid.
  public var timestamp: Double?
  public var kind: Kind
  public var deliveredAt: Double?
  /// What it rode along with: an apns-id, or `keep-alive`.
  public var carrier: String?
  /// Whether it is a content-available push (it wakes the app when delivered).
  public var wakesApp: Bool
  /// What the delivered notification did to the app.
  public var app: AppEffect?
  /// The facts behind ``detail``, in order (kept as values: the sentence is made when asked for).
  public var notes: Notes

  /// Why, in a sentence.
  public var detail: String { notes.all.map(\.text).joined(separator: "; ") }

  /// A few notes held inline (most outcomes have one or two), more in an array.
  public struct Notes: Hashable, Sendable {
    private var first: Note?
    private var second: Note?
    private var more: [Note] = []

    public init() {}

    public var isEmpty: Bool { first == nil }

    public mutating func append(_ note: Note) {
      if first == nil {
        first = note
      } else if second == nil {
        second = note
      } else {
        more.append(note)
      }
    }

    /// In order.
    public var all: [Note] { [first, second].compactMap { $0 } + more }
  }

  /// One fact about a request's fate.
  public enum Note: Hashable, Sendable {
    case rejected(String)
    case accepted(String)
    case replacedHeld(by: String)
    case replacedOffline(by: String, sameCollapseID: Bool)
    case expirationZeroOffline
    case expiredWhenSent
    case expiredOffline(at: Double)
    case storedOffline
    case deferredLowPower
    case keepAlive(silent: Bool, priority: Int)
    case piggybacked(on: String)
    case deferredWith(priority: Int, carrier: String)
    case discardedByForceQuit
    case shown
    case shownAndWoken
    case notWoken
    case completed(FetchOutcome, seconds: Double)
    case terminated
    case notLaunched
    case onScreen
    case stillStored
    case stillHeld
    case stillDeferred

    public var text: String {
      switch self {
      case .rejected(let why), .accepted(let why): return why
      case .replacedHeld(let by): return "the device holds only the newest delayed silent push: replaced by \(by)"
      case .replacedOffline(let by, let same):
        return same
          ? "replaced while the device was offline by \(by) with the same collapse ID"
          : "APNs keeps only the newest notification for an offline device: replaced by \(by)"
      case .expirationZeroOffline: return "apns-expiration 0: one attempt, and the device was offline"
      case .expiredWhenSent: return "already expired when sent, and the device was offline"
      case .expiredOffline(let at): return "expired while the device was offline (at \(Int(at)))"
      case .storedOffline: return "stored by APNs while the device was offline"
      case .deferredLowPower: return "deferred while Low Power Mode was on"
      case .keepAlive(let silent, let priority):
        return silent ? "held past the silent-push budget, released at a keep-alive" : "delivered at a keep-alive (priority \(priority))"
      case .piggybacked(let on): return "held past the silent-push budget, delivered with \(on)"
      case .deferredWith(let priority, let carrier): return "deferred (priority \(priority)), delivered with \(carrier)"
      case .discardedByForceQuit: return "discarded: the user force-quit the app"
      case .shown: return "shown to the user, the app not woken"
      case .shownAndWoken: return "shown to the user, and the app woken"
      case .notWoken: return "not woken: UIBackgroundModes does not declare remote-notification"
      case .completed(let result, let seconds): return "handler completed (.\(result.rawValue)) after \(FetchEvent.duration(seconds))"
      case .terminated: return "the app was terminated: no completion within the deadline"
      case .notLaunched: return "not launched: the app was force-quit"
      case .onScreen: return "the app was on screen: handled without a wake"
      case .stillStored: return "still stored by APNs: the device was offline at the end"
      case .stillHeld: return "still held on the device past the silent-push budget at the end"
      case .stillDeferred: return "still deferred on the device at the end"
      }
    }
  }

  public enum AppEffect: String, Hashable, Sendable {
    /// Shown to the user (alert, sound, badge); the app not woken.
    case shown
    /// Content-available, but the app does not declare the remote-notification background mode.
    case notWoken
    /// The handler called completion (.newData).
    case completed
    /// The handler called completion with .failed.
    case failed
    /// The handler did not finish in time: the app was terminated.
    case terminated
    /// The app was force-quit: not launched.
    case notLaunched
    /// The app was on screen: handled without a background wake.
    case onScreen
  }
}

/// The device, its app and its user, for a push simulation.
public struct PushDevice: Hashable, Sendable {
  /// `offline` and `lowPowerMode` intervals matter here.
  public var conditions: DeviceConditions
  public var configuration: AppConfiguration
  /// The app's remote-notification handler.
  public var handler: HandlerBehaviour
  public var runtimeProfile: RuntimeProfile
  public var seed: UInt64
  /// Foreground sessions (opening the app ends a force-quit) and force-quits.
  public var sessions: [(start: Double, duration: Double)]
  public var forceQuits: [Double]
  /// The device's token and the app's bundle ID (nil: taken from the first well-formed request),
  /// and when the app was removed (requests after it: 410 Unregistered).
  public var deviceToken: String?
  public var topic: String?
  public var uninstalledAt: Double?

  public init(
    conditions: DeviceConditions = DeviceConditions(),
    configuration: AppConfiguration = AppConfiguration(backgroundModes: [.remoteNotification]),
    handler: HandlerBehaviour = HandlerBehaviour(work: 2), runtimeProfile: RuntimeProfile = .ios, seed: UInt64 = 0,
    sessions: [(start: Double, duration: Double)] = [], forceQuits: [Double] = [], deviceToken: String? = nil, topic: String? = nil,
    uninstalledAt: Double? = nil
  ) {
    self.conditions = conditions
    self.configuration = configuration
    self.handler = handler
    self.runtimeProfile = runtimeProfile
    self.seed = seed
    self.sessions = sessions
    self.forceQuits = forceQuits
    self.deviceToken = deviceToken
    self.topic = topic
    self.uninstalledAt = uninstalledAt
  }

  /// The device of an app scenario: its background modes, remote-notification handler (returns at
  /// once when it has none), runtime profile, seed, sessions and force-quits.
  public init(scenario: AppScenario, conditions: DeviceConditions = DeviceConditions(), deviceToken: String? = nil, topic: String? = nil) {
    self.init(
      conditions: conditions, configuration: scenario.configuration, handler: scenario.behaviours[.remoteNotification] ?? .instant,
      runtimeProfile: scenario.profile, seed: scenario.seed, sessions: scenario.sessions, forceQuits: scenario.forceQuits,
      deviceToken: deviceToken, topic: topic)
  }

  public static func == (a: PushDevice, b: PushDevice) -> Bool {
    a.conditions == b.conditions && a.configuration == b.configuration && a.handler == b.handler && a.runtimeProfile == b.runtimeProfile
      && a.seed == b.seed && a.sessions.map(\.start) == b.sessions.map(\.start) && a.sessions.map(\.duration) == b.sessions.map(\.duration)
      && a.forceQuits == b.forceQuits && a.deviceToken == b.deviceToken && a.topic == b.topic && a.uninstalledAt == b.uninstalledAt
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(conditions)
    hasher.combine(seed)
    hasher.combine(forceQuits)
  }
}

/// APNs and one device on a virtual clock (docs/platform-rules.md, remote and silent notifications): every provider request validated,
/// then delivered, stored, coalesced, rate limited, held, piggybacked or dropped; delivered
/// content-available pushes wake the app through an ``AppRuntime`` (30 s handler deadline).
///
/// **APNs.** While the device is offline, APNs keeps only the newest notification for the app
/// (an older one with the same collapse ID is `coalesced`, any other `dropped`) until its
/// expiration (`apns-expiration` 0: one attempt, never stored; absent:
/// ``PushProfile/defaultStorage``), and delivers it when the device is back.
///
/// **Device.** Priority 10 is delivered at once and wakes the radio: the held silent push rides
/// along (`piggybacked`), and deferred notifications go with it. Priority 5 waits while Low Power
/// Mode is on (until it ends or a priority-10 notification comes); priority 1 waits for a wake (a
/// priority-10 notification or a keep-alive). Silent pushes spend the budget (a token bucket:
/// ``PushProfile/silentPushBurst``, one more every ``PushProfile/silentPushInterval`` divided by the
/// app's track-record score); past it the device holds only the newest one (an older held one is
/// `dropped`) and releases it at a keep-alive when the budget allows, or with a priority-10
/// notification. A force-quit discards the held push, and the app is not launched in the
/// background until the user opens it again. Without the `remote-notification` background mode,
/// content-available pushes do not wake the app.
///
/// **App.** The handler's result feeds a ``FetchTrackRecord`` (the same as fetch): failing,
/// slow and terminated handlers stretch the silent budget.
///
/// The run ends ``runsPast`` seconds after the last request; what is still waiting is `held`.
public struct PushSimulation: Sendable {
  public var profile: PushProfile
  public var fetchProfile: FetchProfile
  public var device: PushDevice
  public var requests: [ProviderRequest]
  /// Whether APNs requires provider tokens (`authorization: bearer <JWT>`) from this provider.
  public var requiresProviderToken: Bool

  /// Seconds simulated after the last request.
  public static let runsPast = 3_600.0

  public init(
    requests: [ProviderRequest], device: PushDevice = PushDevice(), profile: PushProfile = .ios, fetchProfile: FetchProfile = .ios,
    requiresProviderToken: Bool = false
  ) {
    self.requiresProviderToken = requiresProviderToken
    self.requests = requests
    self.device = device
    self.profile = profile
    self.fetchProfile = fetchProfile
  }

  public struct Run: Sendable {
    /// One per request, in schedule order.
    public var outcomes: [PushOutcome]
    /// The app's steps (wakes, handlers, terminations).
    public var runtimeEvents: [RuntimeEvent]
    public var trackRecord: FetchTrackRecord
    public var runtimeSummary: RuntimeSummary
    /// The profile the run used.
    public var profile: PushProfile
  }

  public func run() -> Run {
    var state = PushRunState(simulation: self)
    state.run()
    return Run(
      outcomes: state.outcomes, runtimeEvents: state.runtimeEvents, trackRecord: state.trackRecord, runtimeSummary: state.runtime.summary,
      profile: profile)
  }
}

/// The moving parts of one push run.
private struct PushRunState {
  let sim: PushSimulation
  var validator: APNsValidator
  var runtime: AppRuntime
  var runtimeEvents: [RuntimeEvent] = []
  var scanned = 0
  var trackRecord: FetchTrackRecord
  var outcomes: [PushOutcome]
  /// What delivery needs of each accepted push (its payload is not kept).
  var accepted: [Accepted?]

  struct Accepted {
    var time: Double
    var apnsID: String
    var collapseID: String?
    var priority: Int
    var isSilent: Bool
    var wakesApp: Bool
    var userVisible: Bool
  }
  var random: SeededGenerator

  // APNs and device state.
  var online = true
  var lowPower = false
  /// APNs' stored notification for the offline device, and until when.
  var stored: (index: Int, until: Double)?
  /// The device's held silent push.
  var held: Int?
  /// Deferred notifications (priority 5 in Low Power Mode, priority 1), in arrival order.
  var deferred: [Int] = []
  var tokens: Double
  var refilledAt = -Double.infinity
  /// When silent pushes woke the app within the budget, in time order.
  var silentLaunches: [Double] = []
  /// The wake being handled for each push index (start time), to read its handler's outcome.
  var waking: [(index: Int, start: Double)] = []

  init(simulation sim: PushSimulation) {
    self.sim = sim
    validator = APNsValidator(
      profile: sim.profile, deviceToken: sim.device.deviceToken, topic: sim.device.topic, uninstalledAt: sim.device.uninstalledAt,
      requiresProviderToken: sim.requiresProviderToken)
    runtime = AppRuntime(profile: sim.device.runtimeProfile, behaviours: [.remoteNotification: sim.device.handler], seed: sim.device.seed)
    trackRecord = FetchTrackRecord(profile: sim.fetchProfile)
    outcomes = []
    outcomes.reserveCapacity(sim.requests.count)
    accepted = []
    accepted.reserveCapacity(sim.requests.count)
    tokens = Double(sim.profile.silentPushBurst)
    random = SeededGenerator(seed: sim.device.seed ^ 0x9A55_0000_0000_0001)
  }

  /// Things that happen, besides requests, in time order; at one instant in this order.
  enum Change: Int {
    case forceQuit = 0, session, online, offline, lowPowerOn, lowPowerOff, keepAlive
  }

  mutating func run() {
    // Requests in time order (stable); usually they already are.
    let times = sim.requests.map(\.time)
    var order = Array(times.indices)
    if times.indices.dropFirst().contains(where: { times[$0 - 1] > times[$0] }) {
      order.sort { (times[$0], $0) < (times[$1], $1) }
    }
    guard let firstIndex = order.first, let lastIndex = order.last else { return }
    let first = times[firstIndex]
    let last = times[lastIndex]
    let end = last + PushSimulation.runsPast
    // Everything else that happens, in time order; outside events reach the runtime as the run
    // gets to them, so that its queue stays sorted.
    var changes: [(time: Double, change: Change, duration: Double)] = []
    for i in sim.device.conditions.intervals {
      switch i.condition {
      case .offline: changes += [(i.start, .offline, 0), (i.end, .online, 0)]
      case .lowPowerMode: changes += [(i.start, .lowPowerOn, 0), (i.end, .lowPowerOff, 0)]
      case .backgroundRefreshOff: break
      }
    }
    for t in sim.device.forceQuits { changes.append((t, .forceQuit, 0)) }
    for s in sim.device.sessions { changes.append((s.start, .session, s.duration)) }
    var t = first
    while t <= end {
      changes.append((t, .keepAlive, 0))
      t += sim.profile.keepAliveInterval
    }
    changes.sort { ($0.time, $0.change.rawValue) < ($1.time, $1.change.rawValue) }
    for k in 0..<sim.requests.count {
      outcomes.append(PushOutcome(
        request: k, time: sim.requests[k].time, apnsID: nil, status: 0, reason: nil, timestamp: nil, kind: .held, deliveredAt: nil,
        carrier: nil, wakesApp: false, app: nil, notes: PushOutcome.Notes()))
      accepted.append(nil)
    }
    var c = 0
    for index in order {
      let time = times[index]
      while c < changes.count, changes[c].time <= time {
        apply(changes[c].change, at: changes[c].time, duration: changes[c].duration)
        c += 1
      }
      receive(index)
    }
    while c < changes.count, changes[c].time <= end {
      apply(changes[c].change, at: changes[c].time, duration: changes[c].duration)
      c += 1
    }
    advance(to: end)
    finish(at: end)
  }

  // MARK: APNs

  mutating func receive(_ index: Int) {
    let t = sim.requests[index].time
    advance(to: t)
    switch validator.validate(sim.requests[index]) {
    case .failure(let rejection):
      outcomes[index].status = rejection.status
      outcomes[index].reason = rejection.reason
      outcomes[index].timestamp = rejection.timestamp
      outcomes[index].apnsID = rejection.apnsID
      outcomes[index].kind = .rejected
      outcomes[index].notes.append(.rejected(rejection.detail))
    case .success(let push):
      accepted[index] = Accepted(
        time: push.time, apnsID: push.apnsID, collapseID: push.collapseID, priority: push.priority, isSilent: push.isSilent,
        wakesApp: push.wakesApp, userVisible: push.traits.isUserVisible)
      outcomes[index].status = 200
      outcomes[index].apnsID = push.apnsID
      outcomes[index].wakesApp = push.wakesApp
      for n in push.notes { outcomes[index].notes.append(.accepted(n)) }
      if online {
        arrive(index, at: t, via: nil)
        return
      }
      if push.expiration == 0 {
        settle(index, .dropped, .expirationZeroOffline)
        return
      }
      let until = min(push.expiration ?? t + sim.profile.defaultStorage, t + sim.profile.maximumStorage)
      guard until > t else {
        settle(index, .dropped, .expiredWhenSent)
        return
      }
      if let old = stored {
        let same = accepted[old.index]?.collapseID != nil && accepted[old.index]?.collapseID == push.collapseID
        settle(old.index, same ? .coalesced : .dropped, .replacedOffline(by: push.apnsID, sameCollapseID: same))
      }
      stored = (index, until)
    }
  }

  // MARK: Device

  /// `index` reaches the device at `t` (`via`: what brought it, for a late arrival).
  mutating func arrive(_ index: Int, at t: Double, via: PushOutcome.Note?) {
    guard let push = accepted[index] else { return }
    if push.isSilent {
      if spendBudget(at: t) {
        deliver(index, at: t, carrier: nil, why: via)
      } else {
        if let old = held {
          settle(old, .dropped, .replacedHeld(by: push.apnsID))
        }
        held = index
      }
      return
    }
    switch push.priority {
    case 10:
      deliver(index, at: t, carrier: nil, why: via)
      wakeRadio(at: t, carrier: push.apnsID, releaseHeld: true)
    case 5 where lowPower:
      deferred.append(index)
    case 1:
      deferred.append(index)
    default:
      deliver(index, at: t, carrier: nil, why: via)
    }
  }

  /// The radio is awake (a priority-10 notification or a keep-alive): deferred notifications go
  /// now; the held silent push goes with a notification, or at a keep-alive within the budget.
  mutating func wakeRadio(at t: Double, carrier: String, releaseHeld: Bool) {
    var waiting: [Int] = []
    for k in deferred {
      let push = accepted[k]
      if push?.priority == 5 && lowPower && carrier == "keep-alive" {
        waiting.append(k)
      } else {
        deliver(k, at: t, carrier: carrier, why: nil)
      }
    }
    deferred = waiting
    guard let h = held else { return }
    if releaseHeld {
      held = nil
      deliver(h, at: t, carrier: carrier, why: nil)
    } else if spendBudget(at: t) {
      held = nil
      deliver(h, at: t, carrier: carrier, why: nil)
    }
  }

  mutating func apply(_ change: Change, at t: Double, duration: Double) {
    advance(to: t)
    switch change {
    case .session:
      runtime.schedule(SystemEvent(time: t, kind: .userSession(duration: duration), label: "user session"))
    case .forceQuit:
      runtime.schedule(SystemEvent(time: t, kind: .forceQuit))
      if let h = held {
        held = nil
        settle(h, .dropped, .discardedByForceQuit)
      }
    case .offline: online = false
    case .online:
      online = true
      if let s = stored {
        stored = nil
        if s.until > t {
          arrive(s.index, at: t, via: .storedOffline)
        } else {
          settle(s.index, .dropped, .expiredOffline(at: s.until))
        }
      }
    case .lowPowerOn: lowPower = true
    case .lowPowerOff:
      lowPower = false
      let waiting = deferred.filter { accepted[$0]?.priority == 5 }
      deferred.removeAll { accepted[$0]?.priority == 5 }
      for k in waiting { deliver(k, at: t, carrier: nil, why: .deferredLowPower) }
    case .keepAlive:
      if online { wakeRadio(at: t, carrier: "keep-alive", releaseHeld: false) }
    }
  }

  /// Whether the silent budget lets a push wake the app at `t`, spending it if so: the spacing
  /// after the last one, then the sliding window or the token bucket.
  mutating func spendBudget(at t: Double) -> Bool {
    if let last = silentLaunches.last, t - last < sim.profile.silentPushSpacing { return false }
    if let window = sim.profile.silentPushWindow {
      let span = window / max(trackRecord.score(at: t), sim.profile.minimumBudgetScore)
      let recent = silentLaunches.reversed().prefix { t - $0 < span }.count
      guard recent < sim.profile.silentPushBurst else { return false }
    } else {
      refill(at: t)
      guard tokens >= 1 else { return false }
      tokens -= 1
    }
    silentLaunches.append(t)
    return true
  }

  /// Refills the silent budget up to `t`; the interval stretches as the track record falls.
  mutating func refill(at t: Double) {
    let burst = Double(sim.profile.silentPushBurst)
    if refilledAt == -.infinity {
      refilledAt = t
      return
    }
    guard t > refilledAt else { return }
    let interval = sim.profile.silentPushInterval / max(trackRecord.score(at: t), sim.profile.minimumBudgetScore)
    tokens = min(burst, tokens + (t - refilledAt) / interval)
    refilledAt = t
  }

  mutating func deliver(_ index: Int, at t: Double, carrier: String?, why: PushOutcome.Note?) {
    guard let push = accepted[index] else { return }
    var kind: PushOutcome.Kind = t > push.time ? .delayed : .delivered
    if let carrier {
      if carrier == "keep-alive" {
        note(index, .keepAlive(silent: push.isSilent, priority: push.priority))
      } else if push.isSilent {
        kind = .piggybacked
        note(index, .piggybacked(on: carrier))
      } else {
        note(index, .deferredWith(priority: push.priority, carrier: carrier))
      }
      outcomes[index].carrier = carrier
    } else if let why {
      note(index, why)
    }
    outcomes[index].kind = kind
    outcomes[index].deliveredAt = t
    if push.wakesApp {
      if !sim.device.configuration.backgroundModes.contains(.remoteNotification) {
        outcomes[index].app = .notWoken
        note(index, .notWoken)
      } else {
        if push.userVisible { note(index, .shownAndWoken) }
        runtime.schedule(SystemEvent(time: t, kind: .remoteNotification, label: push.apnsID))
        waking.append((index, t))
      }
    } else {
      outcomes[index].app = .shown
      note(index, .shown)
    }
  }

  mutating func settle(_ index: Int, _ kind: PushOutcome.Kind, _ why: PushOutcome.Note) {
    outcomes[index].kind = kind
    note(index, why)
  }

  /// Adds a fact to the outcome's explanation.
  mutating func note(_ index: Int, _ note: PushOutcome.Note) {
    outcomes[index].notes.append(note)
  }

  /// Runs the app up to `t` and feeds each handler's outcome to the track record.
  mutating func advance(to t: Double) {
    runtime.run(until: t, into: &runtimeEvents)
    while scanned < runtimeEvents.count {
      let e = runtimeEvents[scanned]
      scanned += 1
      guard !waking.isEmpty else { continue }
      switch e.kind {
      case .handlerFinished where e.reason == .remoteNotification:
        guard case .label(let label) = e.facts, let k = waking.firstIndex(where: { accepted[$0.index]?.apnsID == label }) else { break }
        let w = waking.remove(at: k)
        let failed = sim.device.handler.failureRate > 0 && random.unit() < sim.device.handler.failureRate
        let result: FetchOutcome = failed ? .failed : .newData
        trackRecord.record(result, seconds: e.time - w.start, at: e.time)
        outcomes[w.index].app = failed ? .failed : .completed
        note(w.index, .completed(result, seconds: e.time - w.start))
      case .terminated:
        // Every handler still running was killed with the app.
        for w in waking {
          trackRecord.record(.terminated, seconds: e.time - w.start, at: e.time)
          outcomes[w.index].app = .terminated
          note(w.index, .terminated)
        }
        waking.removeAll()
      case .deliveredInForeground where e.reason == .remoteNotification, .lost where e.reason == .remoteNotification:
        guard case .label(let label) = e.facts, let k = waking.firstIndex(where: { accepted[$0.index]?.apnsID == label }) else { break }
        let w = waking.remove(at: k)
        outcomes[w.index].app = e.kind == .lost ? .notLaunched : .onScreen
        note(w.index, e.kind == .lost ? .notLaunched : .onScreen)
      default: break
      }
    }
  }

  mutating func finish(at end: Double) {
    if let s = stored {
      settle(s.index, .held, .stillStored)
    }
    if let h = held { settle(h, .held, .stillHeld) }
    for k in deferred { settle(k, .held, .stillDeferred) }
  }
}
