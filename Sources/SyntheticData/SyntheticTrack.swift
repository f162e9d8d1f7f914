public import Geodesy
import RealModule

/// A deterministic, realistic synthetic track: a person switching between walking, cycling and
/// driving around a city, one fix per second, with correlated GPS noise.
///
/// The model follows `../shared/bench/gen_data.py` (the peer baselines' generator): modes walk
/// (1.0–1.7 m/s), bike (3.5–7 m/s) and drive (8–25 m/s, with stops), switching every 5–40 min,
/// bounded acceleration, smooth turns, and an AR(1) position error of 2–3 m. The device stays
/// within `halfSide` metres of `center`. Same seed, same fixes, on every platform.
///
/// It is a `Sequence` that generates fixes lazily: ten million fixes take no memory.
public struct SyntheticTrack: Sequence, Sendable {
  public var seed: UInt64
  public var count: Int
  public var center: Coordinate
  public var halfSide: Double
  public var startTime: Double
  /// Seconds between fixes.
  public var interval: Double

  public init(
    seed: UInt64, count: Int, center: Coordinate, halfSide: Double = 15_000,
    startTime: Double = 1_714_546_800, interval: Double = 1
  ) {
    self.seed = seed
    self.count = count
    self.center = center
    self.halfSide = halfSide
    self.startTime = startTime
    self.interval = interval
  }

  /// One generated fix with the horizontal dilution of precision and the elevation the model
  /// reported.
  public struct Fix: Sendable {
    public var fix: LocationFix
    public var hdop: Double
    /// Metres: ``terrain(x:y:)`` under the true position plus the fix's vertical error, 1.5 times
    /// its horizontal error (GPS is worse vertically), to 0.1 m.
    public var elevation: Double
  }

  /// Rolling city terrain (metres) at `x`, `y` metres east and north of the centre: 20–180 m,
  /// hills a few kilometres across. A function of position only, so elevations take no random
  /// draws and a seed gives the same positions with or without them.
  public static func terrain(x: Double, y: Double) -> Double {
    100 + 50 * Double.sin(x / 2_300) * Double.cos(y / 3_100) + 30 * Double.sin((x + y) / 1_700)
  }

  public func makeIterator() -> Iterator { Iterator(self) }

  public struct Iterator: IteratorProtocol, Sendable {
    private let track: SyntheticTrack
    private var rng: SeededGenerator
    private var produced = 0
    private var x: Double
    private var y: Double
    private var heading: Double
    private var mode = 0
    private var speed = 1.2
    private var targetSpeed = 1.3
    private var modeLeft = 0
    private var stopLeft = 0
    private var turnLeft = 0
    private var turnRate = 0.0
    private var errorX = 0.0
    private var errorY = 0.0
    private var hdop = 1.0
    private let metresPerDegreeLatitude: Double
    private let metresPerDegreeLongitude: Double

    // (minimum speed, maximum speed, acceleration m/s², heading noise deg/s) for walk, bike, drive.
    private static let modes: [(Double, Double, Double, Double)] = [
      (1.0, 1.7, 0.5, 6.0), (3.5, 7.0, 1.0, 2.5), (8.0, 25.0, 2.5, 0.8),
    ]

    init(_ track: SyntheticTrack) {
      self.track = track
      rng = SeededGenerator(seed: track.seed)
      x = rng.uniform(-3000...3000)
      y = rng.uniform(-3000...3000)
      heading = rng.uniform(0...(2 * Double.pi))
      let phi = track.center.latitude * Double.pi / 180
      let ellipsoid = Ellipsoid.wgs84
      metresPerDegreeLatitude = ellipsoid.meridionalRadius(sinLatitude: Double.sin(phi)) * Double.pi / 180
      metresPerDegreeLongitude =
        Swift.max(1, ellipsoid.parallelRadius(sinLatitude: Double.sin(phi), cosLatitude: Double.cos(phi))) * Double.pi / 180
    }

    public mutating func next() -> Fix? {
      guard produced < track.count else { return nil }
      if modeLeft <= 0 {
        mode = [0, 1, 2, 2][Int(rng.uniform(0...3.999_999))]
        modeLeft = Int(rng.uniform(300...2400))
        targetSpeed = rng.uniform(Self.modes[mode].0...Self.modes[mode].1)
      }
      let (vmin, vmax, acceleration, headingNoise) = Self.modes[mode]
      modeLeft -= 1
      var want = targetSpeed
      if stopLeft > 0 {
        stopLeft -= 1
        want = 0
      } else {
        if rng.uniform(0...1) < (mode == 2 ? 0.004 : 0.001) { stopLeft = Int(rng.uniform(10...60)) }
        if rng.uniform(0...1) < 0.02 { targetSpeed = rng.uniform(vmin...vmax) }
      }
      speed = Swift.max(0, speed + Swift.min(acceleration, Swift.max(-acceleration, want - speed)))
      if turnLeft > 0 {
        heading += turnRate
        turnLeft -= 1
      } else if rng.uniform(0...1) < (mode == 2 ? 0.01 : 0.005) {
        turnLeft = Int(rng.uniform(3...8))
        turnRate = rng.uniform(60...110) * Double.pi / 180 / Double(turnLeft) * (rng.uniform(0...1) < 0.5 ? 1 : -1)
      }
      heading += rng.normal() * headingNoise * Double.pi / 180
      if abs(x) > track.halfSide * 0.95 || abs(y) > track.halfSide * 0.95 {
        let back = Double.atan2(y: -y, x: -x)
        let d = (back - heading + Double.pi).truncatingRemainder(dividingBy: 2 * Double.pi)
        heading += 0.3 * ((d < 0 ? d + 2 * Double.pi : d) - Double.pi)
      }
      x += speed * Double.cos(heading) * track.interval
      y += speed * Double.sin(heading) * track.interval
      hdop = Swift.min(3.0, Swift.max(0.6, hdop + rng.normal() * 0.05 + 0.02 * (1.0 - hdop)))
      errorX = 0.95 * errorX + rng.normal() * 0.9 * hdop
      errorY = 0.95 * errorY + rng.normal() * 0.9 * hdop
      let latitude = Swift.min(90, Swift.max(-90, track.center.latitude + (y + errorY) / metresPerDegreeLatitude))
      let longitude = Coordinate.normalizedLongitude(track.center.longitude + (x + errorX) / metresPerDegreeLongitude)
      let time = track.startTime + Double(produced) * track.interval
      produced += 1
      return Fix(
        fix: LocationFix(
          time: time, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
          horizontalAccuracy: hdop * 5),
        hdop: hdop,
        elevation: ((SyntheticTrack.terrain(x: x, y: y) + 1.5 * (errorX + errorY) / 2) * 10).rounded() / 10)
    }
  }
}
