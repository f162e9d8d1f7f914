/// A reader whose items a ``ReadAhead`` reads on a thread of its own.
protocol ReadAheadSource: SendableMetatype {
  /// One thing read, with whatever the caller learns of it (its line, say).
  associatedtype Item
  /// What the reader says besides its items, as it stands after the last one read: counts,
  /// summaries, bytes read.
  associatedtype Status

  /// Whether each item's warnings go to the caller right after that item; otherwise a batch's
  /// warnings come after its last item.
  var warnsPerItem: Bool { get }
  var status: Status { get }
  mutating func next() throws(TrackIOError) -> Item?
  mutating func takeWarnings() -> [TrackIOError]
}

/// A ``ReadAheadSource`` read on a thread of its own, a few batches ahead of the caller, so that
/// parsing a file and working on what it holds take two cores instead of one after the other.
///
/// The caller sees exactly what the source would give it, in the same order: each item, a
/// reading error after the items before it, each item's warnings after that item
/// (``takeWarnings()``), the status as it stood after the batch being returned. The reader thread
/// fills at most `batchesAhead` batches of `batchSize` items, then waits for the caller to take
/// one; the batches go back and forth (``BatchChannel``), so reading allocates nothing per item.
/// Dropping the last reference stops the thread at its next batch.
final class ReadAhead<Source: ReadAheadSource> {
  /// What the reader thread produced since the last hand-over.
  struct Batch {
    var items: [Source.Item] = []
    /// Warnings, each after the item at this index of the batch (-1: before the first).
    var warnings: [(after: Int, warning: TrackIOError)] = []
    /// The reading error after the batch's items, or nil.
    var error: TrackIOError?
    /// The file's end follows the batch's items.
    var atEnd = false
    /// The source's status after the batch's last item (nil in a batch not yet filled).
    var status: Source.Status?

    mutating func clear() {
      items.removeAll(keepingCapacity: true)
      warnings.removeAll()
      error = nil
      atEnd = false
    }
  }

  /// The reader thread's side: the source, used only by that thread once started.
  final class Producer: @unchecked Sendable {
    let channel: BatchChannel<Batch>
    var source: Source
    let batchSize: Int

    init(source: Source, batchSize: Int, channel: BatchChannel<Batch>) {
      self.source = source
      self.batchSize = batchSize
      self.channel = channel
    }

    /// The reader thread's loop: fills batches until the end, an error, or a stop.
    func produce() {
      let warnsPerItem = source.warnsPerItem
      while var batch = channel.batchToFill() {
        batch.clear()
        while batch.items.count < batchSize {
          do throws(TrackIOError) {
            guard let item = try source.next() else {
              batch.atEnd = true
              break
            }
            batch.items.append(item)
            if warnsPerItem {
              for warning in source.takeWarnings() { batch.warnings.append((batch.items.count - 1, warning)) }
            }
          } catch {
            batch.error = error
            break
          }
        }
        for warning in source.takeWarnings() { batch.warnings.append((batch.items.count - 1, warning)) }
        batch.status = source.status
        let last = batch.atEnd || batch.error != nil
        channel.hand(batch)
        if last { return }
      }
    }
  }

  private let channel: BatchChannel<Batch>
  private var batch = Batch()
  /// The index in `batch` of the next item to return.
  private var position = 0
  private var nextWarning = 0
  private var done = false
  private var warnings: [TrackIOError]
  /// The source's status after the last batch taken (final once ``next()`` returned nil).
  private(set) var status: Source.Status

  /// Starts reading `source` on a thread named `threadName`, from where it stands: its warnings
  /// so far come first from ``takeWarnings()``.
  init(_ source: Source, batchSize: Int, batchesAhead: Int, threadName: String) {
    var source = source
    warnings = source.takeWarnings()
    status = source.status
    // Every batch's arrays are made here, on the caller's thread (see ``BatchChannel``).
    var batches: [Batch] = []
    for _ in 0...batchesAhead {
      var batch = Batch()
      batch.items.reserveCapacity(batchSize)
      batches.append(batch)
    }
    channel = BatchChannel(batches: batches, ahead: batchesAhead) { Batch() }
    let producer = Producer(source: source, batchSize: batchSize, channel: channel)
    BatchChannel<Batch>.startThread(named: threadName) { producer.produce() }
  }

  deinit { channel.stop() }

  /// The next item, or nil at the end of the file.
  /// - Throws: The source's error, after every item before it was returned.
  func next() throws(TrackIOError) -> Source.Item? {
    while position >= batch.items.count {
      deliverWarnings(through: Int.max)
      if let error = batch.error { throw error }
      if done || batch.atEnd {
        done = true
        return nil
      }
      channel.exchange(&batch)
      position = 0
      nextWarning = 0
      if let status = batch.status { self.status = status }
    }
    let k = position
    position += 1
    deliverWarnings(through: k)
    return batch.items[k]
  }

  /// The warnings since the last call.
  func takeWarnings() -> [TrackIOError] {
    defer { warnings.removeAll() }
    return warnings
  }

  /// Moves the warnings of the batch's items up to index `k` to ``takeWarnings()``.
  private func deliverWarnings(through k: Int) {
    while nextWarning < batch.warnings.count, batch.warnings[nextWarning].after <= k {
      warnings.append(batch.warnings[nextWarning].warning)
      nextWarning += 1
    }
  }
}
