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
    for p in points {
      let v = p - origin
      let q = SIMD3<Float>(Float(v.x), Float(v.y), Float(v.z))
      let step = rng.uniform(0...50)
      for wasInside in [false, true] {
        let states = [SIMDMask<SIMD8<Int32>>(repeating: wasInside)]
        let (margin, uncleared) = blocks.withUnsafeBufferPointer { blocks in
          states.withUnsafeBufferPointer { states in
            CircleFilter.run(blocks, inside: states, from: 0, at: q, step: step)
          }
        }
        var least = Double.infinity
        for (k, circle) in circles.enumerated() {
          let d = ((p - circle.center) * (p - circle.center)).sum().squareRoot()
          let exactMargin = max(circle.inner - d, d - circle.outer, 0)
          least = min(least, exactMargin)
          let cleared = uncleared & (1 << k) == 0
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

  /// The C kernel reads ``FilterBlock`` and the state masks as plain floats and integers.
  @Test("Blocks and masks have the layout the kernel reads")
  func layout() {
    #expect(MemoryLayout<FilterBlock>.stride == 48 * MemoryLayout<Float>.stride)
    let fields: [PartialKeyPath<FilterBlock>] = [\.x, \.y, \.z, \.innerSquared, \.inner, \.outer]
    #expect(fields.map { MemoryLayout<FilterBlock>.offset(of: $0) } == [0, 32, 64, 96, 128, 160])
    #expect(MemoryLayout<SIMDMask<SIMD8<Int32>>>.stride == 8 * MemoryLayout<Int32>.stride)
  }

  /// A cell of 150 circles (19 blocks, three runs of at most eight): every bit names the right
  /// circle, whatever its block and lane, with mixed states.
  @Test("Runs over many blocks clear the right circles and bound every margin")
  func manyBlocks() throws {
    var rng = SeededGenerator(seed: 99)
    let latitude = 37.7
    let longitude = -122.4
    let origin = Ellipsoid.wgs84.cartesianFast(latitude: latitude, longitude: longitude)
    var circles: [CellCandidates.Circle] = []
    for i in 0..<150 {
      let center = Coordinate(
        uncheckedLatitude: latitude + rng.uniform(-0.01...0.01), longitude: longitude + rng.uniform(-0.01...0.01))
      let circle = try CircularRegion(
        identifier: RegionIdentifier("c\(i)"), center: center, radius: rng.uniform(50...900))
      circles.append(CellCandidates.Circle(CircleGeometry(circle)))
    }
    let epsilon = CircleFilter.slack(extent: CircleFilter.extent(circles, origin: origin, reach: 5_000))
    let blocks = CircleFilter.blocks(circles, origin: origin, epsilon: epsilon)
    #expect(blocks.count == 19)
    var mismatches = 0
    var checked = 0
    for _ in 0..<300 {
      let fix = Ellipsoid.wgs84.cartesianFast(
        latitude: latitude + rng.uniform(-0.006...0.006), longitude: longitude + rng.uniform(-0.006...0.006))
      let step = rng.uniform(0...30)
      // The true state of most circles, and a wrong one for some: those must stay uncleared.
      var states: [Bool] = []
      for circle in circles {
        let d = ((fix - circle.center) * (fix - circle.center)).sum().squareRoot()
        states.append(rng.uniform(0...1) < 0.1 ? d > circle.inner : d <= circle.inner)
      }
      var masks: [SIMDMask<SIMD8<Int32>>] = []
      for b in 0..<blocks.count {
        var mask = SIMDMask<SIMD8<Int32>>(repeating: false)
        for lane in 0..<8 where b * 8 + lane < states.count { mask[lane] = states[b * 8 + lane] }
        masks.append(mask)
      }
      let v = fix - origin
      let q = SIMD3<Float>(Float(v.x), Float(v.y), Float(v.z))
      var least = Double.infinity
      var exactLeast = Double.infinity
      for first in stride(from: 0, to: blocks.count, by: CircleFilter.blocksPerRun) {
        let (margin, uncleared) = blocks.withUnsafeBufferPointer { blocks in
          masks.withUnsafeBufferPointer { masks in
            CircleFilter.run(blocks, inside: masks, from: first, at: q, step: step)
          }
        }
        least = min(least, margin)
        for k in first * 8..<min(circles.count, (first + CircleFilter.blocksPerRun) * 8) {
          let circle = circles[k]
          let d = ((fix - circle.center) * (fix - circle.center)).sum().squareRoot()
          exactLeast = min(exactLeast, max(circle.inner - d, d - circle.outer, 0))
          let cleared = uncleared & (1 << (k - first * 8)) == 0
          // Clear: the state held and is out of reach; kept: it did not, or it is near.
          let clearlyHeld = states[k] ? d < circle.inner - 4 * epsilon : d > circle.outer + step + 4 * epsilon
          let mayClear = states[k] ? d <= circle.inner : d > circle.outer + step
          if cleared != clearlyHeld && !(cleared && mayClear) { mismatches += 1 }
          checked += 1
        }
      }
      #expect(least <= exactLeast)
    }
    #expect(mismatches == 0)
    #expect(checked == 300 * 150)
  }
}
