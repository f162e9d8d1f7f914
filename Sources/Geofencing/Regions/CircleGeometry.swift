import Geodesy
import RealModule

/// A circular region prepared for fast containment: Earth-centred coordinates of the centre and the
/// two chord thresholds of ``ChordBound``.
///
/// For a point with chord d to the centre: d ≤ `innerChord` proves it inside (its geodesic distance
/// is at most (2/κ)asin(κd/2) ≤ radius); d > `outerChord` proves it outside (geodesic ≥ chord). In
/// between — a band 8 µm wide for a 2 km circle, 1 m for 100 km — the exact geodesic decides.
/// Both thresholds carry ``slack`` for floating-point error in the Cartesian conversion.
struct CircleGeometry: Sendable {
  /// Headroom for rounding in Cartesian coordinates and chord lengths (errors are below 1e-8 m).
  static let slack = 1e-6

  let center: Coordinate
  /// Metres; 0 in ``none``.
  let radius: Double
  // The Earth-centred centre as three numbers rather than a `SIMD3` (whose 32-byte alignment
  // would make the record 96 bytes instead of 64: the index holds one per region).
  private let x: Double
  private let y: Double
  private let z: Double
  let innerChord: Double
  let outerChord: Double

  /// The Earth-centred coordinates of the centre.
  @inline(__always) var centerCartesian: SIMD3<Double> { SIMD3(x, y, z) }

  /// Whether this is a circle's geometry rather than ``none``.
  @inline(__always) var isCircle: Bool { radius > 0 }

  /// The record of an index slot that holds no circle.
  static let none = CircleGeometry(
    center: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: 0, centerCartesian: .zero, innerChord: 0, outerChord: 0)

  init(_ region: CircularRegion) {
    self.init(center: region.center, radius: region.radius)
  }

  init(center: Coordinate, radius: Double) {
    self.center = center
    self.radius = radius
    let c = Ellipsoid.wgs84.cartesianFast(latitude: center.latitude, longitude: center.longitude)
    (x, y, z) = (c.x, c.y, c.z)
    innerChord = max(0, ChordBound.wgs84.minimumChord(forGeodesic: radius) - Self.slack)
    outerChord = radius + Self.slack
  }

  /// The geometry with its parts given, as computed before by ``init(_:)``.
  init(center: Coordinate, radius: Double, centerCartesian: SIMD3<Double>, innerChord: Double, outerChord: Double) {
    self.center = center
    self.radius = radius
    (x, y, z) = (centerCartesian.x, centerCartesian.y, centerCartesian.z)
    self.innerChord = innerChord
    self.outerChord = outerChord
  }

  /// Exact containment by the geodesic distance.
  func exactlyContains(_ point: Coordinate) -> Bool {
    Geodesic.wgs84.distance(from: center, to: point) <= radius
  }

  /// Containment of a point given its Cartesian coordinates (the exact geodesic only in the band).
  func contains(_ point: Coordinate, cartesian: SIMD3<Double>) -> Bool {
    let d = cartesian - centerCartesian
    let d2 = (d * d).sum()
    if d2 <= innerChord * innerChord { return true }
    if d2 > outerChord * outerChord { return false }
    return exactlyContains(point)
  }

  func contains(_ point: Coordinate) -> Bool {
    contains(point, cartesian: Ellipsoid.wgs84.cartesian(point))
  }

  /// A lower bound on how far (in metres along any path) a point at chord `d` must move before
  /// its containment can change: its distance to the uncertainty band [innerChord, outerChord].
  @inline(__always)
  func margin(chord d: Double) -> Double {
    max(innerChord - d, d - outerChord, 0)
  }

  /// A latitude/longitude box that surely contains the circle.
  ///
  /// Along any surface path, |dφ/ds| ≤ 1/M ≤ a/b² and |dλ/ds| ≤ 1/p(φ), where p is the radius of the
  /// parallel; so within distance r of the centre the latitude moves at most r·a/b² radians and the
  /// longitude at most r/p_min, p_min taken at the box's latitude farthest from the equator. A box
  /// reaching a pole spans all longitudes.
  var boundingBox: GeoBox { Self.boundingBox(center: center, radius: radius) }

  /// ``boundingBox`` of the circle of `radius` metres around `center`, without preparing it.
  static func boundingBox(center: Coordinate, radius: Double) -> GeoBox {
    let ellipsoid = Ellipsoid.wgs84
    let dLat = radius * ellipsoid.maximumNormalCurvature * (180 / Double.pi) * (1 + 1e-9) + 1e-9
    let south = center.latitude - dLat
    let north = center.latitude + dLat
    guard south > -90, north < 90 else {
      return GeoBox(south: max(-90, south), north: min(90, north), west: -180, east: 180)
    }
    let extreme = max(abs(south), abs(north)) * Double.pi / 180
    let p = ellipsoid.parallelRadius(sinLatitude: Double.sin(extreme), cosLatitude: Double.cos(extreme))
    let dLon = radius / p * (180 / Double.pi) * (1 + 1e-9) + 1e-9
    if dLon >= 180 { return GeoBox(south: south, north: north, west: -180, east: 180) }
    return GeoBox(south: south, north: north, west: center.longitude - dLon, east: center.longitude + dLon)
  }
}
