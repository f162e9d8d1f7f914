#if Server
import Synchronization

/// The last event's sequence number, and the readers waiting for a later one (a stream's or a
/// long poll's). Closed when the server shuts down: every reader is woken and waits no more.
public final class EventNotifier: Sendable {
  private struct State {
    var latest: Int64
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var cancelled: Set<UInt64> = []
    var nextID: UInt64 = 0
    var closed = false
  }
  private let state: Mutex<State>

  init(latest: Int64) { state = Mutex(State(latest: latest)) }

  public var latest: Int64 { state.withLock { $0.latest } }

  /// Whether the server is shutting down: streams end, long polls answer what they have.
  public var isClosed: Bool { state.withLock { $0.closed } }

  /// Wakes every reader, and makes every later ``wait(after:timeout:)`` return at once.
  public func close() {
    let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.closed = true
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for continuation in woken { continuation.resume() }
  }

  func publish(_ seq: Int64) {
    let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.latest = max(state.latest, seq)
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for continuation in woken { continuation.resume() }
  }

  /// Returns once an event after `seq` is published, or after `timeout`, or when the task is
  /// cancelled or the notifier closed.
  public func wait(after seq: Int64, timeout: Duration) async {
    if state.withLock({ $0.latest > seq || $0.closed }) { return }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.waitForPublication(after: seq) }
      group.addTask { try? await Task.sleep(for: timeout) }
      await group.next()
      group.cancelAll()
    }
  }

  private func waitForPublication(after seq: Int64) async {
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state -> Bool in
          if state.latest > seq || state.closed || state.cancelled.remove(id) != nil { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
        if let continuation = state.waiters.removeValue(forKey: id) { return continuation }
        state.cancelled.insert(id)
        return nil
      }
      waiting?.resume()
    }
  }
}
#endif
