import SeededRandom
import Testing

@testable import BackgroundRuntime

/// The early edge of a launch window (``LaunchHistory/earlyEdge(_:_:median:quantile:)``) against
/// the true quantile of the distribution the launches are drawn from: a few launches must not put
/// it late (the earliest of five launches is later than the 2 % quantile on nearly every draw),
/// and many launches give the sample's own quantile.
@Suite("Habit early edge")
struct HabitEarlyEdgeTests {
  static func estimate(_ seconds: [Double], q: Double = 0.02) -> (estimate: Double, sample: Double) {
    let values = seconds.sorted().map { (second: $0, weight: 1.0) }
    let total = Double(values.count)
    let median = LaunchHistory.quantile(values, total, 0.5)
    return (LaunchHistory.earlyEdge(values, total, median: median, quantile: q), LaunchHistory.quantile(values, total, q))
  }

  /// Mean error of the estimate and of the sample's own quantile over 4,000 draws of `n` launches.
  static func bias(n: Int, truth: Double, _ draw: (inout SeededGenerator) -> Double) -> (estimate: Double, sample: Double) {
    var rng = SeededGenerator(seed: UInt64(n) &* 7_919)
    var sums = (0.0, 0.0)
    for _ in 0..<4_000 {
      let (e, s) = estimate((0..<n).map { _ in draw(&rng) })
      sums.0 += e - truth
      sums.1 += s - truth
    }
    return (sums.0 / 4_000, sums.1 / 4_000)
  }

  @Test("launches spread evenly over an hour: the 2 % quantile within a minute on average", arguments: [3, 5, 8, 20])
  func uniform(n: Int) {
    let start = 21.5 * 3_600
    let truth = start + 0.02 * 3_600
    let (estimate, sample) = Self.bias(n: n, truth: truth) { start + $0.uniform(0..<3_600) }
    #expect(abs(estimate) < 60, "estimate \(estimate) s off on average")
    // The sample's own quantile (its earliest launch) is late by about an hour / (n + 1).
    #expect(sample > 3_600 / Double(n + 1) - 3 * 60)
  }

  @Test("normally spread launches (σ 10 min): about half the sample's lateness or more is taken back", arguments: [3, 5, 8, 20])
  func normal(n: Int) {
    let median = 22 * 3_600.0
    let truth = median - 2.053_748_910_631_823 * 600
    let (estimate, sample) = Self.bias(n: n, truth: truth) { rng in
      // Box–Muller.
      let u = rng.uniform(Double.ulpOfOne..<1)
      let v = rng.uniform(0..<1)
      return median + 600 * (-2 * Double.log(u)).squareRoot() * Double.cos(2 * .pi * v)
    }
    #expect(sample > 0, "the sample's quantile is late")
    #expect(abs(estimate) < 0.6 * sample, "estimate \(estimate) s, sample \(sample) s off on average")
  }

  @Test("fifty launches or more hold the 2 % quantile: the sample's own")
  func largeSample() {
    var rng = SeededGenerator(seed: 5)
    for n in [50, 120] {
      let launches = (0..<n).map { _ in 8 * 3_600 + rng.uniform(0..<2_400) }
      let (estimate, sample) = Self.estimate(launches)
      #expect(estimate == sample)
    }
  }
}
