#if Server
import Foundation

/// The requests waiting for the engine: each group is given its time as it joins (so times
/// follow the order groups are taken in), and all that arrive while one transaction is being
/// stored go together in the next (one transaction, one sync to disk for all of them). Joining
/// takes a lock, not a task: a connection's groups join in the order it read them.
final class PushQueue: @unchecked Sendable {
  typealias Reply = @Sendable (Result<[PushBook.Answer], any Error>) -> Void
  let engine: LiveEngine
  let clock: ServerClock
  private let lock = NSLock()
  /// Guarded by `lock`: the groups waiting, each with who is told its answers, and whether a
  /// transaction is being stored.
  private var waiting: [(requests: [EngineStore.PushLogRequest], reply: Reply)] = []
  private var storing = false

  init(engine: LiveEngine, clock: ServerClock) {
    self.engine = engine
    self.clock = clock
  }

  /// Queues `requests` (timed now, in their order); `reply` gets their answers once they are
  /// stored, or the store's error.
  func submit(_ requests: [EngineStore.PushLogRequest], reply: @escaping Reply) {
    var requests = requests
    let start = lock.withLock {
      let now = clock.now
      for k in requests.indices { requests[k].time = now }
      waiting.append((requests, reply))
      if storing { return false }
      storing = true
      return true
    }
    if start { Task { await self.drain() } }
  }

  func submit(_ requests: [EngineStore.PushLogRequest]) async throws -> [PushBook.Answer] {
    try await withCheckedThrowingContinuation { continuation in submit(requests) { continuation.resume(with: $0) } }
  }

  private func drain() async {
    while true {
      let groups: [(requests: [EngineStore.PushLogRequest], reply: Reply)]? = lock.withLock {
        if waiting.isEmpty {
          storing = false
          return nil
        }
        defer { waiting = [] }
        return waiting
      }
      guard let groups else { return }
      do {
        let answers = try await engine.pushRequests(groups.flatMap(\.requests))
        var next = 0
        for group in groups {
          group.reply(.success(Array(answers[next..<(next + group.requests.count)])))
          next += group.requests.count
        }
      } catch {
        for group in groups { group.reply(.failure(error)) }
      }
    }
  }
}
#endif
