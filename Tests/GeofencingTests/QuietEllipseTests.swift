import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// The quiet ellipse of ``CandidateCache``: a fix in it must be closer to the last look than the
/// look's least margin (in Earth-centred chord), and the ellipse must not be needlessly small.
@Suite("Quiet ellipse")
struct QuietEllipseTests {
  /// A cell of level `level` around (`latitude`, `longitude`), with one circle so that it builds.
  static func cell(latitude: Double, longitude: Double, level: Int) throws -> CellCandidates {
    let circle = try CircularRegion(
      identifier: "c", center: Coordinate(latitude: latitude, longitude: longitude), radius: 100)
    let index = RegionIndex([.circle(circle)], configuration: .init(gridLevel: level))
    var scratch: [Int32] = []
    let key = GridCell.key(latitude: latitude, longitude: longitude, level: level)
    return CellCandidates(key: key, regions: index, scratch: &scratch)
  }

  static func point(in cell: CellCandidates, _ rng: inout SeededGenerator) -> Coordinate {
    let box = cell.box
    return Coordinate(
      uncheckedLatitude: rng.uniform(box.south...box.north.nextDown),
      longitude: rng.uniform(box.west...box.east.nextDown))
  }

  @Test(
    "A quiet fix is closer to the look than the margin; a fix the step bound puts inside is quiet",
    arguments: [(0.0, 10), (37.7, 14), (-62.0, 12), (70.0, 18), (89.99, 14), (-0.003, 16)])
  func quietMeansWithinMargin(latitude: Double, level: Int) throws {
    var rng = SeededGenerator(seed: 41)
    let longitude = rng.uniform(-180...180)
    let cell = try Self.cell(latitude: latitude, longitude: longitude, level: level)
    var cache = CandidateCache()
    var quiet = 0
    var tooSmall = 0
    var wrong = 0
    for _ in 0..<20_000 {
      let look = Self.point(in: cell, &rng)
      let p = Self.point(in: cell, &rng)
      let bound = cell.stepBound(from: look, to: p)
      // Margins around the point's own bound, so that both answers happen.
      let margin = bound * rng.uniform(0.999...1.001)
      cache.looked(latitude: look.latitude, longitude: look.longitude, margin: margin)
      let isQuiet = cache.isQuiet(cell, latitude: p.latitude, longitude: p.longitude)
      let d = Ellipsoid.wgs84.cartesian(p) - Ellipsoid.wgs84.cartesian(look)
      let chord = (d * d).sum().squareRoot()
      if isQuiet {
        quiet += 1
        if !(bound < margin && chord < margin) { wrong += 1 }
      } else if bound < margin * (1 - 1e-9) - 1e-8 {
        tooSmall += 1
      }
    }
    #expect(wrong == 0)
    #expect(tooSmall == 0)
    #expect(quiet > 5_000)
  }

  @Test("No margin: every fix is due")
  func noMarginEveryFixDue() throws {
    let cell = try Self.cell(latitude: 37.7, longitude: -122.4, level: 14)
    var cache = CandidateCache()
    #expect(!cache.isQuiet(cell, latitude: 37.7, longitude: -122.4))
    cache.looked(latitude: 37.7, longitude: -122.4, margin: 0)
    #expect(!cache.isQuiet(cell, latitude: 37.7, longitude: -122.4))
    cache.looked(latitude: 37.7, longitude: -122.4, margin: 5)
    #expect(cache.isQuiet(cell, latitude: 37.7, longitude: -122.4))
  }

  /// The step bound is a norm in latitude and longitude, so the distance from the last look never
  /// makes a look due before the sum of the step bounds since it would.
  @Test("The step bound obeys the triangle inequality")
  func stepBoundTriangleInequality() throws {
    var rng = SeededGenerator(seed: 7)
    let cell = try Self.cell(latitude: 48.1, longitude: 11.6, level: 14)
    for _ in 0..<10_000 {
      let a = Self.point(in: cell, &rng)
      let b = Self.point(in: cell, &rng)
      let c = Self.point(in: cell, &rng)
      #expect(cell.stepBound(from: a, to: c) <= cell.stepBound(from: a, to: b) + cell.stepBound(from: b, to: c))
    }
  }
}
