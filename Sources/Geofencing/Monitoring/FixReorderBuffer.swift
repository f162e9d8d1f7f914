public import Geodesy

/// Puts fixes that arrive slightly out of time order back in order, and says which arrive too
/// late: the explicit out-of-order policy of a ``RegionMonitor``.
///
/// A fix is held until a fix more than ``window`` seconds newer has arrived (or ``flush(into:)``),
/// then released in time order (ties in arrival order). A fix more than ``window`` seconds older
/// than the newest fix seen (or older than one already released) is refused. With a window of 0,
/// fixes are released as they arrive and any fix earlier than its predecessor is refused.
///
/// No allocation per fix once the held buffer has grown to the window's worth of fixes.
public struct FixReorderBuffer: Sendable {
  /// Seconds a fix may arrive late and still be used.
  public let window: Double
  /// Fixes that arrived out of order and were put back in place.
  public private(set) var reorderedCount = 0
  /// Time of the last fix released, if any.
  public private(set) var lastReleasedTime: Double?
  /// Time of the newest fix accepted so far (−∞ before the first).
  public private(set) var newest = -Double.infinity
  /// Fixes held, in time order, from `head` on (the slots before `head` are released and are
  /// reclaimed once they make up half the array, so a release costs O(1) amortised).
  private var held: [LocationFix] = []
  private var head = 0

  /// A reorder window that is not a finite number of seconds ≥ 0.
  public struct InvalidWindow: Error, Hashable, Sendable, CustomStringConvertible {
    public let window: Double
    public var description: String { "reorder window \(window) is not valid: expected a finite number of seconds ≥ 0" }
  }

  /// - Throws: ``InvalidWindow`` when `window` is negative, NaN or infinite.
  public init(window: Double) throws(InvalidWindow) {
    guard window >= 0 && window.isFinite else { throw InvalidWindow(window: window) }
    self.init(checkedWindow: window)
  }

  /// A window already checked: a validated profile's.
  init(checkedWindow window: Double) {
    self.window = window
  }

  /// Takes a fix with a finite time; appends to `ready` the fixes that are now final, in time
  /// order.
  /// - Returns: false when the fix is too late (it is not kept).
  public mutating func add(_ fix: LocationFix, into ready: inout [LocationFix]) -> Bool {
    if fix.time < newest - window { return false }
    if let released = lastReleasedTime, fix.time < released { return false }
    if head == held.count || held[held.count - 1].time <= fix.time {
      // In order, the usual case: after every held fix.
      held.append(fix)
    } else {
      // Insert after every held fix with a time ≤ this one (stable for ties).
      var low = head
      var high = held.count
      while low < high {
        let mid = (low + high) / 2
        if held[mid].time <= fix.time { low = mid + 1 } else { high = mid }
      }
      reorderedCount += 1
      held.insert(fix, at: low)
    }
    newest = max(newest, fix.time)
    var due = head
    while due < held.count, newest - held[due].time >= window { due += 1 }
    release(upTo: due, into: &ready)
    return true
  }

  /// Moves time on to `time` without a fix: releases every held fix at least ``window`` older,
  /// and refuses from then on any fix more than ``window`` older.
  public mutating func advance(to time: Double, into ready: inout [LocationFix]) {
    newest = max(newest, time)
    var due = head
    while due < held.count, newest - held[due].time >= window { due += 1 }
    release(upTo: due, into: &ready)
  }

  /// Releases every fix still held.
  public mutating func flush(into ready: inout [LocationFix]) {
    release(upTo: held.count, into: &ready)
  }

  private mutating func release(upTo end: Int, into ready: inout [LocationFix]) {
    guard end > head else { return }
    // One by one: a slice of `held` would hold a reference to its storage (a retain and a
    // release for every fix).
    for k in head..<end { ready.append(held[k]) }
    lastReleasedTime = held[end - 1].time
    head = end
    if head == held.count {
      held.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 64 && head * 2 >= held.count {
      held.removeFirst(head)
      head = 0
    }
  }
}

extension FixReorderBuffer {
  /// The buffer's state in a snapshot.
  struct State: Codable, Sendable, Hashable {
    var held: [FixRecord]
    var reorderedCount: Int
    var lastReleasedTime: Double?
    /// `nil` before the first fix.
    var newest: Double?
  }

  var state: State {
    State(
      held: held[head...].map(FixRecord.init), reorderedCount: reorderedCount, lastReleasedTime: lastReleasedTime,
      newest: newest.isFinite ? newest : nil)
  }

  init(window: Double, restoring state: State) throws(SnapshotError) {
    self.init(checkedWindow: window)
    for (k, record) in state.held.enumerated() { held.append(try record.fix(field: "held[\(k)]")) }
    guard state.reorderedCount >= 0 else { throw SnapshotError(.invalidField("reorderedCount", "negative")) }
    reorderedCount = state.reorderedCount
    lastReleasedTime = state.lastReleasedTime
    newest = state.newest ?? -Double.infinity
  }
}
