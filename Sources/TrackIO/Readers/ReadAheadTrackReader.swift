public import CellHandoff
public import Geodesy
import Foundation

/// A ``TrackFileReader`` run on a thread of its own, a few thousand fixes ahead of the caller, so
/// that parsing the file and working on its fixes take two cores instead of one after the other.
///
/// The caller sees exactly what the reader would give it, in the same order: each fix with its
/// line and reported cell, a reading error after the fixes before it, the warnings of each fix
/// after that fix (``takeWarnings()``), the counts at the end. Only ``bytesRead`` runs ahead (it
/// is the reader's, a batch in front).
///
/// The reader thread fills at most ``batchesAhead`` batches of ``batchSize`` fixes, then waits
/// for the caller to take one; the arrays go back and forth, so reading allocates nothing per fix.
/// Dropping the last reference stops the thread at its next batch.
public final class ReadAheadTrackReader {
  /// Fixes handed over at a time.
  public static let batchSize = 4_096
  /// Batches filled ahead of the caller at most.
  public static let batchesAhead = 3

  /// What the reader thread produced since the last hand-over.
  struct Batch {
    var fixes: [LocationFix] = []
    var lines: [Int] = []
    /// Reported cells, when the file names them.
    var cells: [CellIdentity?] = []
    /// Warnings, each after the fix at this index of the batch (-1: before the first).
    var warnings: [(after: Int, warning: TrackIOError)] = []
    /// The reading error after the batch's fixes, or nil.
    var error: TrackIOError?
    /// The file's end follows the batch's fixes.
    var atEnd = false
    var bytesRead = 0
    var pointsWithoutTime = 0
    var warningCount = 0

    mutating func clear() {
      fixes.removeAll(keepingCapacity: true)
      lines.removeAll(keepingCapacity: true)
      cells.removeAll(keepingCapacity: true)
      warnings.removeAll()
      error = nil
      atEnd = false
    }
  }

  /// The reader thread's side: the reader, used only by that thread once started.
  final class Producer: @unchecked Sendable {
    let channel: BatchChannel<Batch>
    var reader: TrackFileReader
    let lenient: Bool

    init(reader: TrackFileReader, lenient: Bool, channel: BatchChannel<Batch>) {
      self.reader = reader
      self.lenient = lenient
      self.channel = channel
    }

    /// The reader thread's loop: fills batches until the end, an error, or a stop.
    func produce() {
      let namesCells = reader.namesCells
      while var batch = channel.batchToFill() {
        batch.clear()
        while batch.fixes.count < ReadAheadTrackReader.batchSize {
          do throws(TrackIOError) {
            guard let fix = try reader.next() else {
              batch.atEnd = true
              break
            }
            batch.fixes.append(fix)
            batch.lines.append(reader.lineNumber)
            if namesCells { batch.cells.append(reader.reportedCell) }
            if lenient {
              for warning in reader.takeWarnings() { batch.warnings.append((batch.fixes.count - 1, warning)) }
            }
          } catch {
            batch.error = error
            break
          }
        }
        for warning in reader.takeWarnings() { batch.warnings.append((batch.fixes.count - 1, warning)) }
        batch.bytesRead = reader.bytesRead
        batch.pointsWithoutTime = reader.pointsWithoutTime
        batch.warningCount = reader.warningCount
        let last = batch.atEnd || batch.error != nil
        channel.hand(batch)
        if last { return }
      }
    }
  }

  private let channel: BatchChannel<Batch>
  private var batch = Batch()
  /// The index in `batch` of the next fix to return.
  private var position = 0
  private var nextWarning = 0
  private var done = false

  public let path: String
  public let format: TrackFileReader.Format
  /// Whether the file names serving cells.
  public let namesCells: Bool
  /// The line of the fix last returned.
  public private(set) var lineNumber = 0
  /// The serving cell named by the fix last returned.
  public private(set) var reportedCell: CellIdentity?
  /// GPX track points without a time skipped (final once ``next()`` returned nil; before, the
  /// count up to the end of the batch being returned).
  public private(set) var pointsWithoutTime = 0
  /// Recoveries made (lenient GPX; final once ``next()`` returned nil).
  public private(set) var warningCount = 0
  /// Bytes read from the file so far.
  public private(set) var bytesRead = 0
  private var warnings: [TrackIOError] = []

  /// Starts reading `reader` on a thread of its own. `lenient`: hand each fix's warnings over
  /// after it (otherwise they are collected a batch at a time). A reader that returned fixes
  /// already goes on from there: ``lineNumber``, ``reportedCell`` and ``takeWarnings()`` start
  /// with what it says of the last one.
  public init(_ reader: TrackFileReader, lenient: Bool = false) {
    var reader = reader
    warnings = reader.takeWarnings()
    path = reader.path
    format = reader.format
    namesCells = reader.namesCells
    bytesRead = reader.bytesRead
    // What the reader says of a fix it returned before (the first, read to sniff the file).
    lineNumber = reader.lineNumber
    reportedCell = reader.reportedCell
    pointsWithoutTime = reader.pointsWithoutTime
    warningCount = reader.warningCount
    // Every batch's arrays are made here, on the caller's thread (see ``BatchChannel``).
    var batches: [Batch] = []
    for _ in 0...Self.batchesAhead {
      var batch = Batch()
      batch.fixes.reserveCapacity(Self.batchSize)
      batch.lines.reserveCapacity(Self.batchSize)
      if namesCells { batch.cells.reserveCapacity(Self.batchSize) }
      batches.append(batch)
    }
    channel = BatchChannel(batches: batches, ahead: Self.batchesAhead) { Batch() }
    let producer = Producer(reader: reader, lenient: lenient, channel: channel)
    BatchChannel<Batch>.startThread(named: "geowake track reader") { producer.produce() }
  }

  deinit { channel.stop() }

  /// The next fix, or nil at the end of the file.
  /// - Throws: The reader's error, after every fix before it was returned.
  public func next() throws(TrackIOError) -> LocationFix? {
    while position >= batch.fixes.count {
      deliverWarnings(through: Int.max)
      if let error = batch.error { throw error }
      if done || batch.atEnd {
        done = true
        return nil
      }
      take()
    }
    let k = position
    position += 1
    lineNumber = batch.lines[k]
    if namesCells { reportedCell = batch.cells[k] }
    deliverWarnings(through: k)
    return batch.fixes[k]
  }

  /// The warnings since the last call (see ``TrackFileReader/takeWarnings()``).
  public func takeWarnings() -> [TrackIOError] {
    defer { warnings.removeAll() }
    return warnings
  }

  /// Moves the warnings of the batch's fixes up to index `k` to ``takeWarnings()``.
  private func deliverWarnings(through k: Int) {
    while nextWarning < batch.warnings.count, batch.warnings[nextWarning].after <= k {
      warnings.append(batch.warnings[nextWarning].warning)
      nextWarning += 1
    }
  }

  /// Waits for the next batch and gives the current one back to be filled again.
  private func take() {
    channel.exchange(&batch)
    position = 0
    nextWarning = 0
    bytesRead = batch.bytesRead
    pointsWithoutTime = batch.pointsWithoutTime
    warningCount = batch.warningCount
  }
}
