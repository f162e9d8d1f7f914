import SeededRandom

/// The push side of a ``Device``: APNs (validation, store-and-forward, coalescing) and the
/// device's handling of what arrives (priorities, Low Power Mode, the silent-push budget, the
/// held push and its piggyback), each step a ``PushEvent`` when it happens. Delivered
/// content-available pushes are handed to the device's app runtime; their handlers' results go to
/// the device's one track record (docs/platform-rules.md, remote and silent notifications).
///
/// It keeps only what is still pending (a stored, held or deferred push, a handler running): a
/// device that receives pushes for ever holds no more than a few.
struct PushLane: Sendable {
  /// What delivery needs of an accepted push (its payload is not kept).
  struct Accepted: Hashable, Sendable, Codable {
    var request: Int
    var time: Double
    var apnsID: String
    var collapseID: String?
    var priority: Int
    var isSilent: Bool
    var wakesApp: Bool
    var userVisible: Bool
  }

  /// A push stored by APNs for the offline device, until its expiration.
  struct Stored: Hashable, Sendable, Codable {
    var push: Accepted
    var until: Double
  }

  /// A delivered push whose handler runs.
  struct Waking: Hashable, Sendable, Codable {
    var push: Accepted
    var start: Double
  }

  let profile: PushProfile
  let declaresRemoteNotification: Bool
  let failureRate: Double
  var validator: APNsValidator
  var random: SeededGenerator
  var online = true
  var lowPower = false
  var stored: Stored?
  /// The device's held silent push.
  var held: Accepted?
  /// Deferred notifications (priority 5 in Low Power Mode, priority 1), in arrival order.
  var deferred: [Accepted] = []
  var tokens: Double
  var refilledAt = -Double.infinity
  /// When silent pushes woke the app within the budget, in time order (only those the budget can
  /// still count).
  var silentLaunches: [Double] = []
  var waking: [Waking] = []
  /// Requests sent so far.
  var sent = 0
  /// FCM: the messages stored for the offline device, in arrival order; those Doze holds for a
  /// maintenance window; when high-priority ones were delivered (the last day's); since when
  /// the app's high-priority messages have shown nothing.
  var fcmStored: [Stored] = []
  var dozeHeld: [Accepted] = []
  var highPriorityDeliveries: [Double] = []
  var invisibleHighPrioritySince: Double?
  /// What a held message's delivery will say of why it was held.
  var pendingNotes: [Int: [PushOutcome.Note]] = [:]
  /// The next keep-alive: every ``PushProfile/keepAliveInterval`` from the first request on.
  var nextKeepAlive: Double?

  init(profile: PushProfile, scenario: AppScenario, identity: Device.PushIdentity) {
    self.profile = profile
    // Android declares no background mode: a FirebaseMessagingService receives data messages.
    declaresRemoteNotification = profile.delivery == .fcm || scenario.configuration.backgroundModes.contains(.remoteNotification)
    failureRate = scenario.behaviours[.remoteNotification]?.failureRate ?? 0
    validator = APNsValidator(
      profile: profile, deviceToken: identity.deviceToken, topic: identity.topic, uninstalledAt: identity.uninstalledAt,
      requiresProviderToken: identity.requiresProviderToken)
    tokens = Double(profile.silentPushBurst)
    random = SeededGenerator(seed: scenario.seed ^ 0x9A55_0000_0000_0001)
  }

  // MARK: APNs

  /// APNs receives `request` at its time: the accepted or rejected step, then (when the device is
  /// online) what the device does with it.
  @discardableResult
  mutating func receive(_ request: borrowing ProviderRequest, _ c: inout Device.Core) -> PushEvent {
    let t = request.time
    let index = sent
    sent += 1
    if nextKeepAlive == nil, profile.delivery == .apns { nextKeepAlive = t + profile.keepAliveInterval }
    switch validator.validate(request) {
    case .failure(let rejection):
      var notes = PushOutcome.Notes()
      notes.append(.rejected(rejection.detail))
      let event = PushEvent(
        time: t, kind: .rejected, request: index, sentAt: t, apnsID: rejection.apnsID, status: rejection.status,
        reason: rejection.reason, timestamp: rejection.timestamp, wakesApp: false, notes: notes)
      c.events.append(.push(event))
      return event
    case .success(let push):
      let accepted = Accepted(
        request: index, time: push.time, apnsID: push.apnsID, collapseID: push.collapseID, priority: push.priority,
        isSilent: push.isSilent, wakesApp: push.wakesApp, userVisible: push.traits.isUserVisible)
      var notes = PushOutcome.Notes()
      for n in push.notes { notes.append(.accepted(n)) }
      let event = PushEvent(
        time: t, kind: .accepted, request: index, sentAt: t, apnsID: push.apnsID, status: 200, wakesApp: push.wakesApp, notes: notes)
      c.events.append(.push(event))
      if profile.delivery == .fcm {
        if online { arriveFCM(accepted, at: t, via: nil, &c) } else { storeFCM(accepted, until: push.expiration, at: t, &c) }
        return event
      }
      if online {
        arrive(accepted, at: t, via: nil, &c)
        return event
      }
      if push.expiration == 0 {
        settle(accepted, .dropped, .expirationZeroOffline, at: t, &c)
        return event
      }
      let until = min(push.expiration ?? t + profile.defaultStorage, t + profile.maximumStorage)
      guard until > t else {
        settle(accepted, .dropped, .expiredWhenSent, at: t, &c)
        return event
      }
      if let old = stored {
        let same = old.push.collapseID != nil && old.push.collapseID == push.collapseID
        settle(old.push, same ? .coalesced : .dropped, .replacedOffline(by: push.apnsID, sameCollapseID: same), at: t, &c)
      }
      stored = Stored(push: accepted, until: until)
      return event
    }
  }

  /// When the (first) push APNs or FCM stores expires, if one is stored.
  var storedExpiry: Double? { stored?.until ?? fcmStored.lazy.map(\.until).min() }

  /// A stored push expired while the device was offline.
  mutating func expireStored(at t: Double, _ c: inout Device.Core) {
    if let s = stored, s.until <= t {
      stored = nil
      settle(s.push, .dropped, .expiredOffline(at: s.until), at: t, &c)
    }
    let expired = fcmStored.filter { $0.until <= t }
    fcmStored.removeAll { $0.until <= t }
    for s in expired { settle(s.push, .dropped, .expiredOffline(at: s.until), at: t, &c) }
  }

  // MARK: Device

  /// `push` reaches the device at `t` (`via`: what brought it, for a late arrival).
  mutating func arrive(_ push: Accepted, at t: Double, via: PushOutcome.Note?, _ c: inout Device.Core) {
    if push.isSilent {
      if spendBudget(at: t, c.trackRecord) {
        deliver(push, at: t, carrier: nil, why: via, &c)
      } else {
        if let old = held { settle(old, .dropped, .replacedHeld(by: push.apnsID), at: t, &c) }
        held = push
      }
      return
    }
    switch push.priority {
    case 10:
      deliver(push, at: t, carrier: nil, why: via, &c)
      wakeRadio(at: t, carrier: push.apnsID, releaseHeld: true, &c)
    case 5 where lowPower:
      deferred.append(push)
    case 1:
      deferred.append(push)
    default:
      deliver(push, at: t, carrier: nil, why: via, &c)
    }
  }

  /// The radio is awake (a priority-10 notification or a keep-alive): deferred notifications go
  /// now; the held silent push goes with a notification, or at a keep-alive within the budget.
  mutating func wakeRadio(at t: Double, carrier: String, releaseHeld: Bool, _ c: inout Device.Core) {
    var waiting: [Accepted] = []
    let due = deferred
    deferred = []
    for push in due {
      if push.priority == 5 && lowPower && carrier == "keep-alive" {
        waiting.append(push)
      } else {
        deliver(push, at: t, carrier: carrier, why: nil, &c)
      }
    }
    deferred = waiting
    guard let h = held else { return }
    if releaseHeld || spendBudget(at: t, c.trackRecord) {
      held = nil
      deliver(h, at: t, carrier: carrier, why: nil, &c)
    }
  }

  /// The user force-quit the app (or the system stopped it): the held silent push is discarded.
  mutating func forceQuit(at t: Double, bySystem: Bool = false, _ c: inout Device.Core) {
    guard let h = held else { return }
    held = nil
    settle(h, .dropped, bySystem ? .discardedByDeepSleep : .discardedByForceQuit, at: t, &c)
  }

  mutating func goOffline() { online = false }

  /// Back online: APNs delivers what it stored (FCM all it stored, in order).
  mutating func goOnline(at t: Double, _ c: inout Device.Core) {
    online = true
    let waiting = fcmStored
    fcmStored = []
    for s in waiting { arriveFCM(s.push, at: t, via: .storedByFCM, &c) }
    guard let s = stored else { return }
    stored = nil
    if s.until > t {
      arrive(s.push, at: t, via: .storedOffline, &c)
    } else {
      settle(s.push, .dropped, .expiredOffline(at: s.until), at: t, &c)
    }
  }

  mutating func lowPowerOn() { lowPower = true }

  /// Low Power Mode went off: the priority-5 notifications it deferred go now.
  mutating func lowPowerOff(at t: Double, _ c: inout Device.Core) {
    lowPower = false
    let waiting = deferred.filter { $0.priority == 5 }
    deferred.removeAll { $0.priority == 5 }
    for push in waiting { deliver(push, at: t, carrier: nil, why: .deferredLowPower, &c) }
  }

  /// Whether a keep-alive now would do nothing: no notification deferred, none held, none held
  /// by Doze.
  var keepAliveDoesNothing: Bool { deferred.isEmpty && held == nil && dozeHeld.isEmpty }

  /// Steps the keep-alives before `limit` over, as ``keepAlive(at:_:)`` would schedule them one
  /// after another, when they would do nothing (``keepAliveDoesNothing``).
  mutating func skipKeepAlives(before limit: Double) {
    guard profile.keepAliveInterval > 0 else { return }
    while let next = nextKeepAlive, next < limit { nextKeepAlive = next + profile.keepAliveInterval }
  }

  /// A keep-alive at `t` (while online it wakes the radio); the next one is scheduled.
  mutating func keepAlive(at t: Double, _ c: inout Device.Core) {
    nextKeepAlive = t + profile.keepAliveInterval
    if online { wakeRadio(at: t, carrier: "keep-alive", releaseHeld: false, &c) }
  }

  /// Whether the silent budget lets a push wake the app at `t`, spending it if so: the spacing
  /// after the last one, then the sliding window or the token bucket; the window and the
  /// interval stretch as the track record falls.
  mutating func spendBudget(at t: Double, _ trackRecord: FetchTrackRecord) -> Bool {
    if let last = silentLaunches.last, t - last < profile.silentPushSpacing { return false }
    if let window = profile.silentPushWindow {
      let span = window / max(trackRecord.score(at: t), profile.minimumBudgetScore)
      let recent = silentLaunches.reversed().prefix { t - $0 < span }.count
      guard recent < profile.silentPushBurst else { return false }
      // What no span can reach again is forgotten (the longest span is window / the least score).
      let horizon = window / profile.minimumBudgetScore
      if let first = silentLaunches.first, t - first >= horizon { silentLaunches.removeAll { t - $0 >= horizon } }
    } else {
      refill(at: t, trackRecord)
      guard tokens >= 1 else { return false }
      tokens -= 1
      silentLaunches.removeAll(keepingCapacity: true)
    }
    silentLaunches.append(t)
    return true
  }

  /// Refills the silent budget up to `t`; the interval stretches as the track record falls.
  mutating func refill(at t: Double, _ trackRecord: FetchTrackRecord) {
    let burst = Double(profile.silentPushBurst)
    if refilledAt == -.infinity {
      refilledAt = t
      return
    }
    guard t > refilledAt else { return }
    let interval = profile.silentPushInterval / max(trackRecord.score(at: t), profile.minimumBudgetScore)
    tokens = min(burst, tokens + (t - refilledAt) / interval)
    refilledAt = t
  }

  mutating func deliver(
    _ push: Accepted, at t: Double, carrier: String?, why: PushOutcome.Note?, also: [PushOutcome.Note] = [], _ c: inout Device.Core
  ) {
    var kind: PushEvent.Kind = t > push.time ? .delayed : .delivered
    var notes = PushOutcome.Notes()
    for n in also { notes.append(n) }
    if let carrier {
      if carrier == "keep-alive" {
        notes.append(.keepAlive(silent: push.isSilent, priority: push.priority))
      } else if push.isSilent {
        kind = .piggybacked
        notes.append(.piggybacked(on: carrier))
      } else {
        notes.append(.deferredWith(priority: push.priority, carrier: carrier))
      }
    } else if let why {
      notes.append(why)
    }
    var effect: PushOutcome.AppEffect?
    var wakes = false
    if profile.delivery == .fcm && push.userVisible {
      effect = .shown
      notes.append(.notificationMessage)
    } else if push.wakesApp {
      if !declaresRemoteNotification {
        effect = .notWoken
        notes.append(.notWoken)
      } else {
        if push.userVisible { notes.append(.shownAndWoken) }
        wakes = true
      }
    } else {
      effect = .shown
      notes.append(.shown)
    }
    c.events.append(.push(PushEvent(
      time: t, kind: kind, request: push.request, sentAt: push.time, apnsID: push.apnsID, status: 200, carrier: carrier,
      wakesApp: push.wakesApp, app: effect, notes: notes)))
    if wakes {
      c.runtime.schedule(SystemEvent(time: t, kind: .remoteNotification, label: push.apnsID))
      waking.append(Waking(push: push, start: t))
    }
  }

  mutating func settle(_ push: Accepted, _ kind: PushEvent.Kind, _ why: PushOutcome.Note, at t: Double, _ c: inout Device.Core) {
    var notes = PushOutcome.Notes()
    notes.append(why)
    c.events.append(.push(PushEvent(
      time: t, kind: kind, request: push.request, sentAt: push.time, apnsID: push.apnsID, status: 200, wakesApp: push.wakesApp,
      notes: notes)))
  }

  /// Reads one of the app's steps: a push handler's end (completion, termination), or a push the
  /// app got on screen or never got (force-quit); the result feeds the track record.
  mutating func observe(_ e: RuntimeEvent, _ c: inout Device.Core) {
    guard !waking.isEmpty else { return }
    switch e.kind {
    case .handlerFinished where e.reason == .remoteNotification:
      let label: String
      switch e.facts {
      case .label(let text), .lostInDeepSleep(let text): label = text
      default: return
      }
      guard let k = waking.firstIndex(where: { $0.push.apnsID == label }) else { return }
      let w = waking.remove(at: k)
      let failed = failureRate > 0 && random.unit() < failureRate
      let result: FetchOutcome = failed ? .failed : .newData
      c.trackRecord.record(result, seconds: e.time - w.start, at: e.time)
      handled(w.push, at: e.time, failed ? .failed : .completed, .completed(result, seconds: e.time - w.start), &c)
    case .terminated:
      // Every handler still running was killed with the app.
      let killed = waking
      waking.removeAll()
      for w in killed {
        c.trackRecord.record(.terminated, seconds: e.time - w.start, at: e.time)
        handled(w.push, at: e.time, .terminated, .terminated, &c)
      }
    case .forceQuit:
      // The user killed the app while handlers ran: they never complete, and the track record
      // does not hold it against the app.
      let killed = waking
      waking.removeAll()
      let note: PushOutcome.Note
      if case .deepSleep = e.facts { note = .killedByDeepSleep } else { note = .killedByForceQuit }
      for w in killed { handled(w.push, at: e.time, .killed, note, &c) }
    case .deliveredInForeground where e.reason == .remoteNotification, .lost where e.reason == .remoteNotification:
      let label: String
      switch e.facts {
      case .label(let text), .lostInDeepSleep(let text): label = text
      default: return
      }
      guard let k = waking.firstIndex(where: { $0.push.apnsID == label }) else { return }
      let w = waking.remove(at: k)
      let lost = e.kind == .lost
      let note: PushOutcome.Note
      if case .lostInDeepSleep = e.facts { note = .notLaunchedInDeepSleep } else { note = lost ? .notLaunched : .onScreen }
      handled(w.push, at: e.time, lost ? .notLaunched : .onScreen, note, &c)
    default: break
    }
  }

  private func handled(_ push: Accepted, at t: Double, _ effect: PushOutcome.AppEffect, _ note: PushOutcome.Note, _ c: inout Device.Core) {
    var notes = PushOutcome.Notes()
    notes.append(note)
    c.events.append(.push(PushEvent(
      time: t, kind: .handled, request: push.request, sentAt: push.time, apnsID: push.apnsID, status: 200, wakesApp: push.wakesApp,
      app: effect, notes: notes)))
  }

  /// The run ends at `t`: what is still stored, held or deferred is `held`.
  mutating func finish(at t: Double, _ c: inout Device.Core) {
    if let s = stored { settle(s.push, .held, .stillStored, at: t, &c) }
    if let h = held { settle(h, .held, .stillHeld, at: t, &c) }
    for push in deferred { settle(push, .held, .stillDeferred, at: t, &c) }
    for push in dozeHeld {
      var notes = PushOutcome.Notes()
      for n in (pendingNotes.removeValue(forKey: push.request) ?? []) + [.stillDeferred] { notes.append(n) }
      c.events.append(.push(PushEvent(
        time: t, kind: .held, request: push.request, sentAt: push.time, apnsID: push.apnsID, status: 200, wakesApp: push.wakesApp,
        notes: notes)))
    }
    for s in fcmStored { settle(s.push, .held, .stillStored, at: t, &c) }
    stored = nil
    held = nil
    deferred = []
    dozeHeld = []
    fcmStored = []
  }
}
