/// A ``RegionSet``'s fingerprint, computed the first time it is asked for and kept, shared by the
/// copies of the set (and the tasks) that hold the same cache: hashing every region's geometry
/// is work a set that never takes a snapshot should not pay for. A change to the set gives it a new
/// cache (updated from the old value when that was known).
final class FingerprintCache: @unchecked Sendable {
  private var value: UInt64?
  private let lock = PthreadMutex()

  init(_ value: UInt64? = nil) {
    self.value = value
  }

  /// The value if it was computed already.
  var known: UInt64? { lock.withLock { value } }

  /// The value, computed by `compute` (outside the lock: two tasks may compute it at once, which
  /// is harmless, as both give the same) if it was not known.
  func value(_ compute: () -> UInt64) -> UInt64 {
    if let known { return known }
    let computed = compute()
    lock.withLock { value = computed }
    return computed
  }
}
