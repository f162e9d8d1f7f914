public import Geodesy
public import Geofencing
import RealModule

/// A deterministic set of synthetic regions around a city, like the peer baselines' generator:
/// radii log-uniform in `radii`, half of them (at most 1 000) centred within 0.8 r of a position of
/// the track so that the track surely enters them, the rest uniform over a square of side
/// max(30 km, 0.5 km·√K) around `center`. A `polygonFraction` of them are polygons of `vertices`
/// vertices (by default 5–12) between 0.5 r and r from the centre, in the order of their angle
/// about it (so each is simple), drawn as the `outline` says, instead of circles.
public struct SyntheticRegions: Sendable {
  /// How a polygon's distance from its centre varies along its boundary.
  public enum Outline: String, Sendable, CaseIterable {
    /// Each vertex at its own random distance: a spiky star, as jagged at every vertex.
    case star
    /// Distances that vary smoothly at every scale, large bays and headlands down to small
    /// wiggles (a sum of harmonics whose amplitudes fall as the frequency rises), as a coastline or
    /// a district's border does.
    case coast
  }

  public var seed: UInt64
  public var count: Int
  public var center: Coordinate
  public var radii: ClosedRange<Double>
  public var polygonFraction: Double
  /// The range of a polygon's vertex count (uniform).
  public var vertices: ClosedRange<Int>
  /// How a polygon's boundary is drawn.
  public var outline: Outline

  public init(
    seed: UInt64, count: Int, center: Coordinate, radii: ClosedRange<Double> = 50...2000, polygonFraction: Double = 0,
    vertices: ClosedRange<Int> = 5...12, outline: Outline = .star
  ) {
    self.seed = seed
    self.count = count
    self.center = center
    self.radii = radii
    self.polygonFraction = polygonFraction
    self.vertices = max(3, vertices.lowerBound)...max(3, vertices.upperBound)
    self.outline = outline
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
      if asPolygon,
        let polygon = Self.polygon(
          name: name, center: c, radius: radius, vertices: vertices, outline: outline, rng: &rng,
          metresPerDegreeLatitude: metresPerDegreeLatitude)
      {
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

  static func polygon(
    name: String, center: Coordinate, radius: Double, vertices range: ClosedRange<Int>, outline: Outline,
    rng: inout SeededGenerator, metresPerDegreeLatitude: Double
  ) -> PolygonRegion? {
    let vertices = Int(rng.uniform(Double(range.lowerBound)...(Double(range.upperBound) + 0.999)))
    var angles: [Double] = []
    var distances: [Double] = []
    angles.reserveCapacity(vertices)
    distances.reserveCapacity(vertices)
    for k in 0..<vertices {
      angles.append((Double(k) + rng.uniform(0.1...0.9)) / Double(vertices) * 2 * Double.pi)
      if outline == .star { distances.append(radius * rng.uniform(0.5...1.0)) }
    }
    if outline == .coast {
      // Harmonics 1 … H of random phase and amplitude about 1/k: a boundary rough at every scale
      // the vertices can show (about eight vertices to the shortest wave, at most 256 waves),
      // taken to 0.5 r … r. Each vertex's cos kθ, sin kθ by rotation, not by cosines.
      let harmonics = max(1, min(256, vertices / 8))
      var cosPhases: [Double] = []
      var sinPhases: [Double] = []
      var amplitudes: [Double] = []
      for k in 1...harmonics {
        let amplitude = rng.uniform(0.5...1.0) / Double(k)
        let phase = rng.uniform(0...(2 * Double.pi))
        amplitudes.append(amplitude)
        cosPhases.append(Double.cos(phase))
        sinPhases.append(Double.sin(phase))
      }
      var values: [Double] = []
      values.reserveCapacity(vertices)
      for angle in angles {
        let (c, s) = (Double.cos(angle), Double.sin(angle))
        var (ck, sk) = (c, s)
        var value = 0.0
        for k in 0..<harmonics {
          value += amplitudes[k] * (ck * cosPhases[k] - sk * sinPhases[k])
          (ck, sk) = (ck * c - sk * s, sk * c + ck * s)
        }
        values.append(value)
      }
      let low = values.min() ?? 0
      let span = max((values.max() ?? 0) - low, 1e-12)
      distances = values.map { radius * (0.5 + 0.5 * ($0 - low) / span) }
    }
    var ring: [Coordinate] = []
    ring.reserveCapacity(vertices + 1)
    for k in 0..<vertices {
      let (angle, r) = (angles[k], distances[k])
      ring.append(offset(center, east: r * Double.cos(angle), north: r * Double.sin(angle),
                         metresPerDegreeLatitude: metresPerDegreeLatitude))
    }
    ring.append(ring[0])
    return try? PolygonRegion(identifier: name, exterior: ring)
  }
}
