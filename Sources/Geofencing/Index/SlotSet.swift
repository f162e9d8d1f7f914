/// A set of region slots (non-negative `Int32`), sized by what it holds, not by the index.
///
/// Per-device state over a shared ``RegionSet`` is a few of these: the regions the device is
/// inside, the regions it has confirmed, so that a device near ten regions of a million costs
/// bytes, not megabytes. Open addressing with linear probing and a multiplicative hash; removal
/// shifts the following entries back (no tombstones), so the table never degrades. Empty, it holds
/// no storage at all.
struct SlotSet: Sendable, Equatable {
  private static let empty: Int32 = -1
  private var table: [Int32] = []
  /// Number of slots held.
  private(set) var count = 0

  init() {}

  /// Whether the set holds no slot.
  var isEmpty: Bool { count == 0 }

  /// The number of buckets, which ``forEach(_:)`` reads: at least twice ``count``.
  var bucketCount: Int { table.count }

  @inline(__always)
  private func bucket(_ slot: Int32, mask: Int) -> Int {
    Int(truncatingIfNeeded: (UInt64(UInt32(bitPattern: slot)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
  }

  /// Whether `slot` is in the set.
  @inline(__always)
  func contains(_ slot: Int32) -> Bool {
    guard count > 0 else { return false }
    let mask = table.count - 1
    var i = bucket(slot, mask: mask)
    while true {
      let s = table[i]
      if s == slot { return true }
      if s == Self.empty { return false }
      i = (i + 1) & mask
    }
  }

  /// Membership of `slot`: reading tells whether it is in the set, writing `true` inserts it and
  /// `false` removes it.
  subscript(slot: Int32) -> Bool {
    @inline(__always) get { contains(slot) }
    set {
      if newValue { insert(slot) } else { remove(slot) }
    }
  }

  /// ``subscript(_:)`` for an `Int` slot.
  subscript(slot: Int) -> Bool {
    @inline(__always) get { contains(Int32(truncatingIfNeeded: slot)) }
    set { self[Int32(truncatingIfNeeded: slot)] = newValue }
  }

  /// Inserts `slot`; no effect when it is already in the set.
  mutating func insert(_ slot: Int32) {
    precondition(slot >= 0, "a slot is never negative")
    if (count + 1) * 2 > table.count { grow() }
    let mask = table.count - 1
    var i = bucket(slot, mask: mask)
    while true {
      let s = table[i]
      if s == slot { return }
      if s == Self.empty {
        table[i] = slot
        count += 1
        return
      }
      i = (i + 1) & mask
    }
  }

  /// Removes `slot`; no effect when it is not in the set. The usual case, a slot that is not
  /// there and whose bucket is empty (the table is at most half full), is settled inline.
  @inline(__always)
  mutating func remove(_ slot: Int32) {
    guard count > 0 else { return }
    let i = bucket(slot, mask: table.count - 1)
    if table[i] == Self.empty { return }
    remove(slot, probingFrom: i)
  }

  /// ``remove(_:)`` from bucket `i` on, the slot's bucket, which is not empty.
  private mutating func remove(_ slot: Int32, probingFrom start: Int) {
    let mask = table.count - 1
    var i = start
    while true {
      let s = table[i]
      if s == Self.empty { return }
      if s == slot { break }
      i = (i + 1) & mask
    }
    // Backward-shift deletion: move each following entry of the probe run into the hole when its
    // home bucket does not lie (cyclically) between the hole and its position.
    var hole = i
    var j = (i + 1) & mask
    while table[j] != Self.empty {
      let home = bucket(table[j], mask: mask)
      let distanceToJ = (j - home) & mask
      let distanceToHole = (hole - home) & mask
      if distanceToHole < distanceToJ {
        table[hole] = table[j]
        hole = j
      }
      j = (j + 1) & mask
    }
    table[hole] = Self.empty
    count -= 1
  }

  /// Removes every slot, keeping the storage.
  mutating func removeAll() {
    guard count > 0 else { return }
    table.withUnsafeMutableBufferPointer { $0.update(repeating: Self.empty) }
    count = 0
  }

  /// Calls `body` with every slot, in no particular order.
  @inline(__always)
  func forEach(_ body: (Int32) -> Void) {
    guard count > 0 else { return }
    for s in table where s != Self.empty { body(s) }
  }

  /// The slots, ascending.
  var sorted: [Int32] {
    var out: [Int32] = []
    out.reserveCapacity(count)
    for s in table where s != Self.empty { out.append(s) }
    out.sort()
    return out
  }

  /// Bytes of storage held.
  var memoryFootprint: Int { table.capacity * MemoryLayout<Int32>.stride }

  private mutating func grow() {
    let old = table
    table = Array(repeating: Self.empty, count: max(8, old.count * 2))
    count = 0
    for s in old where s != Self.empty { insert(s) }
  }

  static func == (a: SlotSet, b: SlotSet) -> Bool {
    a.count == b.count && a.sorted == b.sorted
  }
}
