@testable import CellHandoff
import Testing

@Suite("Square root from below")
struct SquareRootBelowTests {
  /// The safe radius relies on it: never above √q, never more than 1.1e-4 below, for q over
  /// twelve orders of magnitude, 0 and infinity.
  @Test func lowerBoundWithinItsTolerance() {
    var q: Float = 1e-6
    while q < 1e6 {
      let lanes = SIMD8<Float>((0..<8).map { q * (1 + Float($0) * 0.013) })
      let below = ServingCellTracker.squareRootBelow(lanes)
      for lane in 0..<8 {
        let exact = Double(lanes[lane]).squareRoot()
        #expect(Double(below[lane]) <= exact, "q \(lanes[lane])")
        #expect(Double(below[lane]) >= exact * (1 - 1.1e-4), "q \(lanes[lane])")
      }
      q *= 1.37
    }
    let edges = ServingCellTracker.squareRootBelow(SIMD8<Float>(0, .infinity, 1, 4, 0.25, 1e-30, 1e30, 2))
    #expect(edges[0] == 0 && edges[1] == .infinity)
  }
}
