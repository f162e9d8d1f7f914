import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// Random regions anywhere on Earth, 1 m to 2,000 km, including some across the antimeridian and
/// around the poles; a quarter are polygons.
func randomRegions(count: Int, rng: inout SeededGenerator, prefix: String = "g") throws -> [Region] {
  var regions: [Region] = []
  for i in 0..<count {
    let latitude: Double
    let longitude: Double
    switch i % 10 {
    case 0: (latitude, longitude) = (rng.uniform(-60...60), rng.uniform(179...180))  // dateline
    case 1: (latitude, longitude) = (rng.uniform(85...90), rng.longitude())  // arctic
    default: (latitude, longitude) = (rng.latitude(), rng.longitude())
    }
    let center = try Coordinate(latitude: latitude, longitude: longitude)
    let radius = Double.exp(rng.uniform(0...14.5))
    let id = "\(prefix)\(i)"
    if i % 4 == 3 && radius < 500_000 && abs(latitude) < 80 {
      let vertices = 6 + i % 7
      var ring: [Coordinate] = []
      for k in 0..<vertices {
        let azimuth = (Double(k) + rng.uniform(0.1...0.9)) * 360 / Double(vertices)
        ring.append(center.moved(radius * rng.uniform(0.4...1), azimuth: azimuth))
      }
      regions.append(.polygon(try PolygonRegion(identifier: id, exterior: ring)))
    } else {
      regions.append(.circle(try CircularRegion(identifier: id, center: center, radius: radius)))
    }
  }
  return regions
}

/// Points near the regions (so that many queries hit something) and anywhere.
func queryPoints(near regions: [Region], count: Int, rng: inout SeededGenerator) throws -> [Coordinate] {
  var points: [Coordinate] = []
  for i in 0..<count {
    if i % 3 == 0 {
      points.append(try Coordinate(latitude: rng.latitude(), longitude: rng.longitude()))
      continue
    }
    switch regions[Int(rng.uniform(0...Double(regions.count) - 0.001))] {
    case .circle(let c):
      points.append(c.center.moved(c.radius * rng.uniform(0...1.3), azimuth: rng.uniform(-180...180)))
    case .polygon(let p):
      points.append(p.polygons[0].exterior[0].moved(rng.uniform(0...2000), azimuth: rng.uniform(-180...180)))
    }
  }
  return points
}

@Suite("Region index")
struct RegionIndexTests {
  /// Property: the index answers exactly what testing every region would.
  @Test(arguments: [UInt64(1), 2, 3])
  func agreesWithBruteForce(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let regions = try randomRegions(count: 400, rng: &rng)
    let index = RegionIndex(regions)
    #expect(index.count == regions.count)
    for point in try queryPoints(near: regions, count: 1500, rng: &rng) {
      let expected = regions.filter { BruteForceCrossings.exactlyContains($0, point) }.map(\.identifier).sorted()
      #expect(index.regions(containing: point) == expected, "\(point)")
    }
  }

  @Test func insertReplaceAndRemoveByIdentifier() throws {
    var rng = SeededGenerator(seed: 99)
    var regions = try randomRegions(count: 300, rng: &rng)
    var index = RegionIndex(regions)
    // Replace every third region by a different one with the same identifier; remove every fifth.
    let replacements = try randomRegions(count: 300, rng: &rng)
    for i in stride(from: 0, to: regions.count, by: 3) {
      let replacement: Region
      switch replacements[i] {
      case .circle(let c): replacement = .circle(try CircularRegion(identifier: regions[i].identifier, center: c.center, radius: c.radius))
      case .polygon(let p): replacement = .polygon(try PolygonRegion(identifier: regions[i].identifier, polygons: p.polygons))
      }
      #expect(try index.insert(replacement) == regions[i])
      regions[i] = replacement
    }
    var removed = Set<RegionIdentifier>()
    for i in stride(from: 0, to: regions.count, by: 5) {
      #expect(index.remove(regions[i].identifier) == regions[i])
      removed.insert(regions[i].identifier)
    }
    #expect(index.remove(try RegionIdentifier("absent")) == nil)
    let live = regions.filter { !removed.contains($0.identifier) }
    #expect(index.count == live.count)
    #expect(index.allRegions == live.sorted { $0.identifier < $1.identifier })
    for point in try queryPoints(near: regions, count: 1000, rng: &rng) {
      let expected = live.filter { BruteForceCrossings.exactlyContains($0, point) }.map(\.identifier).sorted()
      #expect(index.regions(containing: point) == expected)
    }
  }

  /// A circle's record (64 bytes) is kept only up to the last slot that holds a circle: a set
  /// of polygons has none, built at once or one region at a time, and the regions read back the
  /// same whatever the order.
  @Test func circleRecordsReachOnlyTheLastCircle() throws {
    var rng = SeededGenerator(seed: 17)
    let regions = try randomRegions(count: 400, rng: &rng)
    let polygons = regions.filter { if case .polygon = $0 { true } else { false } }
    let circles = regions.filter { if case .circle = $0 { true } else { false } }
    #expect(polygons.count > 50 && circles.count > 50)
    let sorted = { (list: [Region]) in list.sorted { $0.identifier < $1.identifier } }
    #expect(RegionIndex(polygons).circles.isEmpty)
    #expect(RegionIndex(circles + polygons).circles.count == circles.count)
    let after = RegionIndex(polygons + circles)
    #expect(after.circles.count == polygons.count + circles.count)
    #expect(after.allRegions == sorted(polygons + circles))
    var grown = RegionIndex()
    for polygon in polygons { grown.insert(polygon) }
    #expect(grown.circles.isEmpty)
    // A circle after them, then a polygon in its place, then the circle again in a freed slot.
    grown.insert(circles[0])
    #expect(grown.circles.count == polygons.count + 1)
    let replacement = try PolygonRegion(identifier: circles[0].identifier, polygons: { () -> [PolygonRegion.Polygon] in
      guard case .polygon(let p) = polygons[0] else { return [] }
      return p.polygons
    }())
    #expect(grown.insert(.polygon(replacement)) == circles[0])
    #expect(grown.circles.allSatisfy { !$0.isCircle })
    // Polygon 1's slot is freed and taken by the next region.
    grown.remove(polygons[1].identifier)
    grown.insert(circles[1])
    #expect(grown.circle(1) != nil && grown.circles.filter(\.isCircle).count == 1)
    let live = polygons.filter { $0.identifier != polygons[1].identifier } + [.polygon(replacement), circles[1]]
    #expect(grown.allRegions == sorted(live))
    for point in try queryPoints(near: live, count: 500, rng: &rng) {
      let expected = live.filter { BruteForceCrossings.exactlyContains($0, point) }.map(\.identifier).sorted()
      #expect(grown.regions(containing: point) == expected)
    }
  }

  /// Compacting the postings changes where they are, not what a query returns or in which order,
  /// and leaves each cell's list in consecutive entries.
  @Test func compactedPostingsAnswerTheSameInTheSameOrder() throws {
    var rng = SeededGenerator(seed: 5)
    let regions = try randomRegions(count: 500, rng: &rng)
    var linked = RegionIndex(configuration: .init(gridLevel: 9))
    for region in regions { linked.insert(region) }
    // Leave holes on the free list, as a stream of removals does.
    for i in stride(from: 0, to: regions.count, by: 7) { linked.remove(regions[i].identifier) }
    var compacted = linked
    compacted.compactPostings()
    var consecutive = 0
    for point in try queryPoints(near: regions, count: 1000, rng: &rng) {
      var a: [Int32] = []
      var b: [Int32] = []
      linked.appendSlots(nearLatitude: point.latitude, longitude: point.longitude, into: &a)
      compacted.appendSlots(nearLatitude: point.latitude, longitude: point.longitude, into: &b)
      #expect(a == b)
      for level in compacted.occupiedLevels {
        let key = GridCell.key(latitude: point.latitude, longitude: point.longitude, level: level)
        var posting = compacted.heads.value(for: key)
        while posting >= 0 {
          let next = compacted.postingNext[Int(posting)]
          #expect(next < 0 || next == posting + 1)
          if next >= 0 { consecutive += 1 }
          posting = next
        }
      }
    }
    #expect(consecutive > 1_000)
    #expect(compacted.postingSlot.count < linked.postingSlot.count)
  }
}
