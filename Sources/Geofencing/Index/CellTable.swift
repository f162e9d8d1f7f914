/// An open-addressing hash table from grid cell keys to the head of the cell's posting list.
///
/// Linear probing with a multiplicative (Fibonacci) hash of the 64-bit key: a lookup is a
/// multiply, a shift and usually one probe — several times cheaper than `Dictionary`'s seeded
/// SipHash, and the grid does one lookup per level for every cell the device enters.
struct CellTable {
  /// Marks an empty bucket; never a valid key (levels stop at 24, the key's top byte).
  static let empty = UInt64.max

  private(set) var keys: [UInt64]
  private(set) var values: [Int32]
  private(set) var count = 0
  private var shift: UInt64

  init(minimumCapacity: Int = 16) {
    var capacity = 16
    while capacity < minimumCapacity * 2 { capacity <<= 1 }
    keys = Array(repeating: Self.empty, count: capacity)
    values = Array(repeating: -1, count: capacity)
    shift = UInt64(64 - capacity.trailingZeroBitCount)
  }

  @inline(__always) private func bucket(_ key: UInt64) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// The value for `key`, or -1.
  @inline(__always) func value(for key: UInt64) -> Int32 {
    let mask = keys.count - 1
    var i = bucket(key)
    while true {
      let k = keys[i]
      if k == key { return values[i] }
      if k == Self.empty { return -1 }
      i = (i + 1) & mask
    }
  }

  /// Sets the value for `key` (inserting it if absent).
  mutating func set(_ value: Int32, for key: UInt64) {
    if (count + 1) * 2 > keys.count { grow() }
    let mask = keys.count - 1
    var i = bucket(key)
    while true {
      let k = keys[i]
      if k == key {
        values[i] = value
        return
      }
      if k == Self.empty {
        keys[i] = key
        values[i] = value
        count += 1
        return
      }
      i = (i + 1) & mask
    }
  }

  /// Replaces every value by `transform` of it, in bucket order.
  mutating func transformValues(_ transform: (Int32) -> Int32) {
    for i in keys.indices where keys[i] != Self.empty { values[i] = transform(values[i]) }
  }

  /// Removes `key` (backward-shift deletion keeps probe sequences intact without tombstones).
  mutating func remove(_ key: UInt64) {
    let mask = keys.count - 1
    var i = bucket(key)
    while keys[i] != key {
      if keys[i] == Self.empty { return }
      i = (i + 1) & mask
    }
    count -= 1
    var hole = i
    var j = i
    while true {
      j = (j + 1) & mask
      let k = keys[j]
      if k == Self.empty { break }
      let home = bucket(k)
      // Move k into the hole if its home is not cyclically within (hole, j].
      let inRange = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
      if !inRange {
        keys[hole] = k
        values[hole] = values[j]
        hole = j
      }
    }
    keys[hole] = Self.empty
    values[hole] = -1
  }

  private mutating func grow() {
    let oldKeys = keys
    let oldValues = values
    let capacity = keys.count * 2
    keys = Array(repeating: Self.empty, count: capacity)
    values = Array(repeating: -1, count: capacity)
    shift = UInt64(64 - capacity.trailingZeroBitCount)
    count = 0
    for (k, v) in zip(oldKeys, oldValues) where k != Self.empty { set(v, for: k) }
  }

  /// Bytes held by the table.
  var memoryFootprint: Int { keys.capacity * 8 + values.capacity * 4 }
}
