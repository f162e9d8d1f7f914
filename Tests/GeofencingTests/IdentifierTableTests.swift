import SeededRandom
import Testing

@testable import Geofencing

/// The identifier table agrees with a `Dictionary` through any sequence of insertions,
/// replacements, removals and lookups, across its growth and its backward-shift deletions.
@Suite("Identifier table")
struct IdentifierTableTests {
  @Test(arguments: [UInt64(1), 2, 3, 4, 5])
  func agreesWithADictionary(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    // A small pool (many repeats and removals of the same names) or a large one (growth).
    let poolSize = seed % 2 == 0 ? 40 : 5_000
    let pool = try (0..<poolSize).map { try RegionIdentifier("id-\($0)-\($0 % 7)") }
    // The caller's list: index → identifier, appended to as indices are handed out.
    var names: [RegionIdentifier] = []
    var table = IdentifierTable(minimumCapacity: Int(random.next() % 64))
    var oracle: [RegionIdentifier: Int32] = [:]
    for step in 0..<20_000 {
      let name = pool[Int(random.next() % UInt64(pool.count))]
      let lookup = { (k: Int32) in names[Int(k)] }
      switch random.next() % 4 {
      case 0, 1:
        let index = Int32(names.count)
        names.append(name)
        let replaced = table.updateValue(index, for: name, identifierAt: lookup)
        #expect(replaced == oracle.updateValue(index, forKey: name), "step \(step)")
      case 2:
        #expect(table.removeValue(for: name, identifierAt: lookup) == oracle.removeValue(forKey: name), "step \(step)")
      default:
        #expect(table.index(of: name, identifierAt: lookup) == oracle[name], "step \(step)")
      }
      #expect(table.count == oracle.count)
    }
    // Every identifier is where the oracle says, and nothing else is filed.
    for name in pool {
      #expect(table.index(of: name) { names[Int($0)] } == oracle[name])
    }
    #expect(Set(table.indices) == Set(oracle.values))
  }
}
