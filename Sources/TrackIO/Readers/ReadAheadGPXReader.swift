/// A ``GPXReader`` run on a thread of its own, a few thousand points ahead of the caller, so that
/// parsing the file and working on its points (``TrackStatistics`` measuring the track) take two
/// cores instead of one after the other.
///
/// The caller sees exactly what the reader would give it, in the same order: each point, a
/// reading error after the points before it, each point's warnings after that point
/// (``takeWarnings()``), the summary at the end. Only ``bytesRead`` runs ahead (a batch in front).
/// The batches go back and forth (``BatchChannel``), so reading allocates nothing per point.
/// Dropping the last reference stops the thread at its next batch.
public final class ReadAheadGPXReader {
  /// Points handed over at a time.
  public static let batchSize = 4_096
  /// Batches filled ahead of the caller at most.
  public static let batchesAhead = 3

  /// What the reader thread produced since the last hand-over.
  struct Batch {
    var points: [GPXPoint] = []
    /// Warnings, each after the point at this index of the batch (-1: before the first).
    var warnings: [(after: Int, warning: TrackIOError)] = []
    /// The reading error after the batch's points, or nil.
    var error: TrackIOError?
    /// The file's end follows the batch's points.
    var atEnd = false
    var summary = GPXSummary()
    var bytesRead = 0
    var warningCount = 0

    mutating func clear() {
      points.removeAll(keepingCapacity: true)
      warnings.removeAll()
      error = nil
      atEnd = false
    }
  }

  /// The reader thread's side: the reader, used only by that thread once started.
  final class Producer: @unchecked Sendable {
    let channel: BatchChannel<Batch>
    var reader: GPXReader

    init(reader: GPXReader, channel: BatchChannel<Batch>) {
      self.reader = reader
      self.channel = channel
    }

    /// The reader thread's loop: fills batches until the end, an error, or a stop.
    func produce() {
      let lenient = reader.isLenient
      while var batch = channel.batchToFill() {
        batch.clear()
        while batch.points.count < ReadAheadGPXReader.batchSize {
          do throws(TrackIOError) {
            guard let point = try reader.next() else {
              batch.atEnd = true
              break
            }
            batch.points.append(point)
            if lenient {
              for warning in reader.takeWarnings() { batch.warnings.append((batch.points.count - 1, warning)) }
            }
          } catch {
            batch.error = error
            break
          }
        }
        for warning in reader.takeWarnings() { batch.warnings.append((batch.points.count - 1, warning)) }
        batch.summary = reader.summary
        batch.bytesRead = reader.bytesRead
        batch.warningCount = reader.warningCount
        let last = batch.atEnd || batch.error != nil
        channel.hand(batch)
        if last { return }
      }
    }
  }

  private let channel: BatchChannel<Batch>
  private var batch = Batch()
  /// The index in `batch` of the next point to return.
  private var position = 0
  private var nextWarning = 0
  private var done = false
  private var warnings: [TrackIOError] = []

  /// The file as named by the user (or `<stdin>`).
  public let path: String
  /// What the file held (final once ``next()`` returned nil; before, up to the end of the batch
  /// being returned).
  public private(set) var summary = GPXSummary()
  /// Recoveries made (lenient mode; final once ``next()`` returned nil).
  public private(set) var warningCount = 0
  /// Bytes read from the file so far.
  public private(set) var bytesRead = 0

  /// Starts reading `reader` on a thread of its own, from where it stands.
  public init(_ reader: GPXReader) {
    var reader = reader
    warnings = reader.takeWarnings()
    path = reader.path
    summary = reader.summary
    warningCount = reader.warningCount
    bytesRead = reader.bytesRead
    // Every batch's arrays are made here, on the caller's thread (see ``BatchChannel``).
    var batches: [Batch] = []
    for _ in 0...Self.batchesAhead {
      var batch = Batch()
      batch.points.reserveCapacity(Self.batchSize)
      batches.append(batch)
    }
    channel = BatchChannel(batches: batches, ahead: Self.batchesAhead) { Batch() }
    let producer = Producer(reader: reader, channel: channel)
    BatchChannel<Batch>.startThread(named: "geowake GPX reader") { producer.produce() }
  }

  deinit { channel.stop() }

  /// The next point in document order, or nil at the end of the file.
  /// - Throws: The reader's error, after every point before it was returned.
  public func next() throws(TrackIOError) -> GPXPoint? {
    while position >= batch.points.count {
      deliverWarnings(through: Int.max)
      if let error = batch.error { throw error }
      if done || batch.atEnd {
        done = true
        return nil
      }
      channel.exchange(&batch)
      position = 0
      nextWarning = 0
      summary = batch.summary
      bytesRead = batch.bytesRead
      warningCount = batch.warningCount
    }
    let k = position
    position += 1
    deliverWarnings(through: k)
    return batch.points[k]
  }

  /// The recoveries and schema warnings since the last call (see ``GPXReader/takeWarnings()``).
  public func takeWarnings() -> [TrackIOError] {
    defer { warnings.removeAll() }
    return warnings
  }

  /// Moves the warnings of the batch's points up to index `k` to ``takeWarnings()``.
  private func deliverWarnings(through k: Int) {
    while nextWarning < batch.warnings.count, batch.warnings[nextWarning].after <= k {
      warnings.append(batch.warnings[nextWarning].warning)
      nextWarning += 1
    }
  }
}
