import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// The approximations the detector relies on, each against its stated bound.
@Suite("Stated error bounds")
struct BoundsTests {
  /// CartesianFrame's series agrees with the exact Earth-centred coordinates to nanometres within
  /// 0.5° of its centre (the detector's slack is 1 µm).
  @Test func cartesianFrameSeriesIsExactToNanometres() throws {
    var rng = SeededGenerator(seed: 31)
    var worst = 0.0
    for _ in 0..<2_000 {
      let latitude = rng.uniform(-89...89)
      let longitude = rng.longitude()
      let frame = CartesianFrame(latitude: latitude, longitude: longitude, halfSize: 0.5)
      #expect(frame.isLocal)
      for _ in 0..<20 {
        let point = try Coordinate(
          latitude: min(90, max(-90, latitude + rng.uniform(-0.5...0.5))), longitude: longitude + rng.uniform(-0.5...0.5))
        let d = frame.cartesian(point) - Ellipsoid.wgs84.cartesian(point)
        worst = max(worst, (d * d).sum().squareRoot())
      }
    }
    #expect(worst < 1e-8, "worst difference \(worst) m")
  }

  /// The curve through a path's ends with the frame's second derivative stays within the bound
  /// of ``CartesianFrame/curvature(deltaLatitude:deltaLongitude:)`` of the exact path, and the
  /// bound lets the solver interpolate a city step in a level-14 cell.
  @Test func curvatureInterpolationIsWithinItsBound() throws {
    var rng = SeededGenerator(seed: 33)
    var usable = 0
    for _ in 0..<400 {
      let latitude = rng.uniform(-85...85)
      let longitude = rng.longitude()
      let halfSize = [0.0055, 0.02, 0.5][Int(rng.uniform(0...2.999))]
      let frame = CartesianFrame(latitude: latitude, longitude: longitude, halfSize: halfSize)
      let start = try Coordinate(
        latitude: latitude + rng.uniform(-halfSize...halfSize),
        longitude: longitude + rng.uniform(-halfSize...halfSize))
      // Steps up to about 30 m, and now and then across the whole frame; both ends in it.
      let reach = rng.uniform(0...1) < 0.8 ? 0.0002 : 2 * halfSize
      let end = try Coordinate(
        latitude: min(latitude + halfSize, max(latitude - halfSize, start.latitude + rng.uniform(-reach...reach))),
        longitude: min(longitude + halfSize, max(longitude - halfSize, start.longitude + rng.uniform(-reach...reach))))
      let path = PathSegment(from: start, at: 0, to: end, at: 1)
      let (second, error) = frame.curvature(deltaLatitude: path.deltaLatitude, deltaLongitude: path.deltaLongitude)
      let p0 = frame.cartesian(path.point(at: 0))
      let p1 = frame.cartesian(path.point(at: 1))
      for u in stride(from: 0.0, through: 1.0, by: 0.125) {
        let interpolated = p0 + u * (p1 - p0) + ((u * u - u) / 2) * second
        let d = interpolated - frame.cartesian(path.point(at: u))
        #expect((d * d).sum().squareRoot() <= error + 5e-9)
      }
      if halfSize == 0.0055 && path.lengthBound(from: 0, to: 1) <= 25 && error + 5e-9 <= 1e-8 { usable += 1 }
    }
    #expect(usable > 20)
  }

  /// PathSegment.lengthBound is never below the path's true length (integrated finely with the
  /// exact geodesic between close points), and not loose by more than 1 % on short segments.
  @Test func pathLengthBoundIsAnUpperBound() throws {
    var rng = SeededGenerator(seed: 32)
    for _ in 0..<300 {
      let start = try Coordinate(latitude: rng.latitude(in: -85...85), longitude: rng.longitude())
      let end = start.moved(Double.exp(rng.uniform(0...11)), azimuth: rng.uniform(-180...180))
      let path = PathSegment(from: start, at: 0, to: end, at: 1)
      var length = 0.0
      let steps = 400
      for i in 0..<steps {
        length += Geodesic.wgs84.distance(
          from: path.point(at: Double(i) / Double(steps)), to: path.point(at: Double(i + 1) / Double(steps)))
      }
      let bound = path.lengthBound(from: 0, to: 1)
      #expect(bound >= length * (1 - 1e-12), "bound \(bound) below length \(length)")
      if length < 10_000 { #expect(bound <= length * 1.01 + 1e-6) }
    }
  }

  /// A circle's bounding box holds every point of the circle.
  @Test func circleBoxesHoldTheirCircles() throws {
    var rng = SeededGenerator(seed: 33)
    for _ in 0..<500 {
      let center = try Coordinate(latitude: rng.latitude(), longitude: rng.longitude())
      let circle = try CircularRegion(identifier: "c", center: center, radius: Double.exp(rng.uniform(0...15)))
      let box = CircleGeometry(circle).boundingBox
      for k in 0..<36 {
        let edge = center.moved(circle.radius, azimuth: Double(k) * 10)
        #expect(box.contains(latitude: edge.latitude, longitude: edge.longitude), "\(circle) \(edge)")
      }
    }
  }
}
