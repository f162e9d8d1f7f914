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
