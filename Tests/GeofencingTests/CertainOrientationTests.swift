import SeededRandom
import Testing

@testable import Geofencing

/// The orientation signs behind the simple-ring certificate
/// (``PlanarPolygons/certainSign(_:_:_:_:_:_:)``): whenever one is given (not 0), it is the exact
/// sign (``PlanarOrientation/sign(_:_:_:_:_:_:)``). Checked on points a few units in the last place
/// from a line through two random points, at latitudes and longitudes near 0 (where a point can
/// lie closer to a line than the products' rounding, and the plain floating-point sign is wrong)
/// and across the whole range, and on points far from the line, where a sign must be given.
@Suite struct CertainOrientationTests {
  static func nudged(_ x: Double, _ steps: Int) -> Double {
    var x = x
    for _ in 0..<abs(steps) { x = steps > 0 ? x.nextUp : x.nextDown }
    return x
  }

  @Test(arguments: [(UInt64(1), 1e-3), (2, 1.0), (3, 180.0)])
  func aGivenSignIsExact(seed: UInt64, scale: Double) {
    var rng = SeededGenerator(seed: seed)
    var plainWrong = 0
    var given = 0
    for _ in 0..<200_000 {
      let ax = rng.uniform(-scale...scale)
      let ay = rng.uniform(-scale...scale)
      let bx = rng.uniform(-scale...scale)
      let by = rng.uniform(-scale...scale)
      let u = rng.uniform(-0.5...1.5)
      let cx = Self.nudged(ax + u * (bx - ax), Int(rng.next(below: 9)) - 4)
      let cy = Self.nudged(ay + u * (by - ay), Int(rng.next(below: 9)) - 4)
      let exact = PlanarOrientation.sign(ax, ay, bx, by, cx, cy)
      let certain = PlanarPolygons.certainSign(ax, ay, bx, by, cx, cy)
      #expect(certain == 0 || certain == exact, "(\(ax), \(ay)) → (\(bx), \(by)), (\(cx), \(cy))")
      if certain != 0 { given += 1 }
      let plain = (ax - cx) * (by - cy) - (ay - cy) * (bx - cx)
      if (plain > 0 ? 1 : plain < 0 ? -1 : 0) != exact { plainWrong += 1 }
      // Far from the line: a sign, and the right one.
      let fx = cx + (by - ay) * 0.01
      let fy = cy - (bx - ax) * 0.01
      #expect(PlanarPolygons.certainSign(ax, ay, bx, by, fx, fy) == PlanarOrientation.sign(ax, ay, bx, by, fx, fy))
      #expect(PlanarPolygons.certainSign(ax, ay, bx, by, fx, fy) != 0)
    }
    // The near points are where a plain floating-point sign fails: the bound is needed.
    #expect(plainWrong > 100, "plain sign wrong \(plainWrong) times")
    // And it still gives most of them a sign when the point is not on the line.
    #expect(given > 1_000, "\(given)")
  }
}
