/// The geodesic length of a path, point by point: the sum of the geodesic distances between
/// consecutive points, as summing ``Geodesic/distance(from:to:)`` gives it, at the cost of a chord
/// for the short steps GPS tracks are made of.
///
/// **Short steps.** For two surface points with chord c, ``ChordBound`` proves the geodesic
/// distance s lies in [c, (2/κ)·asin(κc/2)], an interval of width κ²c³/24 + O(c⁵). A step whose
/// chord is at most ``shortStepLimit`` is taken to be the middle of that interval,
/// c + κ²c³/48, so its error is at most about half the width: ``stepErrorBound(forChord:)``,
/// 0.52 µm at 1 km, 8 pm at 25 m; add the chord's rounding (the Cartesian points are within 10 nm, see
/// ``Ellipsoid/cartesian(_:)``). Longer steps are solved by ``Geodesic`` (Karney's algorithm).
/// The chord needs one sine and cosine of each point's latitude (see ``add(_:)``).
///
/// ```swift
/// var path = PathLength(ellipsoid: .wgs84)
/// for fix in fixes { path.add(fix.coordinate) }
/// print(path.metres)
/// ```
public struct PathLength: Hashable, Sendable {
  /// Metres along the path so far.
  public private(set) var metres = 0.0
  private let ellipsoid: Ellipsoid
  private let bound: ChordBound
  // The previous point, and what its Cartesian position is made of: N(φ)·cos φ (its distance from
  // the axis) and N(φ)·sin φ (scaled by 1 − e², its height above the equator's plane).
  private var previous: Coordinate?
  private var previousAxisDistance = 0.0
  private var previousNSinLatitude = 0.0

  /// Steps with a chord up to this many metres are measured by the chord (see the type).
  public static let shortStepLimit = 1_000.0
  /// Steps spanning more longitude than this (radians: 2.9°, only near the poles or past the
  /// short-step limit) go to Karney's algorithm; below it the series for the longitude
  /// difference's sine and versine are exact to rounding.
  static let longitudeSeriesLimit = 0.05

  /// An empty path on `ellipsoid`.
  public init(ellipsoid: Ellipsoid = .wgs84) {
    self.ellipsoid = ellipsoid
    bound = ChordBound(ellipsoid: ellipsoid)
  }

  /// Extends the path to `point`; returns the step's length (0 for the first point).
  ///
  /// The chord is computed in a frame turned about the axis so that the previous point lies at
  /// longitude 0: the longitude difference Δλ enters only through sin Δλ and 1 − cos Δλ =
  /// 2 sin²(Δλ/2), both by their series, so each point costs one sine and cosine (of its
  /// latitude) and no difference of large numbers loses more than a few nanometres.
  @discardableResult
  public mutating func add(_ point: Coordinate) -> Double {
    let (sinLatitude, cosLatitude) = DegreeMath.sinCos(point.latitude)
    let e2 = ellipsoid.eccentricitySquared
    let n = ellipsoid.equatorialRadius / (1 - e2 * sinLatitude * sinLatitude).squareRoot()
    let axisDistance = n * cosLatitude
    let nSinLatitude = n * sinLatitude
    defer {
      previous = point
      previousAxisDistance = axisDistance
      previousNSinLatitude = nSinLatitude
    }
    guard let previous else { return 0 }
    // Longitudes are in -180...180: one turn added or taken brings the difference into range
    // (rounding at most 10⁻¹³ degree, a nanometre on the ground).
    var degrees = point.longitude - previous.longitude
    if degrees > 180 { degrees -= 360 } else if degrees < -180 { degrees += 360 }
    let dLongitude = degrees * (.pi / 180)
    var step = Double.nan
    if abs(dLongitude) <= Self.longitudeSeriesLimit {
      // sin x and 1 − cos x by their series: for |x| ≤ 0.05 the first omitted terms (x¹¹/11!,
      // x¹²/12!) are below 10⁻²² of the result.
      let x2 = dLongitude * dLongitude
      let sinX = dLongitude * (1 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5_040 + x2 * (1.0 / 362_880 - x2 / 39_916_800)))))
      let versine = x2 * (0.5 + x2 * (-1.0 / 24 + x2 * (1.0 / 720 + x2 * (-1.0 / 40_320 + x2 / 3_628_800))))
      let dx = (axisDistance - previousAxisDistance) - axisDistance * versine
      let dy = axisDistance * sinX
      let dz = (1 - e2) * (nSinLatitude - previousNSinLatitude)
      let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
      if chord <= Self.shortStepLimit {
        let k = bound.curvature
        step = chord + k * k * chord * chord * chord / 48
      }
    }
    if step.isNaN {
      step = (ellipsoid == .wgs84 ? Geodesic.wgs84 : Geodesic(ellipsoid: ellipsoid)).distance(from: previous, to: point)
    }
    metres += step
    return step
  }

  /// Ends the path here: the next point starts a new piece, adding no step (a new track segment).
  public mutating func breakPath() {
    previous = nil
  }

  /// The largest error of a short step measured by its chord `c` (at most ``shortStepLimit``),
  /// before rounding: the distance from the estimate c + κ²c³/48 to the farther end of
  /// ``ChordBound``'s interval (about κ²c³/48).
  public func stepErrorBound(forChord c: Double) -> Double {
    let k = bound.curvature
    let estimate = c + k * k * c * c * c / 48
    return max(estimate - c, bound.maximumGeodesic(forChord: c) - estimate)
  }
}
