import SeededRandom
import Testing

@testable import Geofencing

/// ``Array/insertionSort(by:)``, which sorts the detector's short scratch arrays, against the
/// library's stable sort: keys drawn from a few values, so that most elements tie, each tagged
/// with its place so that the order of ties shows.
@Suite("Insertion sort of scratch arrays")
struct InsertionSortTests {
  struct Tagged: Equatable {
    var key: Int
    var place: Int
    /// A reference, so that moving elements without copying them is exercised.
    var name: String
  }

  @Test func sortsStablyAndInExactReverse() {
    var rng = SeededGenerator(seed: 6_121)
    for round in 0..<2_000 {
      let count = Int(rng.next() % 40)
      let values = 1 + Int(rng.next() % 6)
      let elements = (0..<count).map { k in
        let key = Int(rng.next() % UInt64(values))
        return Tagged(key: key, place: k, name: "e\(k)-\(key)")
      }
      // The stable order, spelled out: by key, ties in their places.
      let stable = elements.sorted { ($0.key, $0.place) < ($1.key, $1.place) }
      var ascending = elements
      ascending.insertionSort { $0.key < $1.key }
      #expect(ascending == stable, "round \(round)")
      var reversed = elements
      reversed.insertionSort { !($0.key < $1.key) }
      #expect(reversed == Array(stable.reversed()), "round \(round)")
    }
  }
}
