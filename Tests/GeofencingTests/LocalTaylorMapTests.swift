import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// The Taylor maps the circle filter and the exact tests take their points through: within their
/// stated bounds of the exact Earth-centred offset, and those bounds small enough where they are used.
@Suite("Local Taylor map")
struct LocalTaylorMapTests {
  @Test("Within the stated bound of the exact map", arguments: [0.0, 37.7, -45, 70, 88.9])
  func withinBound(latitude: Double) throws {
    var rng = SeededGenerator(seed: UInt64(abs(latitude) * 10) + 1)
    for level in [10, 12, 14, 16] {
      let reach = 3 * GridCell.size(level: level) / 2
      let bound = LocalTaylorMap.errorBound(reach: reach)
      let worst = try Self.worstErrors(latitude: latitude, reach: reach, rng: &rng).secondOrder
      #expect(worst <= bound, "level \(level): error \(worst) m, bound \(bound) m")
      // The bound is a bound, not a guess: the map is second order, so the error is of its size.
      #expect(worst >= bound / 1_000, "level \(level): error \(worst) m, bound \(bound) m")
    }
  }

  /// The largest distances, over 2,000 points within `reach` degrees of a random centre at
  /// `latitude`, between the exact Earth-centred offset and the map's second- and third-order ones.
  static func worstErrors(latitude: Double, reach: Double, rng: inout SeededGenerator) throws
    -> (secondOrder: Double, thirdOrder: Double)
  {
    let center = Coordinate(uncheckedLatitude: latitude, longitude: rng.uniform(-180...180))
    let map = LocalTaylorMap(latitude: center.latitude, longitude: center.longitude)
    let origin = Ellipsoid.wgs84.cartesian(center)
    var worst = (secondOrder: 0.0, thirdOrder: 0.0)
    for _ in 0..<2_000 {
      let lat = min(90, max(-90, center.latitude + rng.uniform(-reach...reach)))
      let lon = center.longitude + rng.uniform(-reach...reach)
      let exact = Ellipsoid.wgs84.cartesian(try Coordinate(latitude: lat, longitude: lon)) - origin
      let e2 = map.offset(latitude: lat, longitude: lon) - exact
      let e3 = map.preciseOffset(latitude: lat, longitude: lon) - exact
      worst.secondOrder = max(worst.secondOrder, (e2 * e2).sum().squareRoot())
      worst.thirdOrder = max(worst.thirdOrder, (e3 * e3).sum().squareRoot())
    }
    return worst
  }

  @Test("A level-14 cell's bound is under a millimetre, far inside the filter's slack")
  func levelFourteenIsTight() {
    let bound = LocalTaylorMap.errorBound(reach: 3 * GridCell.size(level: 14) / 2)
    #expect(bound < 1e-3)
    #expect(bound <= CircleFilter.slack(extent: 1_000) / 2)
  }

  @Test("Third order: within the stated bound of the exact map", arguments: [0.0, 37.7, -45, 70, 88.9])
  func preciseWithinBound(latitude: Double) throws {
    var rng = SeededGenerator(seed: UInt64(abs(latitude) * 10) + 7)
    // Levels whose bound is well above the exact map's own rounding (a few nanometres at the
    // Earth's radius), so that the comparison measures the map.
    for level in [6, 8, 10, 12] {
      let reach = GridCell.size(level: level) / 2
      let bound = LocalTaylorMap.preciseErrorBound(reach: reach)
      let (worstSecondOrder, worst) = try Self.worstErrors(latitude: latitude, reach: reach, rng: &rng)
      #expect(worst <= bound + 1e-8, "level \(level): error \(worst) m, bound \(bound) m")
      // Third order: a wrong third derivative leaves an error of the second order's size.
      #expect(worst <= worstSecondOrder / 20, "level \(level): \(worst) m against \(worstSecondOrder) m")
    }
  }

  @Test("The third-order map stands in for the exact coordinates from level 14 on")
  func preciseFromLevelFourteen() throws {
    let halfCell = { (level: Int) in GridCell.size(level: level) / 2 }
    #expect(LocalTaylorMap.preciseErrorBound(reach: halfCell(14)) <= CellCandidates.preciseMapTolerance)
    #expect(LocalTaylorMap.preciseErrorBound(reach: halfCell(13)) > CellCandidates.preciseMapTolerance)
    // In a level-14 cell, the cell's coordinates agree with the exact ones to the nanometre
    // (plus the exact map's own rounding); outside the cell it falls back to the exact map.
    var rng = SeededGenerator(seed: 14)
    var slots: [Int32] = []
    let regions = RegionIndex()
    for latitude in [0.0, 37.7, -61, 84] {
      let key = GridCell.key(latitude: latitude, longitude: rng.uniform(-180...180), level: 14)
      let cell = CellCandidates(key: key, regions: regions, scratch: &slots)
      #expect(cell.cartesianUsesMap)
      for _ in 0..<1_000 {
        let lat = rng.uniform(cell.box.south...cell.box.north)
        let lon = rng.uniform(cell.box.west...cell.box.east)
        let exact = Ellipsoid.wgs84.cartesian(Coordinate(uncheckedLatitude: lat, longitude: lon))
        let e = cell.cartesian(latitude: lat, longitude: lon) - exact
        #expect((e * e).sum().squareRoot() <= CellCandidates.preciseMapTolerance + 4e-9)
      }
      let outside = cell.box.north + 0.1
      let fallback = cell.frame.cartesian(latitude: outside, longitude: cell.box.west)
      #expect(cell.cartesian(latitude: outside, longitude: cell.box.west) == fallback)
    }
  }
}
