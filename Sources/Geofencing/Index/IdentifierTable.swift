/// A hash table from region identifiers to indices into the caller's own list of them (the
/// slots of a ``RegionIndex``, the regions of a file being read), holding 8 bytes a bucket
/// instead of a copy of every identifier.
///
/// Open addressing with linear probing; each bucket packs 32 bits of the identifier's hash with
/// its index, so that probes compare identifiers only when the hashes agree and growing never
/// hashes an identifier again. The caller says where to find the identifier of an index
/// (`identifierAt`); the table never outlives a change of that mapping it was not told about.
/// Hashes are Swift's (seeded per process): the table decides membership and lookups only, never
/// an order.
package struct IdentifierTable: Sendable {
  private static let empty = UInt64.max

  private var buckets: [UInt64]
  /// The number of identifiers filed.
  package private(set) var count = 0

  /// A table with room for `minimumCapacity` identifiers before it grows.
  package init(minimumCapacity: Int = 0) {
    var capacity = 16
    while capacity * 4 < minimumCapacity * 5 { capacity <<= 1 }
    buckets = Array(repeating: Self.empty, count: capacity)
  }

  /// Makes room for `minimumCapacity` identifiers before the table grows again.
  package mutating func reserve(_ minimumCapacity: Int) {
    while buckets.count * 4 < minimumCapacity * 5 { grow() }
  }

  @inline(__always) private static func hash(_ identifier: RegionIdentifier) -> UInt32 {
    UInt32(truncatingIfNeeded: identifier.hashValue)
  }

  @inline(__always) private static func pack(_ hash: UInt32, _ index: Int32) -> UInt64 {
    UInt64(hash) << 32 | UInt64(UInt32(bitPattern: index))
  }

  /// The bucket holding `identifier`, or the empty bucket where it would go.
  @inline(__always)
  private func find(_ identifier: RegionIdentifier, hash: UInt32, identifierAt: (Int32) -> RegionIdentifier) -> (bucket: Int, found: Bool) {
    let mask = buckets.count - 1
    var i = Int(hash) & mask
    while true {
      let entry = buckets[i]
      if entry == Self.empty { return (i, false) }
      if UInt32(truncatingIfNeeded: entry >> 32) == hash,
        identifierAt(Int32(bitPattern: UInt32(truncatingIfNeeded: entry))) == identifier
      {
        return (i, true)
      }
      i = (i + 1) & mask
    }
  }

  /// The index filed for `identifier`, if any.
  package func index(of identifier: RegionIdentifier, identifierAt: (Int32) -> RegionIdentifier) -> Int32? {
    let (bucket, found) = find(identifier, hash: Self.hash(identifier), identifierAt: identifierAt)
    return found ? Int32(bitPattern: UInt32(truncatingIfNeeded: buckets[bucket])) : nil
  }

  /// Files `index` for `identifier`; returns the index it replaces, if the identifier had one.
  @discardableResult
  package mutating func updateValue(_ index: Int32, for identifier: RegionIdentifier, identifierAt: (Int32) -> RegionIdentifier) -> Int32? {
    if (count + 1) * 5 > buckets.count * 4 { grow() }
    let hash = Self.hash(identifier)
    let (bucket, found) = find(identifier, hash: hash, identifierAt: identifierAt)
    let old = found ? Int32(bitPattern: UInt32(truncatingIfNeeded: buckets[bucket])) : nil
    if !found { count += 1 }
    buckets[bucket] = Self.pack(hash, index)
    return old
  }

  /// Removes `identifier`; returns its index, if it had one. Backward-shift deletion keeps the
  /// probe sequences intact without tombstones.
  @discardableResult
  package mutating func removeValue(for identifier: RegionIdentifier, identifierAt: (Int32) -> RegionIdentifier) -> Int32? {
    let (bucket, found) = find(identifier, hash: Self.hash(identifier), identifierAt: identifierAt)
    guard found else { return nil }
    let old = Int32(bitPattern: UInt32(truncatingIfNeeded: buckets[bucket]))
    count -= 1
    let mask = buckets.count - 1
    var hole = bucket
    var j = bucket
    while true {
      j = (j + 1) & mask
      let entry = buckets[j]
      if entry == Self.empty { break }
      let home = Int(entry >> 32) & mask
      // Move the entry into the hole unless its home is cyclically within (hole, j].
      let inRange = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
      if !inRange {
        buckets[hole] = entry
        hole = j
      }
    }
    buckets[hole] = Self.empty
    return old
  }

  /// Every index filed, in bucket order (an order that depends on the process's hash seed).
  package var indices: [Int32] {
    buckets.compactMap { $0 == Self.empty ? nil : Int32(bitPattern: UInt32(truncatingIfNeeded: $0)) }
  }

  private mutating func grow() {
    let old = buckets
    buckets = Array(repeating: Self.empty, count: old.count * 2)
    let mask = buckets.count - 1
    for entry in old where entry != Self.empty {
      var i = Int(entry >> 32) & mask
      while buckets[i] != Self.empty { i = (i + 1) & mask }
      buckets[i] = entry
    }
  }

  /// Bytes held by the table.
  package var memoryFootprint: Int { buckets.capacity * 8 }
}
