import SeededRandom
import Testing

@Suite("Distribution")
struct DistributionTests {
  /// Φ⁻¹ against Φ (erfc, an independent function): Φ(Φ⁻¹(p)) = p to a few ulps of p across
  /// both tails and the centre, and the quantile is odd around 0.5.
  @Test func normalQuantileInvertsTheCDF() {
    var generator = SeededGenerator(seed: 11)
    var probabilities = [1e-300, 1e-12, 1e-6, 0.001, 0.02425, 0.025, 0.5, 0.975, 0.97575, 0.999]
    for _ in 0..<20_000 { probabilities.append(max(0x1p-53, generator.unit())) }
    for p in probabilities {
      let x = StandardNormal.quantile(p)
      let back = StandardNormal.cdf(x)
      #expect(abs(back - p) <= 1e-13 * max(p, 1e-300) + 1e-15, "p \(p): Φ(\(x)) = \(back)")
      if p > 1e-10 && p < 1 - 1e-10 {
        #expect(abs(StandardNormal.quantile(1 - p) + x) <= 1e-8 * max(1, abs(x)), "p \(p)")
      }
    }
    #expect(StandardNormal.quantile(0.5) == 0)
    #expect(abs(StandardNormal.quantile(0.975) - 1.959963984540054) < 1e-13)
  }

  @Test func valuesFollowTheirDefinitions() {
    let uniform = Distribution.uniform(180...300)
    #expect(uniform.value(atUnit: 0) == 180 && uniform.value(atUnit: 0.5) == 240)
    #expect(Distribution.uniform(5...5).value(atUnit: 0.7) == 5)
    #expect(Distribution.fixed(3).value(atUnit: 0.9) == 3)
    let latency = Distribution.logNormal(median: 35, sigma: 1.2, maximum: 900)
    #expect(abs(latency.median - 35) < 1e-12)
    #expect(latency.value(atUnit: 0) > 0 && latency.value(atUnit: 0) < 0.01)
    #expect(latency.value(atUnit: 1 - 0x1p-53) == 900)
    // The quartiles of a log-normal are median · exp(±0.6745 σ).
    #expect(abs(latency.value(atUnit: 0.75) - 35 * (1.2 * 0.6744897501960817).exp()) < 1e-9)
    // Draws with many seeds: the share under the median is one half.
    var generator = SeededGenerator(seed: 3)
    let below = (0..<100_000).filter { _ in latency.value(atUnit: generator.unit()) < 35 }.count
    #expect(abs(Double(below) / 100_000 - 0.5) < 0.01)
  }

  @Test func validity() {
    #expect(Distribution.uniform(0...10).isNonNegativeAndFinite)
    #expect(!Distribution.uniform(-1...10).isNonNegativeAndFinite)
    #expect(!Distribution.uniform(0...Double.infinity).isNonNegativeAndFinite)
    #expect(!Distribution.fixed(.nan).isNonNegativeAndFinite)
    #expect(!Distribution.logNormal(median: 0, sigma: 1, maximum: 10).isNonNegativeAndFinite)
    #expect(!Distribution.logNormal(median: 20, sigma: 1, maximum: 10).isNonNegativeAndFinite)
    #expect(!Distribution.logNormal(median: 20, sigma: -1, maximum: 30).isNonNegativeAndFinite)
    #expect(Distribution.logNormal(median: 35, sigma: 1.2, maximum: 900).description == "log-normal, median 35, σ 1.2, at most 900")
  }
}

extension Double {
  fileprivate func exp() -> Double {
    // exp by its series around 0 after halving: independent of libm's exp for the check above.
    var x = self, halvings = 0
    while abs(x) > 0.01 { x /= 2; halvings += 1 }
    var term = 1.0, sum = 1.0
    for k in 1..<20 { term *= x / Double(k); sum += term }
    for _ in 0..<halvings { sum *= sum }
    return sum
  }
}
