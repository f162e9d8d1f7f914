public import Geodesy
import SeededRandom

/// Region monitoring as a platform does it: raw crossings from a ``CrossingDetector``, turned into
/// the enter, exit, pass-through and state events an app would be told about, under a
/// ``RegionMonitoringProfile``.
///
/// **Confirmation.** A crossing becomes *pending*; it is confirmed once a fix is beyond the
/// boundary by the profile's confirmation distance or, when the profile has one, a trigger depth
/// drawn for this crossing (plus the fix's accuracy when the profile
/// says so; an entry never needs more than ``RegionMonitoringProfile/maximumEntryDepthFraction``
/// of the radius) and a fix at least ``RegionMonitoringProfile/confirmationTime`` later is still
/// there. If the path crosses back first, the pending crossing is dropped (counted in
/// ``suppressedFlaps``): GPS noise at a boundary and a single wild fix do not produce events. The
/// event carries the time the boundary was crossed (interpolated) and its delivery time
/// (confirmation plus the profile's latency). A polygon's depth is the geodesic distance to its
/// boundary, and an entry never needs more than the same fraction of the radius of the largest
/// circle inside it (so that a small or thin polygon can be entered). A profile with an
/// ``RegionMonitoringProfile/accuracyOverlap`` rule (Android) confirms circle crossings by the
/// share of the fix's accuracy disc inside the region instead; while it is between the
/// thresholds the crossing stays pending (low confidence) and nothing is alerted.
///
/// **Measured rules.** With an ``RegionMonitoringProfile/entryLead`` a circle counts as entered
/// once the device is within the lead drawn for its approach (iOS enters early), and an entry made
/// only within the lead ends with an exit once the device is beyond it again; with an
/// ``RegionMonitoringProfile/evaluationInterval`` crossings are confirmed only at evaluation
/// instants (Android 8 and later); with a ``RegionMonitoringProfile/reportingRate`` some
/// confirmed crossings are never reported (kept undelivered, the state still changes). A
/// region's events reach the app in the order they happened.
///
/// **Dwell.** With a ``RegionMonitoringProfile/loiteringDelay``, a region the device has been
/// inside (confirmed entry, or `state` inside) for that long gets a `dwell` event at the first fix
/// after the delay, if no exit was confirmed meanwhile.
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
/// Deterministic: delivery latencies (and, with a ``RegionMonitoringProfile/triggerDepth``, each
/// crossing's depth; entry leads; whether a crossing is reported; the phase of the evaluation
/// instants) are drawn from the seed, the region and the crossing time.
public struct RegionMonitor: Sendable {
  public let profile: RegionMonitoringProfile
  /// Regions refused because of the profile's cap, in registration order.
  public let failedRegions: [Region]
  /// Fixes used so far.
  public internal(set) var fixCount = 0
  /// Fixes rejected so far, by ``FixRejection/cause``.
  public internal(set) var rejections: [String: Int] = [:]
  /// Crossings dropped because the path crossed back before confirmation, per region.
  public internal(set) var suppressedFlaps: [RegionIdentifier: Int] = [:]

  var detector: CrossingDetector
  /// The profile has an entry lead (read once: the profile is large).
  let hasEntryLead: Bool
  let notifications: [RegionIdentifier: RegionNotifications]
  let seed: UInt64
  /// Whether the first fix has set the regions' states (before it, every state is unknown).
  var started = false
  /// The slots of the regions whose confirmed state is inside (the others are outside once
  /// started): per-device state sized by the regions the device is in.
  var confirmedInside = SlotSet()
  var pending: [Pending] = []
  private var crossings: [RegionCrossing] = []
  private var openPassThroughs: [RegionIdentifier] = []
  var lastTime: Double?
  var lastCoordinate: Coordinate?
  /// Per region inside with a dwell still to come: when the loitering delay ends.
  var dwellDue: [RegionIdentifier: Double] = [:]
  var reorder: FixReorderBuffer
  private var ready: [LocationFix] = []
  /// Inscribed radii of the polygons this device has been asked to enter, by slot.
  var inscribedRadii: [Int32: Double] = [:]
  /// With an ``RegionMonitoringProfile/entryLead``: the circles the device has been farther from
  /// than the largest lead since its last entry (an early entry needs a fresh approach), and the
  /// lead drawn for the current approach.
  var approachArmed = SlotSet()
  var approachLeads: [Int32: Double] = [:]
  /// Where the last full look at the circles for early entries was, and how far (metres) the
  /// device can move from there before any circle's lead can be reached: fixes nearer than that
  /// skip the look. A cache: `nil` after a restore or a change of regions.
  var approachQuiet: (latitude: Double, longitude: Double, metres: Double)?
  /// The circles within reach of an early entry (or with the device inside) at the last full look.
  var approachNear: [Int32] = []
  /// Per region, when its last event reaches the app, while that is still to come: the next one
  /// never arrives earlier.
  var lastDelivery: [RegionIdentifier: Double] = [:]

  struct Pending: Sendable {
    var crossing: RegionCrossing
    /// The circle crossed; nil for a polygon, whose prepared geometry the set holds.
    var circle: CircularRegion?
    /// Time of the first fix beyond the confirmation distance since the crossing, if any.
    var beyondSince: Double?
    /// Metres beyond the boundary this crossing needs (before accuracy and the entry cap); for
    /// an early entry, the lead: metres outside the circle that count as in.
    var depth: Double
    /// An entry the device has not made yet: it came within the profile's entry lead.
    var isApproach = false
  }

  /// The regions monitored: the shared set the monitor was made from, or the part of it under
  /// the profile's cap.
  public var regions: RegionSet { detector.regions }

  /// Regions monitored, in the set's slot order: registration order, the last definition of an
  /// identifier in the place of the first (see ``RegionSet``).
  public var monitoredRegions: [Region] { detector.regions.regions }

  /// Monitors `regions` (in registration order) under `profile`.
  /// - Parameters:
  ///   - notifications: per region, which transitions the app wants (default: both).
  ///   - seed: seeds the delivery latencies.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` when a profile field is out of range
  ///   (see ``RegionMonitoringProfile/validate()``).
  public init(
    regions: [Region], profile: RegionMonitoringProfile = .ios,
    notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0
  ) throws(RegionMonitoringProfile.InvalidValue) {
    try self.init(regions: RegionSet(regions), profile: profile, notifications: notifications, seed: seed)
  }

  /// Monitors a shared set of regions under `profile`: any number of monitors (one per device)
  /// share the set's index, and each holds only its own state — the regions near its device and
  /// the few it is inside. Regions past the profile's cap (in the set's slot order) are not
  /// monitored: they get a `monitoringFailed` event at the first fix, and the monitor keeps a set
  /// of its own with the others.
  /// - Parameters:
  ///   - notifications: per region, which transitions the app wants (default: both).
  ///   - seed: seeds the delivery latencies.
  /// - Throws: ``RegionMonitoringProfile/InvalidValue`` when a profile field is out of range
  ///   (see ``RegionMonitoringProfile/validate()``).
  public init(
    regions: RegionSet, profile: RegionMonitoringProfile = .ios,
    notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64 = 0
  ) throws(RegionMonitoringProfile.InvalidValue) {
    try profile.validate()
    self.profile = profile
    hasEntryLead = profile.entryLead != nil
    self.notifications = notifications
    self.seed = seed
    reorder = FixReorderBuffer(checkedWindow: profile.reorderWindow)
    if let cap = profile.maximumRegions, regions.count > cap {
      let all = regions.regions
      failedRegions = Array(all[cap...])
      detector = CrossingDetector(regions: RegionSet(all[..<cap], configuration: regions.index.configuration))
    } else {
      failedRegions = []
      detector = CrossingDetector(regions: regions)
    }
  }

  /// The state of a region after the last fix, as the app would learn it from `requestState`
  /// (`nil` for a region not monitored; `unknown` before the first fix).
  public func state(of identifier: RegionIdentifier) -> RegionEvent.State? {
    detector.regions.slot(of: identifier).map { slot in
      started ? (confirmedInside[slot] ? .inside : .outside) : .unknown
    }
  }

  /// The state of a region at `time` (not earlier than the last fix): as after the last fix, or
  /// `unknown` once more than the profile's gap limit has passed without a fix.
  public func state(of identifier: RegionIdentifier, at time: Double) -> RegionEvent.State? {
    guard let state = state(of: identifier) else { return nil }
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
    if let accuracy = fix.horizontalAccuracy, !(accuracy >= 0 && accuracy.isFinite) {
      return reject(.accuracyInvalid(accuracy: accuracy))
    }
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

  /// Moves the monitor's clock to `time` without a fix: what happens by then as the device was
  /// last seen happens now instead of at the next fix. Fixes held for reordering whose window has
  /// passed are used, and regions whose loitering delay has ended get their `dwell` event (while
  /// the profile's gap limit has not passed since the last fix; after it the state is unknown,
  /// see ``state(of:at:)``). A fix later arriving with a time more than the reorder window
  /// before `time` is refused as out of order.
  /// - Returns: why the time was refused (not finite, or before a fix already used), or `nil`.
  @discardableResult
  public mutating func advance(to time: Double, into events: inout [RegionEvent]) -> FixRejection? {
    guard time.isFinite else { return .timeNotFinite }
    if let released = reorder.lastReleasedTime, time < released {
      return .outOfOrder(previousTime: released, window: reorder.window)
    }
    reorder.advance(to: time, into: &ready)
    useReadyFixes(into: &events)
    guard let last = lastTime, let coordinate = lastCoordinate, !dwellDue.isEmpty else { return nil }
    let seen = min(time, last + profile.gapLimit)
    if seen >= last {
      dwell(at: LocationFix(time: seen, coordinate: coordinate), seenBy: "the last fix until the clock reached \(Int(seen.rounded(.down))) s", into: &events)
    }
    return nil
  }

  /// An error of a live change to the regions monitored.
  public struct MonitoringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The region that could not be monitored.
    public let region: RegionIdentifier
    /// The profile's cap on regions per app, which is reached.
    public let limit: Int

    public var description: String {
      "cannot monitor \(region): the profile monitors at most \(limit) regions per app, and that many are monitored"
    }
  }

  /// Starts monitoring `region` on the running monitor (`startMonitoring(for:)`, `CLMonitor.add`,
  /// `addGeofences`), or replaces the region with its identifier. Its state is taken at the last
  /// fix used: when the device is inside, a `state` event as at the first fix (delivered when the
  /// profile delivers state events); nothing before the first fix. A replaced region's pending
  /// crossings and dwell are dropped.
  ///
  /// A monitor made from a shared ``RegionSet`` takes its own copy of the index at its first
  /// change (see ``RegionSet``).
  /// - Throws: ``MonitoringError`` when the profile's cap on regions is reached.
  public mutating func startMonitoring(_ region: Region, into events: inout [RegionEvent]) throws(MonitoringError) {
    let id = region.identifier
    let replacing = detector.regions.contains(id)
    if let limit = profile.maximumRegions, !replacing, detector.regions.count >= limit {
      throw MonitoringError(region: id, limit: limit)
    }
    if replacing { forget(id) }
    detector.insert(region)
    approachQuiet = nil
    guard started, let time = lastTime, let coordinate = lastCoordinate, let slot = detector.regions.slot(of: id),
      detector.isInside(slot: slot)
    else { return }
    confirmedInside[slot] = true
    let fix = LocationFix(time: time, coordinate: coordinate)
    events.append(stateEvent(id, .inside, at: fix, cause: .initialState, reason: "initial state when monitoring started, at the last fix"))
    startDwell(id, at: time)
  }

  /// Stops monitoring a region (`stopMonitoring(for:)`, `CLMonitor.remove`, `removeGeofences`):
  /// no event, and its pending crossings and dwell are dropped.
  /// - Returns: The region, or `nil` when it was not monitored.
  @discardableResult
  public mutating func stopMonitoring(_ identifier: RegionIdentifier) -> Region? {
    guard detector.regions.contains(identifier) else { return nil }
    forget(identifier)
    return detector.remove(identifier)
  }

  /// Drops the monitor's own state of a region about to be removed or replaced.
  private mutating func forget(_ id: RegionIdentifier) {
    guard let slot = detector.regions.slot(of: id) else { return }
    pending.removeAll { $0.crossing.region == id }
    dwellDue[id] = nil
    confirmedInside[slot] = false
    inscribedRadii[slot] = nil
    approachArmed.remove(slot)
    approachLeads[slot] = nil
    approachQuiet = nil
    lastDelivery[id] = nil
  }

  private mutating func useReadyFixes(into events: inout [RegionEvent]) {
    // Each fix read by index, before `use` (mutating) runs: iterating `ready` in place would copy
    // it, and moving it out and back, a release of the empty array left behind, for every fix.
    // (`use` does not touch `ready`.)
    var k = 0
    while k < ready.count {
      let fix = ready[k]
      use(fix, into: &events)
      k += 1
    }
    ready.removeAll(keepingCapacity: true)
  }

  private mutating func use(_ fix: LocationFix, into events: inout [RegionEvent]) {
    crossings.removeAll(keepingCapacity: true)
    // Checked above: the detector accepts the fix.
    try? detector.process(fix, into: &crossings)
    fixCount += 1
    defer {
      lastTime = fix.time
      lastCoordinate = fix.coordinate
    }
    guard let last = lastTime else {
      start(at: fix, into: &events)
      return
    }
    if fix.time - last > profile.gapLimit {
      regain(at: fix, gap: fix.time - last, into: &events)
      return
    }
    // A pass-through is two crossings of one region, not always adjacent (crossings of other
    // regions can fall between them): the first opens it, the second closes it. (Most fixes
    // cross nothing: the loop, which holds the list, is skipped for them.)
    if !crossings.isEmpty {
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
    }
    if hasEntryLead { approach(fix) }
    if !pending.isEmpty { confirmPending(at: fix, into: &events) }
    if !dwellDue.isEmpty { dwell(at: fix, into: &events) }
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
        kind: .monitoringFailed, region: region.identifier, crossedAt: fix.time, decidedAt: fix.time, deliveredAt: fix.time,
        coordinate: fix.coordinate, cause: .regionCapExceeded(limit: limit),
        reason: "the \(profile.name) profile monitors at most \(limit) regions per app; this one was registered past the cap"))
    }
    started = true
    for slot in detector.insideSlots() {
      confirmedInside[slot] = true
      let id = detector.regions.identifier(slot: slot)
      events.append(stateEvent(id, .inside, at: fix, cause: .initialState, reason: "initial state at the first fix"))
      startDwell(id, at: fix.time)
    }
  }

  private mutating func regain(at fix: LocationFix, gap: Double, into events: inout [RegionEvent]) {
    approachQuiet = nil
    // Only regions crossed during the gap, or with a transition unconfirmed before it, can have
    // a confirmed state that differs from where the device is now.
    var seen = Set<Int32>()
    let candidates = pending.map(\.crossing) + crossings
    pending.removeAll(keepingCapacity: true)
    for c in candidates where seen.insert(c.slot).inserted {
      let id = c.region
      let now: RegionEvent.State = detector.isInside(slot: c.slot) ? .inside : .outside
      let before: RegionEvent.State = confirmedInside[c.slot] ? .inside : .outside
      guard before != now else { continue }
      confirmedInside[c.slot] = now == .inside
      if now == .inside { startDwell(id, at: fix.time) } else { dwellDue[id] = nil }
      events.append(stateEvent(
        id, now, at: fix, cause: .stateRegained(gap: gap, previous: before),
        reason: "state regained after \(Int(gap.rounded())) s without fixes (the \(profile.name) profile's limit is \(Int(profile.gapLimit)) s): was \(before.rawValue)"))
    }
  }

  func stateEvent(
    _ region: RegionIdentifier, _ state: RegionEvent.State, at fix: LocationFix, cause: RegionEvent.Cause, reason: String
  ) -> RegionEvent {
    let delivered = profile.deliversStateEvents
    return RegionEvent(
      kind: .state, region: region, crossedAt: fix.time, decidedAt: fix.time, deliveredAt: delivered ? fix.time : nil,
      coordinate: fix.coordinate, state: state, cause: cause, withheld: delivered ? nil : .stateNotDelivered,
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
    let delivered = profile.reportsPassThroughs ? fix.time + draw(profile.deliveryLatency, first.region, first.time) : nil
    events.append(RegionEvent(
      kind: .passThrough, region: first.region, crossedAt: first.time, decidedAt: fix.time, deliveredAt: delivered, coordinate: first.coordinate,
      cause: .passedThrough(fromFix: first.fromFix, toFix: first.toFix),
      withheld: delivered == nil ? .passThroughNotReported : nil,
      reason: "the path \(what) the region between fixes \(first.fromFix) and \(first.toFix) (\(Int((second.time - first.time).rounded())) s)"
        + (delivered == nil ? "; no fix was on the other side, so \(profile.name) would not have seen it" : "")))
  }

  private mutating func cross(_ c: RegionCrossing) {
    if profile.entryLead != nil {
      // An early entry waiting for confirmation, or made already: reaching the boundary adds
      // nothing. (With a crossing pending, one back the other way is a flap, as always.)
      let waiting = pending.firstIndex { $0.crossing.region == c.region }
      if c.direction == .enter, let p = waiting, pending[p].isApproach { return }
      if waiting == nil, (c.direction == .enter) == confirmedInside[c.slot] { return }
    }
    if let p = pending.firstIndex(where: { $0.crossing.region == c.region }) {
      // Back on the confirmed side before confirmation: GPS noise or a brief excursion.
      pending.remove(at: p)
      suppressedFlaps[c.region, default: 0] += 1
      return
    }
    let depth = profile.triggerDepth.map { draw($0, c.region, c.time, stream: Self.depthStream) } ?? profile.confirmationDistance
    pending.append(Pending(crossing: c, circle: detector.regions.circularRegion(slot: c.slot), beyondSince: nil, depth: depth))
  }

  private mutating func confirmPending(at fix: LocationFix, into events: inout [RegionEvent]) {
    guard !pending.isEmpty, evaluates(at: fix.time) else { return }
    var k = 0
    while k < pending.count {
      let p = pending[k]
      let entering = p.crossing.direction == .enter
      let evidence = p.isApproach
        ? approachEvidence(p.circle, lead: p.depth, fix: fix)
        : evidence(p.circle, slot: p.crossing.slot, entering: entering, depth: p.depth, fix: fix)
      guard evidence.isSufficient else {
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
      confirmedInside[p.crossing.slot] = entering
      if entering { startDwell(id, at: fix.time) } else { dwellDue[id] = nil }
      let wanted = wants(id)
      let notify = entering ? wanted.contains(.entry) : wanted.contains(.exit)
      var reason = p.isApproach
        ? "came within \(Int(p.depth.rounded())) m of the boundary at fix \(p.crossing.fromFix) (the \(profile.name) profile enters circles early)"
        : p.crossing.fromFix == p.crossing.toFix
          ? "entered only within the early-entry lead, and beyond it again at fix \(p.crossing.fromFix)"
          : "crossed the boundary between fixes \(p.crossing.fromFix) and \(p.crossing.toFix)"
      let text = evidence.description(entering: entering)
      if text != nil || profile.confirmationTime > 0 {
        reason += "; confirmed at fix \(detector.fixCount - 1)" + (text.map { ", " + $0 } ?? "")
        if profile.confirmationTime > 0 {
          reason += " for \(Int((fix.time - since).rounded())) s (needed \(Int(profile.confirmationTime)) s)"
        }
      }
      var missed = false
      if notify, let rates = profile.reportingRate {
        let radius = regionRadius(p.circle, slot: p.crossing.slot)
        let rate = rates.rate(radius: radius, exit: !entering)
        if draw(.uniform(0...1), id, p.crossing.time, stream: Self.reportStream) >= rate {
          missed = true
          reason += "; never reported: the \(profile.name) profile reports \(Int((rate * 100).rounded())) % of \(entering ? "entries into" : "exits from") regions of \(Int(radius.rounded())) m, as measured phones do"
        }
      }
      let delivered = notify && !missed ? deliveryTime(id, p.crossing.time, confirmedBy: fix, reason: &reason) : nil
      if !notify { reason += "; not delivered: notifyOn\(entering ? "Entry" : "Exit") is off" }
      events.append(RegionEvent(
        kind: entering ? .enter : .exit, region: id, crossedAt: p.crossing.time, decidedAt: fix.time, deliveredAt: delivered,
        coordinate: p.crossing.coordinate,
        cause: p.crossing.fromFix == p.crossing.toFix
          ? .leadReached(atFix: p.crossing.fromFix, confirmedByFix: detector.fixCount - 1)
          : .crossingConfirmed(fromFix: p.crossing.fromFix, toFix: p.crossing.toFix, confirmedByFix: detector.fixCount - 1),
        withheld: missed ? .missed : delivered == nil ? .notRequested : nil, reason: reason))
    }
  }

  /// The transitions the app wants for `id` (no lookup when every region wants all).
  func wants(_ id: RegionIdentifier) -> RegionNotifications {
    notifications.isEmpty ? .all : notifications[id] ?? .all
  }

  mutating func startDwell(_ id: RegionIdentifier, at time: Double) {
    if let delay = profile.loiteringDelay { dwellDue[id] = time + delay }
  }

  /// Dwell events for the regions whose loitering delay has ended by `fix` (a fix used, or the
  /// last one where the clock has moved on: `seenBy` says which).
  private mutating func dwell(at fix: LocationFix, seenBy: String? = nil, into events: inout [RegionEvent]) {
    let due = dwellDue.filter { $0.value <= fix.time }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
    for (id, time) in due {
      dwellDue[id] = nil
      let delay = Int((profile.loiteringDelay ?? 0).rounded())
      var reason = "inside for the \(profile.name) profile's loitering delay of \(delay) s, seen at fix \(detector.fixCount - 1)"
      if let seenBy { reason += ", " + seenBy }
      let delivered = wants(id).contains(.dwell) ? deliveryTime(id, time, confirmedBy: fix, reason: &reason) : nil
      if delivered == nil { reason += "; not delivered: notifyOnDwell is off" }
      events.append(RegionEvent(
        kind: .dwell, region: id, crossedAt: time, decidedAt: fix.time, deliveredAt: delivered, coordinate: fix.coordinate,
        cause: .loiteringDelayElapsed(seenAtFix: detector.fixCount - 1), withheld: delivered == nil ? .notRequested : nil,
        reason: reason))
    }
  }

  /// When an event confirmed by `fix` reaches the app; adds the latency to `reason`.
  private mutating func deliveryTime(_ id: RegionIdentifier, _ time: Double, confirmedBy fix: LocationFix, reason: inout String) -> Double {
    var distribution = profile.deliveryLatency
    if let stationary = profile.stationaryDeliveryLatency, let t = lastTime, let c = lastCoordinate {
      let speed = fix.time > t ? Geodesic.wgs84.distance(from: c, to: fix.coordinate) / (fix.time - t) : 0
      if speed < profile.stationarySpeed {
        distribution = stationary
        reason += "; the device was stationary (under \(profile.stationarySpeed) m/s)"
      }
    }
    var delivered = fix.time + draw(distribution, id, time)
    // A region's events reach the app in the order they happened: one drawn to arrive before
    // the region's previous event waits for it.
    if let previous = lastDelivery[id], previous > delivered {
      delivered = previous
      reason += "; delivered \(Int((delivered - fix.time).rounded())) s later, after the region's previous event"
    } else if delivered > fix.time {
      reason += "; delivered \(Int((delivered - fix.time).rounded())) s later"
    }
    // Kept only while in the future: an event confirmed later is delivered no earlier than its fix.
    lastDelivery[id] = delivered > fix.time ? delivered : nil
    return delivered
  }

  /// What a fix shows about a pending crossing of `region`: how far beyond the boundary it is, or
  /// how much of its accuracy disc is inside, and what the profile needs.
  private struct Evidence {
    enum Measure {
      /// Metres beyond the boundary on the pending side, and the metres needed.
      case depth(Double, needed: Double)
      /// Share of the accuracy disc inside the region, the share needed (at least for an entry,
      /// at most for an exit), and the accuracy.
      case overlap(Double, needed: Double, accuracy: Double, entering: Bool)
      /// The detector's containment alone (polygons, and circles when no depth is needed): on
      /// the pending side.
      case containment
      /// The detector's containment alone: not on the pending side.
      case otherSide
    }
    var measure: Measure

    var isSufficient: Bool {
      switch measure {
      case .depth(let depth, let needed): return depth >= needed
      case .overlap(let ratio, let needed, _, let entering): return entering ? ratio >= needed : ratio <= needed
      case .containment: return true
      case .otherSide: return false
      }
    }

    /// A clause for the event's reason, or `nil` when there is nothing to say.
    func description(entering: Bool) -> String? {
      switch measure {
      case .depth(let depth, let needed):
        if needed < 0 {
          return depth < 0 ? "\(Int((-depth).rounded())) m outside (the lead is \(Int((-needed).rounded())) m)" : "\(Int(depth.rounded())) m inside"
        }
        guard needed > 0 else { return nil }
        return "\(Int(depth.rounded())) m \(entering ? "inside" : "outside") (needed \(Int(needed.rounded())) m)"
      case .overlap(let ratio, let needed, let accuracy, _):
        guard accuracy > 0 else { return "\(entering ? "inside" : "outside") (the fix has no accuracy: it counts as a point)" }
        return "\(Int((ratio * 100).rounded())) % of its \(Int(accuracy.rounded())) m accuracy disc inside"
          + " (needed \(entering ? "≥" : "≤") \(Int((needed * 100).rounded())) %)"
      case .containment, .otherSide: return nil
      }
    }
  }

  /// A polygon's inscribed radius, searched for once per monitor.
  private mutating func inscribedRadius(_ polygon: PolygonGeometry, slot: Int32) -> Double {
    if let known = inscribedRadii[slot] { return known }
    let radius = polygon.inscribedRadius()
    inscribedRadii[slot] = radius
    return radius
  }

  private mutating func evidence(
    _ circle: CircularRegion?, slot: Int32, entering: Bool, depth: Double, fix: LocationFix
  ) -> Evidence {
    switch circle {
    case .some(let c):
      var needed = 0.0
      if profile.accuracyOverlap == nil {
        let accuracy = profile.requiresDepthBeyondAccuracy ? (fix.horizontalAccuracy ?? 0) : 0
        needed = depth + accuracy
        if entering { needed = min(needed, c.radius * profile.maximumEntryDepthFraction) }
        // Depth 0 is needed: the side is the detector's exact containment, no geodesic to solve.
        if needed <= 0 { return Evidence(measure: detector.isInside(slot: slot) == entering ? .containment : .otherSide) }
      }
      let d = Geodesic.wgs84.distance(from: c.center, to: fix.coordinate)
      if let overlap = profile.accuracyOverlap {
        let accuracy = fix.horizontalAccuracy ?? 0
        let ratio = AccuracyOverlap.ratio(accuracy: accuracy, radius: c.radius, distance: d)
        let thresholds = overlap.thresholds(radius: c.radius)
        return Evidence(measure: .overlap(ratio, needed: entering ? thresholds.enter : thresholds.exit, accuracy: accuracy, entering: entering))
      }
      if entering {
        return Evidence(measure: .depth(c.radius - d, needed: needed))
      }
      return Evidence(measure: .depth(d - c.radius, needed: needed))
    case .none:
      // Depth is the distance to the boundary, on the side the detector's containment says.
      guard profile.accuracyOverlap == nil else { return Evidence(measure: .containment) }
      let accuracy = profile.requiresDepthBeyondAccuracy ? (fix.horizontalAccuracy ?? 0) : 0
      var needed = depth + accuracy
      let onPendingSide = detector.isInside(slot: slot) == entering
      guard needed > 0, let polygon = detector.regions.index.polygons[Int(slot)] else {
        return Evidence(measure: onPendingSide ? .containment : .otherSide)
      }
      if entering { needed = min(needed, inscribedRadius(polygon, slot: slot) * profile.maximumEntryDepthFraction) }
      let distance = polygon.boundaryDistance(to: fix.coordinate)
      return Evidence(measure: .depth(onPendingSide ? distance : -distance, needed: needed))
    }
  }

  /// Mixed into the draw of a crossing's trigger depth, so that it is independent of the draw of
  /// its delivery latency.
  private static let depthStream: UInt64 = 0x6465_7074_6800_0000
  /// Mixed into the draw of the phase of the evaluation instants.
  private static let phaseStream: UInt64 = 0x7068_6173_6500_0000

  /// Whether the platform looks at the position at a fix at `time`: always without an
  /// ``RegionMonitoringProfile/evaluationInterval``; else when an evaluation instant lies after the
  /// previous fix and not after this one.
  private func evaluates(at time: Double) -> Bool {
    guard let interval = profile.evaluationInterval, let previous = lastTime else { return true }
    let phase = SeededGenerator.unit(SeededGenerator.hash(seed ^ Self.phaseStream)) * interval
    return ((time - phase) / interval).rounded(.down) > ((previous - phase) / interval).rounded(.down)
  }

  /// Mixed into the draw of whether a crossing is reported.
  private static let reportStream: UInt64 = 0x7265_706f_7274_0000
  /// Mixed into the draw of an approach's entry lead.
  private static let leadStream: UInt64 = 0x6c65_6164_0000_0000

  /// The radius a region's size is judged by: a circle's, a polygon's largest inscribed circle's.
  private mutating func regionRadius(_ circle: CircularRegion?, slot: Int32) -> Double {
    switch circle {
    case .some(let c): return c.radius
    case .none:
      guard let polygon = detector.regions.index.polygons[Int(slot)] else { return 0 }
      return inscribedRadius(polygon, slot: slot)
    }
  }

  /// Early entries (``RegionMonitoringProfile/entryLead``): every monitored circle the detector
  /// has the device outside of. A circle the device is confirmed outside of, approached from
  /// beyond the largest lead, gets a pending early entry once the device is within the lead drawn
  /// for this approach; one dropped when the device is beyond the largest lead again. A circle
  /// entered early that the device leaves again without having crossed its boundary gets a
  /// pending exit once the device is beyond the lead.
  private mutating func approach(_ fix: LocationFix) {
    guard let lead = profile.entryLead else { return }
    if let quiet = approachQuiet {
      // No path shorter than this bound (metres) joins the two points: a meridian arc then a
      // parallel one, each radius of curvature under 6,400 km.
      var dLon = abs(fix.coordinate.longitude - quiet.longitude)
      if dLon > 180 { dLon = 360 - dLon }
      let moved = 6_400_000 * (abs(fix.coordinate.latitude - quiet.latitude) + dLon) * (Double.pi / 180)
      if moved < quiet.metres {
        // The circles out of reach at the last full look are still out of reach: only the
        // others can change. One that got out of reach makes the next look a full one.
        guard !approachNear.isEmpty else { return }
        let point = Ellipsoid.wgs84.cartesianFast(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude)
        for k in approachNear.indices {
          let slot = approachNear[k]
          guard let g = detector.regions.index.circle(Int(slot)) else { continue }
          if approachCircle(slot, g, point, fix, lead) > 0 { approachQuiet = nil }
        }
        return
      }
    }
    let point = Ellipsoid.wgs84.cartesianFast(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude)
    let circles = detector.regions.index.circles
    // The least distance the device must move before a circle out of reach can come within it:
    // moving m metres changes a chord by at most m.
    var quietMetres = Double.infinity
    approachNear.removeAll(keepingCapacity: true)
    for k in circles.indices {
      let g = circles[k]
      guard g.isCircle else { continue }
      let slot = Int32(truncatingIfNeeded: k)
      let margin = approachCircle(slot, g, point, fix, lead)
      if margin > 0 { quietMetres = min(quietMetres, margin) } else { approachNear.append(slot) }
    }
    approachQuiet = (fix.coordinate.latitude, fix.coordinate.longitude, quietMetres)
  }

  /// The early-entry rules for one circle at `fix` (see ``approach(_:)``).
  /// - Returns: How far (chord, metres) the device is beyond the circle's largest lead; 0 when
  ///   within it or inside the circle.
  private mutating func approachCircle(
    _ slot: Int32, _ g: CircleGeometry, _ point: SIMD3<Double>, _ fix: LocationFix, _ lead: Distribution
  ) -> Double {
    if detector.isInside(slot: slot) {
      approachArmed.remove(slot)
      return 0
    }
    let offset = point - g.centerCartesian
    let chord = (offset * offset).sum().squareRoot()
    // The chord is never longer than the geodesic: beyond this the device is surely out of reach.
    let margin = max(0, chord - (g.radius + lead.bounds.upperBound + CircleGeometry.slack))
    let waiting = pending.firstIndex { $0.crossing.slot == slot }
    let inside = confirmedInside[slot]
    if margin > 0 {
      if !inside, !approachArmed.contains(slot) { approachArmed.insert(slot) }
      if let p = waiting, pending[p].isApproach {
        suppressedFlaps[pending[p].crossing.region, default: 0] += 1
        pending.remove(at: p)
        return margin
      }
    }
    guard waiting == nil else { return margin }
    if !inside {
      guard approachArmed.contains(slot), margin == 0 else { return margin }
      let id = detector.regions.identifier(slot: slot)
      let drawn: Double
      if let known = approachLeads[slot] {
        drawn = known
      } else {
        drawn = draw(lead, id, fix.time, stream: Self.leadStream)
        approachLeads[slot] = drawn
      }
      guard Geodesic.wgs84.distance(from: g.center, to: fix.coordinate) <= g.radius + drawn else { return margin }
      approachArmed.remove(slot)
      let crossing = RegionCrossing(
        region: id, direction: .enter, time: fix.time, coordinate: fix.coordinate, fromFix: detector.fixCount - 1,
        toFix: detector.fixCount - 1, isPassThrough: false, slot: slot)
      pending.append(Pending(crossing: crossing, circle: detector.regions.circularRegion(slot: slot), beyondSince: nil, depth: drawn, isApproach: true))
    } else {
      let drawn = approachLeads[slot] ?? 0
      guard Geodesic.wgs84.distance(from: g.center, to: fix.coordinate) > g.radius + drawn else { return margin }
      approachLeads[slot] = nil
      let id = detector.regions.identifier(slot: slot)
      let crossing = RegionCrossing(
        region: id, direction: .exit, time: fix.time, coordinate: fix.coordinate,
        fromFix: detector.fixCount - 1, toFix: detector.fixCount - 1, isPassThrough: false, slot: slot)
      let depth = profile.triggerDepth.map { draw($0, id, fix.time, stream: Self.depthStream) } ?? profile.confirmationDistance
      pending.append(Pending(crossing: crossing, circle: detector.regions.circularRegion(slot: slot), beyondSince: nil, depth: depth))
    }
    return margin
  }

  /// What a fix shows about a pending early entry: how far outside the circle it is, against the
  /// lead drawn.
  private func approachEvidence(_ circle: CircularRegion?, lead: Double, fix: LocationFix) -> Evidence {
    guard let c = circle else { return Evidence(measure: .otherSide) }
    let d = Geodesic.wgs84.distance(from: c.center, to: fix.coordinate)
    return Evidence(measure: .depth(c.radius - d, needed: -lead))
  }

  /// A value of `distribution` for an event: from the seed, the region and the crossing time
  /// (SplitMix64's finaliser over an FNV-1a hash of the identifier; no process-random hashing),
  /// and `stream`, which keeps draws for different purposes apart.
  private func draw(_ distribution: Distribution, _ region: RegionIdentifier, _ time: Double, stream: UInt64 = 0) -> Double {
    if case .fixed(let value) = distribution { return value }
    var h = StableHash()
    h.combine(region.rawValue)
    var bits = SeededGenerator.hash(seed ^ h.value ^ time.bitPattern)
    if stream != 0 { bits = SeededGenerator.hash(bits ^ stream) }
    return distribution.value(atUnit: SeededGenerator.unit(bits))
  }
}
