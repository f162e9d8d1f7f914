public import CellHandoff
public import Geodesy
import Geofencing

/// Trips through synthetic cell layouts, to hold the significant-location-change model against
/// what phones were measured doing (how far the device had moved at each wake). Where the
/// measurements' sources say nothing, the trips are this generator's documented assumption
/// (`docs/fidelity.md`):
///
/// - each trip has a hexagonal cell layout with a spacing drawn from ``spacing`` (500–1,500 m:
///   urban; the measurements were made in three cities), anchored at its start;
/// - each trip is on foot, in city traffic or on a highway, by the shares of ``modes``, at a speed
///   drawn from the mode's range;
/// - the device moves for ``duration`` seconds, holding its heading
///   for legs of 200–1,500 m and then turning by up to ±90° (a street network, not a straight
///   line);
/// - a fix every ``fixInterval`` seconds.
///
/// Deterministic: one seed, one set of trips.
public struct SignificantChangeTrips: Sendable {
  /// How a trip travels: its share of the trips and its speeds (m/s).
  public struct Mode: Sendable {
    public var name: String
    public var share: Double
    public var speed: ClosedRange<Double>

    public init(name: String, share: Double, speed: ClosedRange<Double>) {
      self.name = name
      self.share = share
      self.speed = speed
    }
  }

  public var spacing: ClosedRange<Double>
  public var modes: [Mode]
  public var duration: Double
  public var fixInterval: Double
  public var origin: Coordinate

  public init(
    spacing: ClosedRange<Double> = 500...1_500, modes: [Mode] = defaultModes, duration: Double = 3_600,
    fixInterval: Double = 5, origin: Coordinate = Coordinate(uncheckedLatitude: 37.7749, longitude: -122.4194)
  ) {
    self.spacing = spacing
    self.modes = modes
    self.duration = duration
    self.fixInterval = fixInterval
    self.origin = origin
  }

  /// A city dweller's trips: 75 % on foot (1.2–1.6 m/s), 17.5 % in city traffic (5–14 m/s),
  /// 7.5 % on highways (20–30 m/s). Assumption (the measurements name cities, not modes).
  public static let defaultModes = [
    Mode(name: "foot", share: 0.75, speed: 1.2...1.6), Mode(name: "city", share: 0.175, speed: 5...14),
    Mode(name: "highway", share: 0.075, speed: 20...30),
  ]

  /// Trips per run of ``PublishedComparison``.
  public static let tripsPerRun = 600

  /// One trip: its cell spacing, mode and fixes.
  public struct Trip: Sendable {
    public var spacing: Double
    public var mode: String
    public var fixes: [LocationFix]
  }

  /// `count` trips from `seed`.
  public func trips(count: Int, seed: UInt64) -> [Trip] {
    var random = SeededGenerator(seed: SeededGenerator.hash(seed ^ 0x7369_676e_6966_6963))
    var trips: [Trip] = []
    var start = 1_700_000_000.0
    for _ in 0..<count {
      let spacing = random.uniform(spacing)
      let total = modes.reduce(0) { $0 + $1.share }
      var pick = random.uniform(0..<max(total, .leastNonzeroMagnitude))
      var mode = modes[modes.count - 1]
      for candidate in modes {
        if pick < candidate.share {
          mode = candidate
          break
        }
        pick -= candidate.share
      }
      let speed = random.uniform(mode.speed)
      var position = Geodesic.wgs84.direct(
        from: origin, azimuth: random.uniform(0..<360), distance: random.uniform(0..<20_000))?.destination ?? origin
      var heading = random.uniform(0..<360)
      var legLeft = random.uniform(200...1_500)
      var fixes: [LocationFix] = []
      var t = 0.0
      while t <= duration {
        fixes.append(LocationFix(time: start + t, coordinate: position, horizontalAccuracy: 10))
        var step = speed * fixInterval
        while step > 0 {
          let run = min(step, legLeft)
          position = Geodesic.wgs84.direct(from: position, azimuth: heading, distance: run)?.destination ?? position
          step -= run
          legLeft -= run
          if legLeft <= 0 {
            heading = (heading + random.uniform(-90...90) + 360).truncatingRemainder(dividingBy: 360)
            legLeft = random.uniform(200...1_500)
          }
        }
        t += fixInterval
      }
      trips.append(Trip(spacing: spacing, mode: mode.name, fixes: fixes))
      start += duration + 3_600
    }
    return trips
  }
}

/// ``SignificantChangeTrips`` replayed through a significant-change profile: the distance the
/// device had moved from the last delivered location at each wake.
public struct SignificantChangeRun: Sendable {
  /// Metres from the last delivered location at each delivered wake after the first, over all
  /// trips, ascending.
  public let distances: [Double]
  public let profile: String

  public init(trips: [SignificantChangeTrips.Trip], profile: SignificantChangeProfile) throws(CellLayoutError) {
    var distances: [Double] = []
    var changes: [ServingCellChange] = []
    var events: [SignificantChangeEvent] = []
    for trip in trips {
      var tracker = try ServingCellTracker(layout: .hexagonal(spacing: trip.spacing))
      var monitor = SignificantChangeMonitor(profile: profile)
      events.removeAll(keepingCapacity: true)
      for fix in trip.fixes {
        changes.removeAll(keepingCapacity: true)
        tracker.process(fix, into: &changes)
        monitor.process(fix, changes: changes, servingRange: tracker.servingTower?.range, into: &events)
      }
      for event in events where event.kind == .significantChange && event.trigger != .start {
        distances.append(event.distanceFromLast)
      }
    }
    self.distances = distances.sorted()
    self.profile = profile.name
  }

  /// The `p` quantile of the distances (type 7); `nil` without wakes.
  public func quantile(_ p: Double) -> Double? { DelayDistribution(distances).quantile(p) }
}
