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

  /// The GPX reader as the reader thread sees it.
  struct Source: ReadAheadSource {
    struct Status {
      var summary: GPXSummary
      var bytesRead: Int
      var warningCount: Int
    }

    var reader: GPXReader

    var warnsPerItem: Bool { reader.isLenient }
    var status: Status {
      Status(summary: reader.summary, bytesRead: reader.bytesRead, warningCount: reader.warningCount)
    }

    mutating func next() throws(TrackIOError) -> GPXPoint? { try reader.next() }
    mutating func takeWarnings() -> [TrackIOError] { reader.takeWarnings() }
  }

  private let readAhead: ReadAhead<Source>

  /// The file as named by the user (or `<stdin>`).
  public let path: String
  /// What the file held (final once ``next()`` returned nil; before, up to the end of the batch
  /// being returned).
  public var summary: GPXSummary { readAhead.status.summary }
  /// Recoveries made (lenient mode; final once ``next()`` returned nil).
  public var warningCount: Int { readAhead.status.warningCount }
  /// Bytes read from the file so far.
  public var bytesRead: Int { readAhead.status.bytesRead }

  /// Starts reading `reader` on a thread of its own, from where it stands.
  public init(_ reader: GPXReader) {
    path = reader.path
    readAhead = ReadAhead(
      Source(reader: reader), batchSize: Self.batchSize, batchesAhead: Self.batchesAhead,
      threadName: "geowake GPX reader")
  }

  /// The next point in document order, or nil at the end of the file.
  /// - Throws: The reader's error, after every point before it was returned.
  public func next() throws(TrackIOError) -> GPXPoint? { try readAhead.next() }

  /// The recoveries and schema warnings since the last call (see ``GPXReader/takeWarnings()``).
  public func takeWarnings() -> [TrackIOError] { readAhead.takeWarnings() }
}
