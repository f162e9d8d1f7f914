import GeoWake
import Synchronization
import Testing

@Suite("OrderedParallelMap")
struct OrderedParallelMapTests {
  /// Work that takes a different time per input still comes out in input order, for any number
  /// of jobs, and never more than `jobs` run at once nor more than `lookahead` past the oldest.
  @Test(arguments: [1, 2, 3, 7] as [Int])
  func resultsComeInInputOrderWithinTheBounds(jobs: Int) async throws {
    let count = 120
    // Atomics rather than a lock around a tuple: the thread sanitizer sees their ordering.
    let now = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    var emitted: [Int] = []
    var drawn = 0
    var iterator = CountingIterator(base: (0..<count).makeIterator(), drawn: { drawn += 1 })
    try await OrderedParallelMap.run(inputs: &iterator, jobs: jobs, lookahead: 2 * jobs) { k in
      let current = now.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
      _ = most.max(current, ordering: .sequentiallyConsistent)
      // Uneven work: a hash of the input decides how long it spins.
      var x = UInt64(k) &* 0x9E37_79B9_7F4A_7C15
      for _ in 0..<(Int(x >> 52) * 200) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
      now.wrappingSubtract(1, ordering: .sequentiallyConsistent)
      return (k, x)
    } emit: { (k, _) in
      // No input is drawn further than the lookahead past the one emitted now.
      #expect(drawn <= k + 2 * jobs + 1)
      emitted.append(k)
    }
    #expect(emitted == Array(0..<count))
    #expect(most.load(ordering: .sequentiallyConsistent) <= jobs)
  }

  @Test func anErrorFromEmitStopsTheRun() async {
    struct Stop: Error {}
    var inputs = (0..<1_000).makeIterator()
    var emitted = 0
    await #expect(throws: Stop.self) {
      try await OrderedParallelMap.run(inputs: &inputs, jobs: 2, work: { $0 }) { k in
        if k == 10 { throw Stop() }
        emitted += 1
      }
    }
    #expect(emitted == 10)
  }
}

/// An iterator that reports each element drawn.
private struct CountingIterator<Base: IteratorProtocol>: IteratorProtocol {
  var base: Base
  let drawn: () -> Void
  mutating func next() -> Base.Element? {
    let element = base.next()
    if element != nil { drawn() }
    return element
  }
}
