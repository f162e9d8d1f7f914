/// The cells of one ``RegionSet`` that detectors have entered, built once and shared by every
/// detector over the set, from any task.
///
/// A cell's ``CellCandidates`` depends only on the set and the cell's key, so a device entering a
/// cell another device built reuses it. A lookup takes a lock; detectors keep the last few cells
/// they used themselves (``CrossingDetector``), so the lock is taken only when a device enters a
/// cell it has not seen recently. Bounded: when it holds ``capacity`` cells it is emptied (cells in
/// use stay alive in the detectors that hold them).
final class CellCandidatesCache: @unchecked Sendable {
  /// The most cells held; about 2 KB each for cells of 16 circles.
  let capacity: Int
  private var cells: [UInt64: CellCandidates] = [:]
  private let lock = PthreadMutex()

  init(capacity: Int = 1 << 15) {
    self.capacity = capacity
  }

  /// The cell `key`, from the cache or built by `build` (outside the lock: two tasks may build the
  /// same cell at once, which is harmless, as both builds are equal).
  func cell(_ key: UInt64, build: () -> CellCandidates) -> CellCandidates {
    if let known = lock.withLock({ cells[key] }) { return known }
    let cell = build()
    return lock.withLock {
      if let raced = cells[key] { return raced }
      if cells.count >= capacity { cells.removeAll(keepingCapacity: true) }
      cells[key] = cell
      return cell
    }
  }

  /// Number of cells held.
  var count: Int { lock.withLock { cells.count } }
}
