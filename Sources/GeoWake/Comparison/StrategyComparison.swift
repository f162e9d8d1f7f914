public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// Region monitoring and significant location changes, side by side on one track: how often
/// each wakes the app, how many of the real boundary crossings the app learns of, how late, and
/// at what energy cost (``EnergyModel``).
///
/// **Real crossings** are the geometric truth: the enter and exit events of the `server` profile
/// (no gap limit), per region. Pass-throughs between two fixes are counted apart: neither
/// strategy can see them.
///
/// **Region monitoring** learns of a real crossing when the platform delivers an event for it,
/// early or late: an event of the same kind for that region whose state (inside for an enter,
/// outside for an exit) the app then holds, from the event's crossing time until the region's
/// next delivered event, while the real state that the crossing began still holds. So an iOS
/// entry up to 200 m before the boundary, or an exit minutes after it, is the crossing learned;
/// an entry the platform takes back (an exit) before the device really enters is not. Failing
/// that, an event whose crossing time is the real one within ``matchTolerance`` (a fix rejected
/// for accuracy moves the interpolated crossing a little) is for it. Each real crossing is
/// learned at most once, by the earliest such event; the delay is from the crossing to the
/// delivery (0 when delivered before it). Crossings the platform suppressed (flaps,
/// pass-throughs, regions past its cap) are missed.
///
/// **Significant changes** tell the app only where the device is at each delivery: the app
/// learns of a crossing when a delivered location is on the other side of the boundary than the
/// previous one (the latest real crossing of that kind before the delivery is the one learned;
/// earlier ones in between are missed) — the delay is from the crossing to that delivery. The
/// start event sets the app's first view and is not a wake.
public struct StrategyComparison {
  /// One strategy's figures.
  public struct Result: Hashable, Sendable {
    public var strategy: String
    public var service: EnergyModel.LocationService
    /// Times the app was woken.
    public var wakes: Int
    /// Seconds of track.
    public var duration: Double
    /// Real enter/exit crossings (the same for both strategies).
    public var crossings: Int
    /// Crossings the app learned of.
    public var learned: Int
    /// Delay from each learned crossing to the app knowing, seconds, ascending.
    public var delays: [Double]
    /// Energy from the model, joules.
    public var joules: Double

    public var wakesPerHour: Double { duration > 0 ? Double(wakes) / (duration / 3_600) : 0 }
    public var missed: Int { crossings - learned }
    public var meanDelay: Double? { delays.isEmpty ? nil : delays.reduce(0, +) / Double(delays.count) }
    public var medianDelay: Double? {
      guard !delays.isEmpty else { return nil }
      let n = delays.count
      return n % 2 == 1 ? delays[n / 2] : (delays[n / 2 - 1] + delays[n / 2]) / 2
    }
  }

  /// Seconds between a platform event's crossing time and the real one it reports, at most.
  public static let matchTolerance = 60.0

  public let energy: EnergyModel
  private var truth: RegionMonitor
  private var platform: RegionMonitor
  private var tracker: ServingCellTracker
  private var significant: SignificantChangeMonitor
  private let index: RegionIndex
  private var regionEvents: [RegionEvent] = []
  private var changes: [ServingCellChange] = []
  private var significantEvents: [SignificantChangeEvent] = []
  /// Real crossings per region: time, entering, learned by (platform, significant changes).
  private var real: [RegionIdentifier: [(time: Double, entering: Bool)]] = [:]
  private var platformDeliveries: [RegionEvent] = []
  private var platformWakes = 0
  private var significantWakes = 0
  /// The regions the app believes it is inside from significant changes, and the flips.
  private var believedInside: Set<RegionIdentifier> = []
  private var beliefFlips: [(region: RegionIdentifier, time: Double, entering: Bool)] = []
  private(set) public var passThroughs = 0
  private var firstTime: Double?
  private var lastTime: Double?
  private var lastCellTime = -Double.infinity

  /// - Parameters:
  ///   - platform: the region-monitoring rules the app lives under (default ``RegionMonitoringProfile/ios``).
  ///   - cells: the cells the significant-change service follows.
  public init(
    regions: [Region], platform: RegionMonitoringProfile = .ios, cells: CellLayout,
    significantChanges: SignificantChangeProfile = .ios, energy: EnergyModel = .standard, seed: UInt64 = 0
  ) throws(SetupError) {
    do throws(CellLayoutError) { tracker = try ServingCellTracker(layout: cells) } catch { throw .cells(error) }
    var truthProfile = RegionMonitoringProfile.server
    truthProfile.gapLimit = .infinity
    do throws(RegionMonitoringProfile.InvalidValue) {
      truth = try RegionMonitor(regions: regions, profile: truthProfile)
      self.platform = try RegionMonitor(regions: regions, profile: platform, seed: seed)
    } catch { throw .profile(error) }
    index = RegionIndex(regions)
    significant = SignificantChangeMonitor(profile: significantChanges)
    self.energy = energy
  }

  /// Why a comparison cannot be set up: a profile value out of range, or an unusable cell layout.
  public enum SetupError: Error, Hashable, Sendable, CustomStringConvertible {
    case profile(RegionMonitoringProfile.InvalidValue)
    case cells(CellLayoutError)

    public var description: String {
      switch self {
      case .profile(let e): return e.description
      case .cells(let e): return e.description
      }
    }
  }

  /// Processes the next fix (in time order; `reportedCell` when the track names its cell).
  public mutating func process(_ fix: LocationFix, reportedCell: CellIdentity? = nil) {
    guard fix.time.isFinite else { return }
    regionEvents.removeAll(keepingCapacity: true)
    truth.process(fix, into: &regionEvents)
    recordTruth()
    regionEvents.removeAll(keepingCapacity: true)
    if platform.process(fix, into: &regionEvents) == nil {
      firstTime = min(firstTime ?? fix.time, fix.time)
      lastTime = max(lastTime ?? fix.time, fix.time)
    }
    recordPlatform()
    guard fix.time >= lastCellTime else { return }
    lastCellTime = fix.time
    changes.removeAll(keepingCapacity: true)
    tracker.process(fix, reportedCell: reportedCell, into: &changes)
    significantEvents.removeAll(keepingCapacity: true)
    significant.process(fix, changes: changes, servingRange: tracker.servingTower?.range, into: &significantEvents)
    for event in significantEvents where event.kind == .significantChange {
      if event.trigger != .start { significantWakes += 1 }
      let now = Set(index.regions(containing: event.location.coordinate))
      if event.trigger != .start {
        for id in now.subtracting(believedInside).sorted() { beliefFlips.append((id, event.time, true)) }
        for id in believedInside.subtracting(now).sorted() { beliefFlips.append((id, event.time, false)) }
      }
      believedInside = now
    }
  }

  /// Ends the track and returns the two strategies' figures: region monitoring, then significant
  /// changes.
  public mutating func finish() -> [Result] {
    regionEvents.removeAll(keepingCapacity: true)
    truth.finish(into: &regionEvents)
    recordTruth()
    regionEvents.removeAll(keepingCapacity: true)
    platform.finish(into: &regionEvents)
    recordPlatform()
    let duration = (lastTime ?? 0) - (firstTime ?? lastTime ?? 0)
    let crossings = real.values.reduce(0) { $0 + $1.count }

    // Region monitoring: each delivered enter/exit is for the earliest unmatched real crossing
    // of its kind and region whose state it announces while that state holds (see the type's
    // documentation), or, failing that, one at about its crossing time.
    var used = Set<CrossingKey>()
    var platformDelays: [Double] = []
    var deliveriesByRegion: [RegionIdentifier: [RegionEvent]] = [:]
    for event in platformDeliveries where event.deliveredAt != nil { deliveriesByRegion[event.region, default: []].append(event) }
    for (region, events) in deliveriesByRegion.sorted(by: { $0.key < $1.key }) {
      guard let crossings = real[region] else { continue }
      let events = events.sorted { $0.crossedAt < $1.crossedAt }
      for (j, event) in events.enumerated() {
        let entering = event.kind == .enter
        // The app holds what the event said until the region's next delivered event says otherwise.
        let beliefEnd = events[(j + 1)...].first { ($0.kind == .enter) != entering }?.crossedAt ?? .infinity
        let holds = { (k: Int) -> Bool in
          let stateEnd = crossings[(k + 1)...].first { $0.entering != entering }?.time ?? .infinity
          return event.crossedAt < stateEnd && crossings[k].time < beliefEnd
        }
        let match =
          crossings.indices.first { k in
            crossings[k].entering == entering && !used.contains(CrossingKey(region: region, index: k)) && holds(k)
          }
          ?? crossings.indices.last { k in
            crossings[k].entering == entering && abs(crossings[k].time - event.crossedAt) <= Self.matchTolerance
              && !used.contains(CrossingKey(region: region, index: k))
          }
        guard let k = match, let delivered = event.deliveredAt else { continue }
        used.insert(CrossingKey(region: region, index: k))
        platformDelays.append(max(0, delivered - crossings[k].time))
      }
    }

    // Significant changes: each flip of the app's belief learns the latest real crossing of its
    // kind before it, once.
    var learnedBySignificant = Set<CrossingKey>()
    var significantDelays: [Double] = []
    for flip in beliefFlips {
      guard let crossings = real[flip.region],
        let k = crossings.indices.last(where: { crossings[$0].entering == flip.entering && crossings[$0].time <= flip.time }),
        learnedBySignificant.insert(CrossingKey(region: flip.region, index: k)).inserted
      else { continue }
      significantDelays.append(flip.time - crossings[k].time)
    }

    return [
      Result(
        strategy: "region monitoring (\(platform.profile.name))", service: .regionMonitoring, wakes: platformWakes, duration: duration,
        crossings: crossings, learned: platformDelays.count, delays: platformDelays.sorted(),
        joules: energy.joules(.regionMonitoring, seconds: duration, wakes: platformWakes)),
      Result(
        strategy: "significant changes (\(significant.profile.name))", service: .significantChanges, wakes: significantWakes,
        duration: duration, crossings: crossings, learned: significantDelays.count, delays: significantDelays.sorted(),
        joules: energy.joules(.significantChanges, seconds: duration, wakes: significantWakes)),
    ]
  }

  /// A real crossing: its region and its index among the region's crossings.
  private struct CrossingKey: Hashable {
    var region: RegionIdentifier
    var index: Int
  }

  private mutating func recordTruth() {
    for e in regionEvents {
      switch e.kind {
      case .enter, .exit: real[e.region, default: []].append((e.crossedAt, e.kind == .enter))
      case .passThrough: passThroughs += 1
      default: break
      }
    }
  }

  private mutating func recordPlatform() {
    for e in regionEvents where e.deliveredAt != nil {
      platformWakes += 1
      if e.kind == .enter || e.kind == .exit { platformDeliveries.append(e) }
    }
  }
}
