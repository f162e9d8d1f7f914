import SeededRandom
import Testing

@testable import Geofencing

/// ``PolygonGeometry/segment(_:meets:_:_:_:)``, which picks the edges of a polygon that a grid cell
/// files: it may keep an edge that misses the rectangle, never drop one that meets it. Checked
/// against points of the segment: whenever one lies in the closed rectangle, the segment is kept;
/// ends exactly on the rectangle's sides and corners included.
@Suite("Segment against a rectangle")
struct SegmentRectangleTests {
  @Test(arguments: 0..<4)
  func aSegmentWithAPointInTheRectangleMeetsIt(seed: Int) {
    var rng = SeededGenerator(seed: UInt64(7_100 + seed))
    var met = 0
    var missed = 0
    var wrong: [String] = []
    for _ in 0..<20_000 {
      let west = rng.uniform(-10...10)
      let south = rng.uniform(-10...10)
      let east = west + rng.uniform(0...5)
      let north = south + rng.uniform(0...5)
      // Ends anywhere around the rectangle, sometimes exactly on a side or a corner.
      func end() -> (x: Double, y: Double) {
        switch rng.next() % 6 {
        case 0: return (rng.next() % 2 == 0 ? west : east, rng.next() % 2 == 0 ? south : north)
        case 1: return (rng.next() % 2 == 0 ? west : east, rng.uniform(south...north))
        case 2: return (rng.uniform(west...east), rng.next() % 2 == 0 ? south : north)
        default: return (rng.uniform(-20...20), rng.uniform(-20...20))
        }
      }
      let a = end()
      let b = end()
      let e = SIMD4(a.x, a.y, b.x, b.y)
      let meets = PolygonGeometry.segment(e, meets: west, south, east, north)
      var inside = false
      for k in 0...64 {
        let t = Double(k) / 64
        let x = k == 64 ? b.x : a.x + t * (b.x - a.x)
        let y = k == 64 ? b.y : a.y + t * (b.y - a.y)
        if x >= west && x <= east && y >= south && y <= north {
          inside = true
          break
        }
      }
      if inside && !meets { wrong.append("\(e) against \([west, south, east, north])") }
      if meets { met += 1 } else { missed += 1 }
    }
    let dropped = wrong.count
    #expect(dropped == 0, "segments with a point in the rectangle dropped, first \(wrong.prefix(2))")
    // Both answers are given: the test is not passed by keeping everything.
    #expect(met > 2_000 && missed > 2_000, "met \(met), missed \(missed)")
  }
}
