public import Geodesy
public import Geofencing
import RealModule

/// A deterministic set of synthetic regions around a city, like the peer baselines' generator:
/// radii log-uniform in `radii`, half of them (at most 1 000) centred within 0.8 r of a position of
/// the track so that the track surely enters them, the rest uniform over a square of side
/// max(30 km, 0.5 km·√K) around `center`. A `polygonFraction` of them are star-shaped polygons
/// (`vertices` vertices, by default 5–12, between 0.5 r and r from the centre) instead of circles.
public struct SyntheticRegions: Sendable {
  public var seed: UInt64
  public var count: Int
  public var center: Coordinate
  public var radii: ClosedRange<Double>
  public var polygonFraction: Double
  /// The range of a polygon's vertex count (uniform).
  public var vertices: ClosedRange<Int>

  public init(
    seed: UInt64, count: Int, center: Coordinate, radii: ClosedRange<Double> = 50...2000, polygonFraction: Double = 0,
    vertices: ClosedRange<Int> = 5...12
  ) {
    self.seed = seed
    self.count = count
    self.center = center
    self.radii = radii
    self.polygonFraction = polygonFraction
    self.vertices = max(3, vertices.lowerBound)...max(3, vertices.upperBound)
  }

  /// Generates the regions; `trackSample` supplies positions for the regions placed on the track.
  public func generate(near trackSample: [Coordinate]) -> [Region] {
    var rng = SeededGenerator(seed: seed &* 1_000_003 &+ UInt64(count))
    let nearCount = trackSample.isEmpty ? 0 : min(count / 2, 1000)
    let side = max(30_000, 500 * Double(count).squareRoot())
    let logMin = Double.log(radii.lowerBound)
    let logMax = Double.log(radii.upperBound)
    let phi = center.latitude * Double.pi / 180
    let metresPerDegreeLatitude = Ellipsoid.wgs84.meridionalRadius(sinLatitude: Double.sin(phi)) * Double.pi / 180
    var regions: [Region] = []
    regions.reserveCapacity(count)
    let width = max(1, String(count - 1).count)
    for i in 0..<count {
      let radius = Double.exp(rng.uniform(logMin...logMax))
      let origin: Coordinate
      var dx: Double
      var dy: Double
      if i < nearCount {
        origin = trackSample[Int(rng.uniform(0...Double(trackSample.count) - 1e-9))]
        let d = rng.uniform(0...(0.8 * radius))
        let bearing = rng.uniform(0...(2 * Double.pi))
        dx = d * Double.cos(bearing)
        dy = d * Double.sin(bearing)
      } else {
        origin = center
        dx = rng.uniform(-side / 2...side / 2)
        dy = rng.uniform(-side / 2...side / 2)
      }
      let c = Self.offset(origin, east: dx, north: dy, metresPerDegreeLatitude: metresPerDegreeLatitude)
      let name = "r" + String(repeating: "0", count: width - String(i).count) + String(i)
      let asPolygon = polygonFraction > 0 && rng.uniform(0...1) < polygonFraction
      if asPolygon, let polygon = Self.star(name: name, center: c, radius: radius, vertices: vertices, rng: &rng,
                                             metresPerDegreeLatitude: metresPerDegreeLatitude) {
        regions.append(.polygon(polygon))
      } else if let circle = try? CircularRegion(identifier: name, center: c, radius: radius) {
        regions.append(.circle(circle))
      }
    }
    return regions
  }

  static func offset(_ origin: Coordinate, east: Double, north: Double, metresPerDegreeLatitude: Double) -> Coordinate {
    let latitude = min(89.999, max(-89.999, origin.latitude + north / metresPerDegreeLatitude))
    let metresPerDegreeLongitude = max(1, metresPerDegreeLatitude * Double.cos(latitude * Double.pi / 180))
    return Coordinate(
      uncheckedLatitude: latitude,
      longitude: Coordinate.normalizedLongitude(origin.longitude + east / metresPerDegreeLongitude))
  }

  static func star(
    name: String, center: Coordinate, radius: Double, vertices range: ClosedRange<Int>, rng: inout SeededGenerator,
    metresPerDegreeLatitude: Double
  ) -> PolygonRegion? {
    let vertices = Int(rng.uniform(Double(range.lowerBound)...(Double(range.upperBound) + 0.999)))
    var ring: [Coordinate] = []
    for k in 0..<vertices {
      let angle = (Double(k) + rng.uniform(0.1...0.9)) / Double(vertices) * 2 * Double.pi
      let r = radius * rng.uniform(0.5...1.0)
      ring.append(offset(center, east: r * Double.cos(angle), north: r * Double.sin(angle),
                         metresPerDegreeLatitude: metresPerDegreeLatitude))
    }
    ring.append(ring[0])
    return try? PolygonRegion(identifier: name, exterior: ring)
  }
}
