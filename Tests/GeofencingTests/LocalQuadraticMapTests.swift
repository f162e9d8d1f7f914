import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// The quadratic map the circle filter takes its points through: within its stated bound of the
/// exact Earth-centred offset, and that bound small enough for a level-14 cell.
@Suite("Local quadratic map")
struct LocalQuadraticMapTests {
  @Test("Within the stated bound of the exact map", arguments: [0.0, 37.7, -45, 70, 88.9])
  func withinBound(latitude: Double) throws {
    var rng = SeededGenerator(seed: UInt64(abs(latitude) * 10) + 1)
    for level in [10, 12, 14, 16] {
      let halfCell = GridCell.size(level: level) / 2
      let reach = 3 * halfCell
      let center = Coordinate(uncheckedLatitude: latitude, longitude: rng.uniform(-180...180))
      let map = LocalQuadraticMap(latitude: center.latitude, longitude: center.longitude)
      let bound = LocalQuadraticMap.errorBound(reach: reach)
      let origin = Ellipsoid.wgs84.cartesian(center)
      var worst = 0.0
      for _ in 0..<2_000 {
        let lat = min(90, max(-90, center.latitude + rng.uniform(-reach...reach)))
        let lon = center.longitude + rng.uniform(-reach...reach)
        let point = try Coordinate(latitude: lat, longitude: lon)
        let exact = Ellipsoid.wgs84.cartesian(point) - origin
        let e = map.offset(latitude: lat, longitude: lon) - exact
        worst = max(worst, (e * e).sum().squareRoot())
      }
      #expect(worst <= bound, "level \(level): error \(worst) m, bound \(bound) m")
      // The bound is a bound, not a guess: the map is second order, so the error is of its size.
      #expect(worst >= bound / 1_000, "level \(level): error \(worst) m, bound \(bound) m")
    }
  }

  @Test("A level-14 cell's bound is under a millimetre, far inside the filter's slack")
  func levelFourteenIsTight() {
    let bound = LocalQuadraticMap.errorBound(reach: 3 * GridCell.size(level: 14) / 2)
    #expect(bound < 1e-3)
    #expect(bound <= CircleFilter.slack(extent: 1_000) / 2)
  }
}
