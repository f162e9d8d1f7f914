import SeededRandom
import Testing

@Suite struct SeededGeneratorTests {
  /// The published SplitMix64 outputs for seed 0 (Vigna's reference `splitmix64.c`).
  @Test func matchesTheReferenceSplitMix64() {
    var g = SeededGenerator(seed: 0)
    #expect([g.next(), g.next(), g.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
  }

  /// The mappings' values are pinned: generated data must not change with the Swift version.
  @Test func mappingsArePinned() {
    var g = SeededGenerator(seed: 42)
    #expect((0..<3).map { _ in g.uniform(-5...7).bitPattern } == [4_615_961_687_601_838_152, 13_837_492_420_408_580_454, 13_833_512_358_807_450_696])
    #expect((0..<3).map { _ in g.uniform(-180..<180).bitPattern } == [4_639_303_339_632_840_712, 4_639_090_515_797_963_404, 13_862_248_669_051_014_144])
    #expect((0..<3).map { _ in g.unit().bitPattern } == [4_597_036_896_682_679_220, 4_605_386_670_388_532_165, 4_599_795_273_118_699_358])
    #expect((0..<3).map { _ in g.next(below: 1_000_003) } == [618_483, 204_902, 492_990])
  }

  /// Each mapping is its documented formula over the raw outputs.
  @Test(arguments: [1, 2, 3, 0xFFFF_FFFF_FFFF_FFFF] as [UInt64])
  func mappingsFollowTheirFormulas(seed: UInt64) {
    var g = SeededGenerator(seed: seed)
    var raw = SeededGenerator(seed: seed)
    for _ in 0..<1_000 {
      #expect(g.unit() == Double(raw.next() >> 11) / 9_007_199_254_740_992)
      let half = g.uniform(10..<20)
      #expect(half == 10 * (Double(raw.next() & (1 << 53 - 1)) / 9_007_199_254_740_992) + 10)
      #expect(half >= 10 && half < 20)
    }
  }

  @Test func halfOpenRangeNeverReturnsItsUpperBound() {
    // A range one ulp wide: most draws round to the upper bound and must come back below it.
    var g = SeededGenerator(seed: 7)
    for _ in 0..<10_000 { #expect(g.uniform(1.0..<1.0.nextUp) == 1) }
    for _ in 0..<10_000 {
      let x = g.uniform(-1...1)
      #expect(x >= -1 && x <= 1)
    }
  }

  /// next(below:) is unbiased: counts over a bound that does not divide 2⁶⁴ pass a χ² test, and a
  /// bound just above 2⁶³ (where plain modulo would put two thirds of the draws in the lower half)
  /// splits evenly.
  @Test func boundedIntegersAreUnbiased() {
    var g = SeededGenerator(seed: 11)
    var counts = [Int](repeating: 0, count: 7)
    let draws = 700_000
    for _ in 0..<draws { counts[Int(g.next(below: 7))] += 1 }
    let expected = Double(draws) / 7
    let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    #expect(chiSquare < 22.5)  // p = 0.001 for 6 degrees of freedom
    let bound: UInt64 = 1 << 63 + 1_000_000_007
    var lower = 0
    for _ in 0..<100_000 where g.next(below: bound) < bound / 2 { lower += 1 }
    #expect(abs(lower - 50_000) < 1_000)
    for _ in 0..<10_000 {
      let k = g.integer(in: -3...3)
      #expect((-3...3).contains(k))
    }
    #expect(g.integer(in: Int.min...Int.max) != g.integer(in: Int.min...Int.max))
  }
}
