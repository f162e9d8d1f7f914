public import Geodesy

/// Region monitoring as a platform does it: raw crossings from a ``CrossingDetector``, turned into
/// the enter, exit, pass-through and state events an app would be told about, under a
/// ``RegionMonitoringProfile``.
///
/// **Confirmation.** A crossing becomes *pending*; it is confirmed once a fix is beyond the
/// boundary by the profile's confirmation distance (plus the fix's accuracy when the profile
/// says so; an entry never needs more than ``RegionMonitoringProfile/maximumEntryDepthFraction``
/// of the radius) and a fix at least ``RegionMonitoringProfile/confirmationTime`` later is still
/// there. If the path crosses back first, the pending crossing is dropped (counted in
/// ``suppressedFlaps``): GPS noise at a boundary and a single wild fix do not produce events. The
/// event carries the time the boundary was crossed (interpolated) and its delivery time
/// (confirmation plus the profile's latency). Polygon regions need no confirmation distance
/// (their depth is not measured); confirmation time applies to them.
///
/// **Events.** Per region, confirmed enters and exits strictly alternate. The first fix sets
/// every region's state with a `state` event for each region it is inside (the others are
/// outside). A gap longer than the profile's limit makes every state unknown; the next fix sets
/// them again, with a `state` event for each region whose state changed across the gap. A region
/// passed through between two fixes is a `passThrough` event, delivered only when the profile
/// reports them. Regions past the profile's cap get a `monitoringFailed` event at the first fix
/// and are not monitored.
///
/// **Bad fixes** are never used silently: ``process(_:into:)`` returns why it rejected a fix
/// (time not finite, accuracy worse than the profile's limit, out of time order beyond the
/// profile's reorder window). Fixes out of order within the window are put back in place.
///
/// Deterministic: delivery latencies are drawn from the seed, the region and the crossing time.
public struct RegionMonitor {
  public let profile: RegionMonitoringProfile
  /// Regions monitored, in registration order (the last definition of an identifier wins; it
  /// keeps its first position).
  public let monitoredRegions: [Region]
  /// Regions refused because of the profile's cap, in registration order.
  public let failedRegions: [Region]
  /// Fixes used so far.
  public private(set) var fixCount = 0
  /// Fixes rejected so far, by ``FixRejection/cause``.
  public private(set) var rejections: [String: Int] = [:]
  /// Crossings dropped because the path crossed back before confirmation, per region.
  public private(set) var suppressedFlaps: [RegionIdentifier: Int] = [:]

  private var detector: CrossingDetector
  private let notifications: [RegionIdentifier: RegionNotifications]
  private let seed: UInt64
  private var confirmed: [RegionIdentifier: RegionEvent.State] = [:]
  private var pending: [Pending] = []
  private var crossings: [RegionCrossing] = []
  private var openPassThroughs: [RegionIdentifier] = []
  private var lastTime: Double?
  private var reorder: FixReorderBuffer
  private var ready: [LocationFix] = []

  private struct Pending {
    var crossing: RegionCrossing
    var region: Region
    /// Time of the first fix beyond the confirmation distance since the crossing, if any.
    var beyondSince: Double?
  }

  /// Monitors `regions` (in registration order) under `profile`.
  /// - Parameters:
  ///   - notifications: per region, which transitions the app wants (default: both).
  ///   - seed: seeds the delivery latencies.
  /// - Throws: ``RegionError`` when GEOS cannot prepare a polygon.
  public init(
    regions: [Region], profile: RegionMonitoringProfile = .ios,
    notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0
  ) throws(RegionError) {
    var order: [RegionIdentifier] = []
    var latest: [RegionIdentifier: Region] = [:]
    for region in regions {
      if latest.updateValue(region, forKey: region.identifier) == nil { order.append(region.identifier) }
    }
    let unique = order.compactMap { latest[$0] }
    let cap = min(unique.count, profile.maximumRegions ?? unique.count)
    monitoredRegions = Array(unique[..<cap])
    failedRegions = Array(unique[cap...])
    self.profile = profile
    self.notifications = notifications
    self.seed = seed
    detector = CrossingDetector(regions: try RegionIndex(monitoredRegions))
    reorder = FixReorderBuffer(window: profile.reorderWindow)
    for region in monitoredRegions { confirmed[region.identifier] = .unknown }
  }

  /// The state of a region after the last fix, as the app would learn it from `requestState`
  /// (`nil` for a region not monitored; `unknown` before the first fix).
  public func state(of identifier: RegionIdentifier) -> RegionEvent.State? {
    confirmed[identifier]
  }

  /// The state of a region at `time` (not earlier than the last fix): as after the last fix, or
  /// `unknown` once more than the profile's gap limit has passed without a fix.
  public func state(of identifier: RegionIdentifier, at time: Double) -> RegionEvent.State? {
    guard let state = confirmed[identifier] else { return nil }
    guard let last = lastTime, time - last <= profile.gapLimit else { return .unknown }
    return state
  }

  /// Processes the next fix, appending the events it caused (in time order of confirmation).
  ///
  /// Fixes are used in time order: with a reorder window (``RegionMonitoringProfile/reorderWindow``)
  /// a fix is held until the window has passed, so its events come with a later call or with
  /// ``finish(into:)``.
  /// - Returns: why the fix was rejected, or `nil` when it was accepted.
  @discardableResult
  public mutating func process(_ fix: LocationFix, into events: inout [RegionEvent]) -> FixRejection? {
    guard fix.time.isFinite else { return reject(.timeNotFinite) }
    if let limit = profile.maximumHorizontalAccuracy, let accuracy = fix.horizontalAccuracy, accuracy > limit {
      return reject(.inaccurate(accuracy: accuracy, limit: limit))
    }
    guard reorder.add(fix, into: &ready) else {
      return reject(.outOfOrder(previousTime: max(reorder.newest, reorder.lastReleasedTime ?? fix.time), window: reorder.window))
    }
    useReadyFixes(into: &events)
    return nil
  }

  /// Uses the fixes still held for reordering: call once the stream has ended.
  public mutating func finish(into events: inout [RegionEvent]) {
    reorder.flush(into: &ready)
    useReadyFixes(into: &events)
  }

  /// Fixes put back in place by the reorder window so far.
  public var reorderedFixCount: Int { reorder.reorderedCount }

  private mutating func useReadyFixes(into events: inout [RegionEvent]) {
    for fix in ready { use(fix, into: &events) }
    ready.removeAll(keepingCapacity: true)
  }

  private mutating func use(_ fix: LocationFix, into events: inout [RegionEvent]) {
    crossings.removeAll(keepingCapacity: true)
    // Checked above: the detector accepts the fix.
    try? detector.process(fix, into: &crossings)
    fixCount += 1
    defer { lastTime = fix.time }
    guard let last = lastTime else {
      start(at: fix, into: &events)
      return
    }
    if fix.time - last > profile.gapLimit {
      regain(at: fix, gap: fix.time - last, into: &events)
      return
    }
    // A pass-through is two crossings of one region, not always adjacent (crossings of other
    // regions can fall between them): the first opens it, the second closes it.
    openPassThroughs.removeAll(keepingCapacity: true)
    for (k, c) in crossings.enumerated() {
      guard c.isPassThrough else {
        cross(c)
        continue
      }
      if let open = openPassThroughs.firstIndex(of: c.region) {
        openPassThroughs.remove(at: open)
        continue
      }
      openPassThroughs.append(c.region)
      let second = crossings[(k + 1)...].first { $0.region == c.region } ?? c
      passThrough(c, then: second, at: fix, into: &events)
    }
    confirmPending(at: fix, into: &events)
  }

  // MARK: - Steps

  private mutating func reject(_ rejection: FixRejection) -> FixRejection {
    rejections[rejection.cause, default: 0] += 1
    return rejection
  }

  private mutating func start(at fix: LocationFix, into events: inout [RegionEvent]) {
    for region in failedRegions {
      let limit = profile.maximumRegions ?? 0
      events.append(RegionEvent(
        kind: .monitoringFailed, region: region.identifier, crossedAt: fix.time, deliveredAt: fix.time,
        coordinate: fix.coordinate,
        reason: "the \(profile.name) profile monitors at most \(limit) regions per app; this one was registered past the cap"))
    }
    for region in monitoredRegions {
      let inside = detector.isInside(region.identifier) == true
      confirmed[region.identifier] = inside ? .inside : .outside
      if inside {
        events.append(stateEvent(region.identifier, .inside, at: fix, reason: "initial state at the first fix"))
      }
    }
  }

  private mutating func regain(at fix: LocationFix, gap: Double, into events: inout [RegionEvent]) {
    // Only regions crossed during the gap, or with a transition unconfirmed before it, can have
    // a confirmed state that differs from where the device is now.
    var seen = Set<RegionIdentifier>()
    let candidates = pending.map(\.crossing.region) + crossings.map(\.region)
    pending.removeAll(keepingCapacity: true)
    for id in candidates where seen.insert(id).inserted {
      let now: RegionEvent.State = detector.isInside(id) == true ? .inside : .outside
      guard let before = confirmed[id], before != now else { continue }
      confirmed[id] = now
      events.append(stateEvent(
        id, now, at: fix,
        reason: "state regained after \(Int(gap.rounded())) s without fixes (the \(profile.name) profile's limit is \(Int(profile.gapLimit)) s): was \(before.rawValue)"))
    }
  }

  private func stateEvent(_ region: RegionIdentifier, _ state: RegionEvent.State, at fix: LocationFix, reason: String) -> RegionEvent {
    let delivered = profile.deliversStateEvents
    return RegionEvent(
      kind: .state, region: region, crossedAt: fix.time, deliveredAt: delivered ? fix.time : nil,
      coordinate: fix.coordinate, state: state,
      reason: reason + (delivered ? "" : "; not an event on \(profile.name) (requestState would answer \(state.rawValue))"))
  }

  private mutating func passThrough(
    _ first: RegionCrossing, then second: RegionCrossing, at fix: LocationFix, into events: inout [RegionEvent]
  ) {
    if let p = pending.firstIndex(where: { $0.crossing.region == first.region }) {
      // A transition is still unconfirmed and the path left its side for a moment: the
      // confirmation time starts over; the app knows nothing of either, so there is no event.
      pending[p].beyondSince = nil
      return
    }
    let what = first.direction == .enter ? "entered and left" : "left and re-entered"
    let delivered = profile.reportsPassThroughs ? fix.time + latency(first.region, first.time) : nil
    events.append(RegionEvent(
      kind: .passThrough, region: first.region, crossedAt: first.time, deliveredAt: delivered, coordinate: first.coordinate,
      reason: "the path \(what) the region between fixes \(first.fromFix) and \(first.toFix) (\(Int((second.time - first.time).rounded())) s)"
        + (delivered == nil ? "; no fix was on the other side, so \(profile.name) would not have seen it" : "")))
  }

  private mutating func cross(_ c: RegionCrossing) {
    if let p = pending.firstIndex(where: { $0.crossing.region == c.region }) {
      // Back on the confirmed side before confirmation: GPS noise or a brief excursion.
      pending.remove(at: p)
      suppressedFlaps[c.region, default: 0] += 1
      return
    }
    guard let region = detector.regions[c.region] else { return }
    pending.append(Pending(crossing: c, region: region, beyondSince: nil))
  }

  private mutating func confirmPending(at fix: LocationFix, into events: inout [RegionEvent]) {
    var k = 0
    while k < pending.count {
      let p = pending[k]
      let entering = p.crossing.direction == .enter
      let (depth, required) = depthAndRequirement(p.region, entering: entering, fix: fix)
      guard depth >= required else {
        pending[k].beyondSince = nil
        k += 1
        continue
      }
      let since = p.beyondSince ?? fix.time
      pending[k].beyondSince = since
      guard fix.time - since >= profile.confirmationTime else {
        k += 1
        continue
      }
      pending.remove(at: k)
      let id = p.crossing.region
      confirmed[id] = entering ? .inside : .outside
      let wanted = notifications[id] ?? .all
      let notify = entering ? wanted.contains(.entry) : wanted.contains(.exit)
      let delivered = notify ? fix.time + latency(id, p.crossing.time) : nil
      var reason = "crossed the boundary between fixes \(p.crossing.fromFix) and \(p.crossing.toFix)"
      if profile.confirmationDistance > 0 || profile.confirmationTime > 0 || profile.requiresDepthBeyondAccuracy {
        reason += "; confirmed at fix \(detector.fixCount - 1), \(Int(depth.rounded())) m \(entering ? "inside" : "outside")"
          + " (needed \(Int(required.rounded())) m) for \(Int((fix.time - since).rounded())) s (needed \(Int(profile.confirmationTime)) s)"
      }
      if let delivered {
        if delivered > fix.time { reason += "; delivered \(Int((delivered - fix.time).rounded())) s later" }
      } else {
        reason += "; not delivered: notifyOn\(entering ? "Entry" : "Exit") is off"
      }
      events.append(RegionEvent(
        kind: entering ? .enter : .exit, region: id, crossedAt: p.crossing.time, deliveredAt: delivered,
        coordinate: p.crossing.coordinate, reason: reason))
    }
  }

  /// How far beyond the boundary the fix is on the pending side, and how far it must be.
  private func depthAndRequirement(_ region: Region, entering: Bool, fix: LocationFix) -> (Double, Double) {
    let accuracy = profile.requiresDepthBeyondAccuracy ? (fix.horizontalAccuracy ?? 0) : 0
    switch region {
    case .circle(let c):
      let d = Geodesic.wgs84.distance(from: c.center, to: fix.coordinate)
      if entering {
        return (c.radius - d, min(profile.confirmationDistance + accuracy, c.radius * profile.maximumEntryDepthFraction))
      }
      return (d - c.radius, profile.confirmationDistance + accuracy)
    case .polygon:
      // On the pending side (the detector says so); depth is not measured for polygons.
      return (0, 0)
    }
  }

  /// The delivery latency of an event: uniform in the profile's range, from the seed, the region
  /// and the crossing time (SplitMix64 over an FNV-1a hash; no process-random hashing).
  private func latency(_ region: RegionIdentifier, _ time: Double) -> Double {
    let range = profile.deliveryLatency
    guard range.upperBound > range.lowerBound else { return range.lowerBound }
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in region.rawValue.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
    var z = seed ^ h ^ time.bitPattern
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    z ^= z >> 31
    let unit = Double(z >> 11) * 0x1p-53
    return range.lowerBound + unit * (range.upperBound - range.lowerBound)
  }
}
