#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ``RegionSet``'s fingerprint, computed the first time it is asked for and kept, shared by the
/// copies of the set (and the tasks) that hold the same cache: hashing every region's geometry
/// is work a set that never takes a snapshot should not pay for. A change to the set gives it a new
/// cache (updated from the old value when that was known).
final class FingerprintCache: @unchecked Sendable {
  private var value: UInt64?
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init(_ value: UInt64? = nil) {
    self.value = value
    mutex = UnsafeMutablePointer.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// The value if it was computed already.
  var known: UInt64? {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return value
  }

  /// The value, computed by `compute` (outside the lock: two tasks may compute it at once, which
  /// is harmless, as both give the same) if it was not known.
  func value(_ compute: () -> UInt64) -> UInt64 {
    if let known { return known }
    let computed = compute()
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    value = computed
    return computed
  }
}
