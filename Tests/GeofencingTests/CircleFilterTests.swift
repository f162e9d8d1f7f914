import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// The single-precision filter that settles most circles of a cell: what it calls clear must be
/// clear in double precision, and its margin must be a lower bound, at every scale of cell.
@Suite("Circle filter")
struct CircleFilterTests {
  /// A cell scale: where the circles are, how large, how far the cell reaches.
  struct Scale: CustomStringConvertible, Sendable {
    var latitude: Double
    var spread: Double
    var radii: ClosedRange<Double>
    var description: String { "radii \(radii) m around \(latitude)°" }
  }

  static let scales = [
    Scale(latitude: 37.7, spread: 0.0055, radii: 50...2_000),
    Scale(latitude: -62, spread: 0.35, radii: 1_000...50_000),
    Scale(latitude: 5, spread: 3, radii: 100_000...600_000),
  ]

  struct Violations {
    var clearedInside = 0
    var clearedOutside = 0
    var margin = 0
    var cleared = 0
    var farLanes = 0
    var farCleared = 0
  }

  /// Runs the filter with `slackFactor` times its own slack on points within a few slacks of
  /// the circles' boundaries, and on points anywhere, against double-precision chords.
  static func check(_ scale: Scale, seed: UInt64, slackFactor: Double = 1) -> Violations {
    var rng = SeededGenerator(seed: seed)
    let latitude = scale.latitude
    let longitude = rng.uniform(-180...180)
    let origin = Ellipsoid.wgs84.cartesianFast(latitude: latitude, longitude: longitude)
    var geometries: [CircleGeometry] = []
    for i in 0..<8 {
      let center = Coordinate(
        uncheckedLatitude: latitude + rng.uniform(-scale.spread...scale.spread),
        longitude: longitude + rng.uniform(-scale.spread...scale.spread))
      let radius = Double.exp(rng.uniform(Double.log(scale.radii.lowerBound)...Double.log(scale.radii.upperBound)))
      if let circle = try? CircularRegion(identifier: RegionIdentifier("c\(i)"), center: center, radius: radius) {
        geometries.append(CircleGeometry(circle))
      }
    }
    let circles = geometries.map(CellCandidates.Circle.init)
    // Points: half within four slacks of a boundary, half anywhere around.
    let roughExtent = CircleFilter.extent(circles, origin: origin, reach: 0)
    let roughSlack = CircleFilter.slack(extent: roughExtent)
    var points: [SIMD3<Double>] = []
    for _ in 0..<4_000 {
      let circle = geometries[Int(rng.uniform(0...Double(geometries.count) - 1e-9))]
      let distance: Double
      if points.count.isMultiple(of: 2) {
        distance = circle.radius + rng.uniform(-4 * roughSlack...4 * roughSlack)
      } else {
        distance = rng.uniform(0...(2 * circle.radius))
      }
      guard let point = Geodesic.wgs84.direct(from: circle.center, azimuth: rng.uniform(0...360), distance: distance)
      else { continue }
      points.append(Ellipsoid.wgs84.cartesian(point.destination))
    }
    let reach = points.map { p in let v = p - origin; return max(abs(v.x), abs(v.y), abs(v.z)) }.max() ?? 0
    let extent = CircleFilter.extent(circles, origin: origin, reach: reach)
    let epsilon = slackFactor * CircleFilter.slack(extent: extent)
    let blocks = CircleFilter.blocks(circles, origin: origin, epsilon: epsilon)
    var violations = Violations()
    var work: [Int32] = []
    for p in points {
      let v = p - origin
      let q = SIMD3<Float>(Float(v.x), Float(v.y), Float(v.z))
      let step = rng.uniform(0...50)
      for wasInside in [false, true] {
        work.removeAll()
        let states = [SIMDMask<SIMD8<Int32>>(repeating: wasInside)]
        let margin = blocks.withUnsafeBufferPointer { blocks in
          states.withUnsafeBufferPointer { states in CircleFilter.run(blocks, inside: states, at: q, step: step, work: &work) }
        }
        var least = Double.infinity
        for (k, circle) in circles.enumerated() {
          let d = ((p - circle.center) * (p - circle.center)).sum().squareRoot()
          let exactMargin = max(circle.inner - d, d - circle.outer, 0)
          least = min(least, exactMargin)
          let cleared = !work.contains(Int32(k))
          if cleared { violations.cleared += 1 }
          if cleared && wasInside && d > circle.inner { violations.clearedInside += 1 }
          if cleared && !wasInside && d <= circle.outer + step { violations.clearedOutside += 1 }
          if exactMargin > step + 4 * epsilon && (wasInside ? d <= circle.inner : d > circle.outer) {
            violations.farLanes += 1
            if cleared { violations.farCleared += 1 }
          }
        }
        if margin > least { violations.margin += 1 }
      }
    }
    return violations
  }

  @Test("What the filter clears is clear in double precision; its margin is a lower bound", arguments: scales)
  func clearsOnlyWhatIsClear(scale: Scale) {
    for seed in 1...3 as ClosedRange<UInt64> {
      let v = Self.check(scale, seed: seed)
      #expect(v.clearedInside == 0 && v.clearedOutside == 0 && v.margin == 0, "seed \(seed): \(v)")
      // The filter is worth running: it clears every circle plainly on one side, out of reach.
      #expect(v.farLanes > 1_000 && v.farCleared == v.farLanes, "seed \(seed): \(v)")
    }
  }

  /// The test's points come close enough to the boundaries to catch a filter without its slack.
  @Test("Without its slack the filter would clear circles it must not")
  func slackIsNeeded() {
    var total = Violations()
    for scale in Self.scales {
      for seed in 1...3 as ClosedRange<UInt64> {
        let v = Self.check(scale, seed: seed, slackFactor: 0)
        total.clearedInside += v.clearedInside
        total.clearedOutside += v.clearedOutside
        total.margin += v.margin
      }
    }
    #expect(total.clearedInside + total.clearedOutside + total.margin > 0)
  }
}
