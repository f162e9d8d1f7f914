import Foundation

/// The hand-over between a reader thread and its caller: batches filled on the reader thread, at
/// most ``ahead`` of them waiting, taken in order by the caller, who gives each one back to be
/// filled again, so that reading allocates nothing per item.
///
/// Every batch is made by the caller's thread (``init(batches:ahead:)``): memory the reader
/// thread allocated would come from an arena of its own (glibc makes one per thread), megabytes
/// more at the peak. The state is touched only under the condition's lock.
final class BatchChannel<Batch>: @unchecked Sendable {
  private let condition = NSCondition()
  private var full: [Batch] = []
  private var empty: [Batch]
  private var stopped = false
  private let spare: @Sendable () -> Batch
  /// Filled batches waiting for the caller, at most.
  let ahead: Int

  /// A channel holding `batches` to fill (`ahead` + 1 are all it needs: the caller holds one
  /// while the reader fills another); `spare` makes one more if ever they run out.
  init(batches: [Batch], ahead: Int, spare: @escaping @Sendable () -> Batch) {
    empty = batches
    self.ahead = ahead
    self.spare = spare
  }

  /// Starts `body` on a thread of its own named `name`.
  static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
  }

  /// Reader side: a batch to fill, once fewer than ``ahead`` wait; nil once the caller stopped.
  func batchToFill() -> Batch? {
    condition.lock()
    defer { condition.unlock() }
    while !stopped && full.count >= ahead { condition.wait() }
    guard !stopped else { return nil }
    return empty.popLast() ?? spare()
  }

  /// Reader side: hands a filled batch over.
  func hand(_ batch: Batch) {
    condition.lock()
    full.append(batch)
    condition.signal()
    condition.unlock()
  }

  /// Caller side: waits for the next filled batch, puts it in `batch`, and gives what `batch`
  /// held back to be filled again.
  func exchange(_ batch: inout Batch) {
    condition.lock()
    while full.isEmpty { condition.wait() }
    var next = full.removeFirst()
    swap(&next, &batch)
    empty.append(next)
    condition.signal()
    condition.unlock()
  }

  /// Caller side: the reader thread stops at its next batch.
  func stop() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }
}
