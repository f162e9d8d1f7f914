public import Geodesy
public import Geofencing

/// One walk into a circular fence and out again, with its ground truth: where the walker was
/// every second and when the boundary was really crossed. ``SyntheticCrossingTrials`` makes them
/// in the layout of Shevchenko & Reips's field tests; ``CrossingTrialRun`` replays them.
public struct CrossingTrial: Sendable {
  /// Numbered from 1 in the order generated.
  public var id: Int
  /// The phone carried, which picks the profile.
  public var platform: MeasuredDeparture.Platform
  public var fence: CircularRegion
  /// The ground truth, once a second: what the phone's positioning reports (exact positions
  /// with their stated accuracy).
  public var fixes: [LocationFix]
  /// When the walker crossed the boundary inwards.
  public var enteredAt: Double
  /// When the walker left the centre.
  public var departedAt: Double
  /// When the walker crossed the boundary outwards.
  public var exitedAt: Double

  public init(
    id: Int, platform: MeasuredDeparture.Platform, fence: CircularRegion, fixes: [LocationFix], enteredAt: Double,
    departedAt: Double, exitedAt: Double
  ) {
    self.id = id
    self.platform = platform
    self.fence = fence
    self.fixes = fixes
    self.enteredAt = enteredAt
    self.departedAt = departedAt
    self.exitedAt = exitedAt
  }

  /// The walker's distance from the fence's centre at `time` (between the fixes around it, by
  /// their distances; the first or last fix's outside the track).
  public func distanceFromCentre(at time: Double) -> Double {
    func distance(_ k: Int) -> Double { Geodesic.wgs84.distance(from: fence.center, to: fixes[k].coordinate) }
    guard let first = fixes.first, let last = fixes.last else { return .nan }
    if time <= first.time { return distance(0) }
    if time >= last.time { return distance(fixes.count - 1) }
    var low = 0, high = fixes.count - 1
    while high - low > 1 {
      let mid = (low + high) / 2
      if fixes[mid].time <= time { low = mid } else { high = mid }
    }
    let span = fixes[high].time - fixes[low].time
    let w = span > 0 ? (time - fixes[low].time) / span : 0
    return distance(low) * (1 - w) + distance(high) * w
  }
}

/// Walks into and out of circular fences as Shevchenko & Reips's field tests made them
/// (Behavior Research Methods 56:6411, 2024, study 1: 360 crossings of 10, 50 and 100 m fences
/// with iPhones and Android phones). Where the article's summary gives no number the walk is
/// this generator's documented assumption (`docs/fidelity.md`):
///
/// - radii 10, 50 and 100 m in equal shares, iOS and Android in equal shares;
/// - the walker starts ``approachDistance`` from the centre on a random bearing and walks
///   straight to it at a speed drawn from ``approachSpeed`` (0.6–1.0 m/s: S&R's study 2 iPhones
///   fired entries 44 m and 55 s before the crossing, 0.8 m/s), stands there for a time drawn
///   from ``stay`` (5–15 min; its Android phones fired entries 53 m and 146 s after the
///   crossing: the walkers stopped inside), and walks away on another random bearing at a speed
///   drawn from ``leavingSpeed`` (1.1–1.5 m/s, an ordinary walk) for ``walkAway`` seconds;
/// - a fix every second at the true position with an accuracy drawn per trial from
///   ``accuracy`` (outdoor GPS).
///
/// Deterministic: one seed, one set of trials.
public struct SyntheticCrossingTrials: Sendable {
  public var radii: [Double]
  public var approachDistance: Double
  public var approachSpeed: ClosedRange<Double>
  public var leavingSpeed: ClosedRange<Double>
  public var stay: ClosedRange<Double>
  public var walkAway: Double
  public var accuracy: ClosedRange<Double>
  /// Where the fences are (each trial's fence is near it, trials do not overlap in time).
  public var origin: Coordinate

  public init(
    radii: [Double] = [10, 50, 100], approachDistance: Double = 600, approachSpeed: ClosedRange<Double> = 0.6...1.0,
    leavingSpeed: ClosedRange<Double> = 1.1...1.5,
    stay: ClosedRange<Double> = 300...900, walkAway: Double = 1_800, accuracy: ClosedRange<Double> = 5...15,
    origin: Coordinate = Coordinate(uncheckedLatitude: 47.6633, longitude: 9.1750)
  ) {
    self.radii = radii
    self.approachDistance = approachDistance
    self.approachSpeed = approachSpeed
    self.leavingSpeed = leavingSpeed
    self.stay = stay
    self.walkAway = walkAway
    self.accuracy = accuracy
    self.origin = origin
  }

  /// `count` trials from `seed`: radius and platform cycle through every combination, the rest
  /// is drawn.
  public func trials(count: Int, seed: UInt64) -> [CrossingTrial] {
    var random = SeededGenerator(seed: SeededGenerator.hash(seed ^ 0x6372_6f73_7369_6e67))
    var trials: [CrossingTrial] = []
    trials.reserveCapacity(count)
    let platforms = MeasuredDeparture.Platform.allCases
    var start = 1_700_000_000.0
    for k in 0..<count {
      let radius = radii[k % radii.count]
      let platform = platforms[(k / radii.count) % platforms.count]
      let centre = Geodesic.wgs84.direct(
        from: origin, azimuth: random.uniform(0..<360), distance: random.uniform(0..<5_000))?.destination ?? origin
      // Valid by construction: a finite centre and a radius of at least 10 m.
      let fence = try! CircularRegion(identifier: "fence-\(k + 1)", center: centre, radius: radius)
      let speed = random.uniform(approachSpeed)
      let away = random.uniform(leavingSpeed)
      let inBearing = random.uniform(0..<360)
      let outBearing = random.uniform(0..<360)
      let stayed = random.uniform(stay).rounded()
      let accuracy = random.uniform(self.accuracy)
      let approach = (approachDistance / speed).rounded(.up)
      var fixes: [LocationFix] = []
      func at(_ bearing: Double, _ distance: Double) -> Coordinate {
        distance <= 0 ? centre : Geodesic.wgs84.direct(from: centre, azimuth: bearing, distance: distance)?.destination ?? centre
      }
      for s in 0...Int(approach) {
        let remaining = max(0, approachDistance - speed * Double(s))
        fixes.append(LocationFix(time: start + Double(s), coordinate: at(inBearing, remaining), horizontalAccuracy: accuracy))
      }
      let arrived = start + approach
      for s in stride(from: 1, through: Int(stayed), by: 1) {
        fixes.append(LocationFix(time: arrived + Double(s), coordinate: centre, horizontalAccuracy: accuracy))
      }
      let departed = arrived + stayed
      for s in 1...Int(walkAway) {
        fixes.append(LocationFix(time: departed + Double(s), coordinate: at(outBearing, away * Double(s)), horizontalAccuracy: accuracy))
      }
      trials.append(CrossingTrial(
        id: k + 1, platform: platform, fence: fence, fixes: fixes, enteredAt: start + (approachDistance - radius) / speed,
        departedAt: departed, exitedAt: departed + radius / away))
      // The next trial an hour after this one ends: no monitor state is shared anyway.
      start = departed + walkAway + 3_600
    }
    return trials
  }
}
