/// The push side of an Android device: FCM's store-and-forward, priorities through Doze, the
/// standby bucket's quota on high-priority messages and FCM's deprioritization
/// (``PushProfile/fcm``; docs/platform-rules.md, Android's app runtime).
extension PushLane {
  /// The device is offline: FCM stores the message until its time to live (0: now or never),
  /// replacing a stored one with the same collapse key, keeping at most
  /// ``PushProfile/storedMessageLimit``.
  mutating func storeFCM(_ push: Accepted, until expiration: Double?, at t: Double, _ c: inout Device.Core) {
    if expiration == 0 {
      settle(push, .dropped, .expirationZeroOffline, at: t, &c)
      return
    }
    let until = min(expiration ?? t + profile.defaultStorage, t + profile.maximumStorage)
    guard until > t else {
      settle(push, .dropped, .expiredWhenSent, at: t, &c)
      return
    }
    if let key = push.collapseID, let k = fcmStored.firstIndex(where: { $0.push.collapseID == key }) {
      settle(fcmStored[k].push, .coalesced, .replacedOffline(by: push.apnsID, sameCollapseID: true), at: t, &c)
      fcmStored.remove(at: k)
    }
    if fcmStored.count >= profile.storedMessageLimit, let oldest = fcmStored.first {
      fcmStored.removeFirst()
      settle(oldest.push, .dropped, .storeFull(limit: profile.storedMessageLimit), at: t, &c)
    }
    fcmStored.append(Stored(push: push, until: until))
  }

  /// A message reaches the device at `t`: high priority at once, within the bucket's quota and
  /// unless deprioritized; normal priority at once, or at Doze's next maintenance window.
  mutating func arriveFCM(_ push: Accepted, at t: Double, via: PushOutcome.Note?, _ c: inout Device.Core) {
    var notes: [PushOutcome.Note] = via.map { [$0] } ?? []
    var high = push.priority == 10
    if high, let rules = c.power.rules {
      highPriorityDeliveries.removeAll { t - $0 >= 86_400 }
      let bucket = c.power.bucket(at: t)
      if !push.userVisible, let since = invisibleHighPrioritySince, t - since >= rules.deprioritizationDays * 86_400 {
        high = false
        notes.append(.deprioritized(days: Int(rules.deprioritizationDays)))
      } else if let perDay = rules.highPriorityMessagesPerDay(bucket), highPriorityDeliveries.count >= perDay {
        high = false
        notes.append(.highPriorityQuota(bucket: bucket.rawValue, perDay: perDay))
      }
    }
    if push.priority == 10 {
      // The pattern FCM watches: high-priority messages sent that show nothing.
      if push.userVisible { invisibleHighPrioritySince = nil } else if invisibleHighPrioritySince == nil { invisibleHighPrioritySince = t }
    }
    if high {
      highPriorityDeliveries.append(t)
      deliver(push, at: t, carrier: nil, why: nil, also: notes, &c)
    } else if c.power.doze(at: t).idle {
      dozeHeld.append(push)
      pendingNotes[push.request] = notes + [.deferredByDoze]
    } else {
      deliver(push, at: t, carrier: nil, why: nil, also: notes, &c)
    }
  }

  /// When what Doze holds goes: the next maintenance window, or now when the device is no
  /// longer idle.
  func dozeRelease(now: Double, _ c: Device.Core) -> Double? {
    guard !dozeHeld.isEmpty else { return nil }
    let doze = c.power.doze(at: now)
    return doze.idle ? doze.windowAt : now
  }

  /// A maintenance window (or the end of Doze): the messages it held are delivered.
  mutating func releaseDozeHeld(at t: Double, _ c: inout Device.Core) {
    guard !dozeHeld.isEmpty, !c.power.doze(at: t).idle else { return }
    let waiting = dozeHeld
    dozeHeld = []
    for push in waiting {
      let notes = pendingNotes.removeValue(forKey: push.request) ?? []
      deliver(push, at: t, carrier: nil, why: nil, also: notes, &c)
    }
  }
}
