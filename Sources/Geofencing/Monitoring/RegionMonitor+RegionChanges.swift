import Geodesy

extension RegionMonitor {
  /// Moves the running monitor onto another version of its regions, shared with other monitors
  /// (a server's fence update: one new ``RegionSet`` built once, every device moved onto it),
  /// with the effect of ``stopMonitoring(_:)`` and ``startMonitoring(_:into:)`` for each region
  /// that differs, without a copy of the index per monitor:
  ///
  /// - a region in both versions with the same definition keeps all its state (inside or not,
  ///   unconfirmed crossings, dwell, delivery times);
  /// - a region no longer in the set, or redefined, loses it: no event, its unconfirmed
  ///   crossings and dwell are dropped (as `stopMonitoring`);
  /// - a region new to the set, or redefined, takes its state at the last fix used: when the
  ///   device is inside, a `state` event as at the first fix (delivered where the profile
  ///   delivers state events) and its dwell starts; nothing before the first fix;
  /// - past the profile's cap (``RegionMonitoringProfile/maximumRegions``), the regions the cap
  ///   newly leaves out get a `monitoringFailed` event at the last fix.
  ///
  /// Fixes held for reordering are used afterwards, over the new regions.
  /// - Parameters:
  ///   - notifications: per region, which transitions the app wants; nil keeps the monitor's.
  ///   - change: what differs between the monitor's set and `regions`, worked out once for many
  ///     monitors (it must have been made with the monitor's notifications and `notifications`).
  ///     Used when it leads from the monitor's set to the one it monitors over `regions` (the
  ///     same set, unless the profile's cap leaves some out); otherwise every region is compared.
  ///     Either way the result is the same.
  public mutating func replaceRegions(
    with regions: RegionSet, notifications: [RegionIdentifier: RegionNotifications]? = nil, change: RegionSetChange? = nil,
    into events: inout [RegionEvent]
  ) throws {
    let old = detector.regions
    let oldFailed = Set(failedRegions.map(\.identifier))
    let wanted = notifications ?? self.notifications
    // The monitor the set makes (capped as the profile caps it), then this one's state moved onto it.
    var next = try RegionMonitor(regions: regions, profile: profile, notifications: wanted, seed: seed)
    let set = next.detector.regions
    let change = change.flatMap { $0.leads(from: old, to: set) ? $0 : nil } ?? RegionSetChange(
      from: old, notifications: self.notifications, to: set, notifications: next.notifications)
    let differing = change.differingNames
    func kept(_ name: String) -> Bool { !differing.contains(name) }
    var saved = snapshot()
    saved.detector.regions = set.fingerprint
    saved.detector.inside.removeAll { !kept($0) }
    saved.detector.cell = nil
    saved.confirmedInside.removeAll { !kept($0) }
    saved.pending.removeAll { !kept($0.region) }
    saved.dwellDue = saved.dwellDue.filter { kept($0.key) }
    saved.suppressedFlaps = saved.suppressedFlaps.filter { kept($0.key) }
    saved.approachArmed?.removeAll { !kept($0) }
    saved.approachLeads = saved.approachLeads?.filter { kept($0.key) }
    saved.lastDelivery = saved.lastDelivery?.filter { kept($0.key) }
    next = try RegionMonitor(restoring: saved, regions: regions, profile: profile, notifications: wanted, seed: seed)
    let fix = lastTime.flatMap { time in lastCoordinate.map { LocationFix(time: time, coordinate: $0) } }
    if next.started, let fix {
      for region in next.failedRegions where !oldFailed.contains(region.identifier) {
        let limit = profile.maximumRegions ?? 0
        events.append(RegionEvent(
          kind: .monitoringFailed, region: region.identifier, crossedAt: fix.time, decidedAt: fix.time, deliveredAt: fix.time,
          coordinate: fix.coordinate, cause: .regionCapExceeded(limit: limit),
          reason: "the \(profile.name) profile monitors at most \(limit) regions per app; this one was added past the cap"))
      }
    }
    let cartesian = fix.map { Ellipsoid.wgs84.cartesian($0.coordinate) }
    for id in change.differingInNewSet {
      guard let fix, let cartesian, let slot = set.slot(of: id) else { continue }
      let inside = set.index.slot(Int(slot), contains: fix.coordinate, cartesian: cartesian)
      next.detector.insideBySlot[slot] = inside
      guard next.started, inside else { continue }
      next.confirmedInside[slot] = true
      events.append(next.stateEvent(
        id, .inside, at: fix, cause: .initialState, reason: "initial state when monitoring started, at the last fix"))
      next.startDwell(id, at: fix.time)
    }
    self = next
  }
}
