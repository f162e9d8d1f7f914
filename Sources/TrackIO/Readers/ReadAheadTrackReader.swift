public import CellHandoff
public import Geodesy

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

  /// The track reader as the reader thread sees it.
  struct Source: ReadAheadSource {
    /// A fix with its line and the cell the file names for it.
    struct Reading {
      var fix: LocationFix
      var line: Int
      var cell: CellIdentity?
      /// The index in ``Status/devices`` of the device the fix is from; -1 when the file names none.
      var device: Int32
    }

    struct Status {
      var bytesRead: Int
      var pointsWithoutTime: Int
      var warningCount: Int
      /// The devices the file named so far, in the order they first appear.
      var devices: [String]
    }

    var reader: TrackFileReader
    let warnsPerItem: Bool
    /// The devices named so far, their indices, and the reader's device-change count at the
    /// last fix (a device is looked up only when it changes).
    var devices: [String] = []
    var deviceIndices: [String: Int32] = [:]
    var deviceChanges = 0
    var device: Int32 = -1

    var status: Status {
      Status(
        bytesRead: reader.bytesRead, pointsWithoutTime: reader.pointsWithoutTime,
        warningCount: reader.warningCount, devices: devices)
    }

    mutating func next() throws(TrackIOError) -> Reading? {
      guard let fix = try reader.next() else { return nil }
      if reader.deviceChanges != deviceChanges {
        deviceChanges = reader.deviceChanges
        if let name = reader.device {
          if let known = deviceIndices[name] {
            device = known
          } else {
            device = Int32(devices.count)
            deviceIndices[name] = device
            devices.append(name)
          }
        }
      }
      return Reading(fix: fix, line: reader.lineNumber, cell: reader.namesCells ? reader.reportedCell : nil, device: device)
    }

    mutating func takeWarnings() -> [TrackIOError] { reader.takeWarnings() }
  }

  private let readAhead: ReadAhead<Source>

  public let path: String
  public let format: TrackFileReader.Format
  /// Whether the file names serving cells.
  public let namesCells: Bool
  /// The line of the fix last returned.
  public private(set) var lineNumber = 0
  /// The serving cell named by the fix last returned.
  public private(set) var reportedCell: CellIdentity?
  /// The index in ``devices`` of the device of the fix last returned; -1 when the file names none
  /// (a CSV `device` column, or JSON Lines `device`).
  public private(set) var deviceIndex = -1
  /// The devices the file named, in the order they first appear (up to the batch being returned;
  /// final once ``next()`` returned nil).
  public var devices: [String] { readAhead.status.devices }
  /// GPX track points without a time skipped (final once ``next()`` returned nil; before, the
  /// count up to the end of the batch being returned).
  public var pointsWithoutTime: Int { readAhead.status.pointsWithoutTime }
  /// Recoveries made (lenient GPX; final once ``next()`` returned nil).
  public var warningCount: Int { readAhead.status.warningCount }
  /// Bytes read from the file so far.
  public var bytesRead: Int { readAhead.status.bytesRead }

  /// Starts reading `reader` on a thread of its own. `lenient`: hand each fix's warnings over
  /// after it (otherwise they are collected a batch at a time). A reader that returned fixes
  /// already goes on from there: ``lineNumber``, ``reportedCell`` and ``takeWarnings()`` start
  /// with what it says of the last one.
  public init(_ reader: TrackFileReader, lenient: Bool = false) {
    path = reader.path
    format = reader.format
    namesCells = reader.namesCells
    // What the reader says of a fix it returned before (the first, read to sniff the file).
    lineNumber = reader.lineNumber
    reportedCell = reader.reportedCell
    readAhead = ReadAhead(
      Source(reader: reader, warnsPerItem: lenient), batchSize: Self.batchSize,
      batchesAhead: Self.batchesAhead, threadName: "geowake track reader")
  }

  /// The next fix, or nil at the end of the file.
  /// - Throws: The reader's error, after every fix before it was returned.
  public func next() throws(TrackIOError) -> LocationFix? {
    guard let reading = try readAhead.next() else { return nil }
    lineNumber = reading.line
    if namesCells { reportedCell = reading.cell }
    deviceIndex = Int(reading.device)
    return reading.fix
  }

  /// The warnings since the last call (see ``TrackFileReader/takeWarnings()``).
  public func takeWarnings() -> [TrackIOError] { readAhead.takeWarnings() }
}
