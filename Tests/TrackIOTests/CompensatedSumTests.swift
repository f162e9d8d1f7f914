import SeededRandom
import Testing

@testable import TrackIO

/// ``CompensatedSum`` against the exact sum: terms that are multiples of 2⁻²⁰ below 2³³ (each
/// exact in a double) add up exactly in 64-bit integers, up to 512 of them, and the integer sum
/// converted to a double is the exact sum correctly rounded. A plain running sum misses it; the compensated one gives it, in any order and any
/// grouping.
@Suite("Compensated sums")
struct CompensatedSumTests {
  @Test(arguments: [UInt64(1), 2, 3, 4, 5])
  func givesTheExactSumRoundedWhateverTheOrder(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    var missedByPlainSum = 0
    for _ in 0..<200 {
      let count = 2 + Int(rng.next(below: 511))
      // Magnitudes from 2⁻²⁰ to 2³³, both signs: large terms leave the small ones' bits out of a
      // plain sum.
      let units: [Int64] = (0..<count).map { _ in
        let bits = Int64(rng.next(below: 54))
        let magnitude = Int64(rng.next(below: UInt64(1) << UInt64(bits)))
        return rng.next(below: 2) == 0 ? magnitude : -magnitude
      }
      let exact = Double(units.reduce(0, +)) / 1_048_576
      let terms = units.map { Double($0) / 1_048_576 }
      var sum = CompensatedSum()
      var plain = 0.0
      for t in terms {
        sum.add(t)
        plain += t
      }
      #expect(sum.value == exact)
      if plain != exact { missedByPlainSum += 1 }
      // Another order, in two groups joined.
      let shuffled = terms.shuffled(using: &rng)
      let split = Int(rng.next(below: UInt64(count)))
      var front = CompensatedSum()
      var back = CompensatedSum()
      for t in shuffled[..<split] { front.add(t) }
      for t in shuffled[split...] { back.add(t) }
      front.add(back)
      #expect(front.value == exact)
    }
    // The oracle's terms do test the compensation: a plain sum misses most of them.
    #expect(missedByPlainSum > 100)
  }
}
