import Geodesy
import Dispatch
import Foundation

/// A CSV file with a device column read in pieces on every core: the bytes after the header cut
/// at line ends, each piece read by a reader of its own, and the pieces' steps put back together
/// in file order, with the steps one reader would have made (``DeviceRowReader``): lines numbered
/// as in the file, a device that goes on across a cut not changing there, and the warnings about
/// epoch units made from every piece's (a file's first numeric time in milliseconds, a second
/// unit anywhere).
///
/// For regular, uncompressed CSV files without drive-log columns (whose cells depend on the rows
/// before); ``readable(path:)`` says whether a file is one.
package struct DeviceRowPieces {
  package let path: String
  private let assumeUTC: Bool
  private var ranges: [Range<Int>]
  private var nextRange = 0
  private let readers: Int
  package let namesCells: Bool
  private let headerLine: Int
  private var reads: PieceReads?
  private var ended = false

  /// What joining a piece needs to know of those before it.
  struct JoinState: Sendable {
    var lineBase: Int
    /// The device field of the last row naming one (empty before any, as for one reader).
    var lastDeviceBytes: [UInt8] = []
    var fileUnit: FixCSVReader.TimeUnitNote?
    var unitsMixed = false
  }

  /// How a piece joins the file: its first line's number less one, the unit warnings to make
  /// before its steps (by index), and the device step to leave out (its device goes on across
  /// the cut).
  struct JoinPlan: Sendable {
    var base: Int
    var unitWarnings: [(step: Int, warning: TrackIOError)] = []
    var skip: Int?
  }

  /// One piece as read: its steps with lines counted from the piece's start.
  struct Piece: Sendable {
    var batch = DeviceRowBatch()
    var lineCount = 0
    /// The raw device field of the piece's first row naming a device, and of its last.
    var firstDeviceBytes: [UInt8]?
    var lastDeviceBytes: [UInt8]?
    /// Where its first device step is, when it is the piece's first device.
    var firstDeviceStep: Int?
    /// The piece's first numeric time and the first in another unit, with the step index before
    /// which a warning about each would go.
    var firstUnit: (note: FixCSVReader.TimeUnitNote, step: Int)?
    var changedUnit: (note: FixCSVReader.TimeUnitNote, step: Int)?
    /// Whether the piece ends the file's reading (a read that failed).
    var endsFile = false
  }

  /// The pieces to read `path` in: the rows after its header cut at line ends into pieces of
  /// about `pieceSize` bytes (default: eight pieces a reader, each 64 KB to 8 MB, so that the
  /// readers finish together and a piece's rows stay in the caches), read by `readers` threads.
  package init(path: String, assumeUTC: Bool, readers: Int, pieceSize: Int? = nil) throws(TrackIOError) {
    let header = try FixCSVReader(path: path, assumeUTC: assumeUTC)
    self.path = header.path
    self.assumeUTC = assumeUTC
    self.readers = max(1, readers)
    namesCells = header.namesCells
    headerLine = header.headerLine
    let size = InputFile.size(path: path) ?? 0
    let piece = pieceSize ?? min(8 << 20, max(64 << 10, size / (8 * self.readers)))
    ranges = try Self.cuts(path: path, from: header.headerEnd, pieceSize: max(1, piece))
  }

  /// Whether `path` can be read in pieces: a regular, uncompressed CSV file whose header names a
  /// device column and no drive-log columns.
  package static func readable(path: String) -> Bool {
    guard path != "-", InputFile.isRegularFile(path: path), !TrackFileReader.isCompressed(path),
      (try? TrackFileReader.format(path: path)) == .csv, let reader = try? FixCSVReader(path: path)
    else { return false }
    return reader.namesDevices && !reader.readsDriveLog
  }

  /// Byte ranges from `start` to the end of the file, each ending after a line end (the last at
  /// the end of the file), about `pieceSize` long; the last holds at least two lines when the file
  /// does, so that the check of an unterminated last line sees the line before it.
  static func cuts(path: String, from start: Int, pieceSize: Int) throws(TrackIOError) -> [Range<Int>] {
    let input = try InputFile(path: path, inflating: false)
    guard let size = input.sizeAtOpen, size > start else { return [] }
    var probe = [UInt8]()
    /// The offset after the first line end at or after `at` (nil: none before the end).
    func lineEnd(after at: Int) throws(TrackIOError) -> Int? {
      try input.seek(to: at)
      var offset = at
      while offset < size {
        probe.removeAll(keepingCapacity: true)
        let n = try input.append(upTo: 1 << 16, to: &probe)
        guard n > 0 else { return nil }
        if let i = probe.firstIndex(of: UInt8(ascii: "\n")) { return offset + i + 1 }
        offset += n
      }
      return nil
    }
    var cuts = [start]
    var at = start + pieceSize
    while at < size, let cut = try lineEnd(after: at), cut < size {
      cuts.append(cut)
      at = cut + pieceSize
    }
    var ranges = zip(cuts, cuts.dropFirst() + [size]).map { $0..<$1 }
    // Fewer than two lines in the last piece (no line end before its last byte): it joins the
    // one before.
    if ranges.count > 1, let last = ranges.last, (try lineEnd(after: last.lowerBound)).map({ $0 >= size }) ?? true {
      ranges.removeLast()
      ranges[ranges.count - 1] = ranges[ranges.count - 1].lowerBound..<size
    }
    return ranges
  }

  /// The next piece's batch, or nil at the end of the file.
  package mutating func next() -> DeviceRowBatch? {
    guard !ended, nextRange < ranges.count else { return nil }
    if reads == nil {
      reads = PieceReads(path: path, ranges: ranges, assumeUTC: assumeUTC, readers: readers, state: JoinState(lineBase: headerLine))
    }
    guard let (batch, endsFile) = reads?.take(nextRange) else { return nil }
    nextRange += 1
    ended = endsFile
    if ended || nextRange == ranges.count { reads?.stop() }
    return batch
  }

  /// The pieces being read on `readers` threads of their own (not the shared pool, whose threads
  /// the caller may be waiting on), at most `2 × readers` ahead of the one taken: each is read,
  /// joined in file order (the little that depends on the pieces before, under the lock) and put
  /// in its file's form (lines, steps, rows grouped by device) on its thread, while the caller
  /// groups the one before.
  private final class PieceReads: @unchecked Sendable {
    let path: String
    let ranges: [Range<Int>]
    let assumeUTC: Bool
    let readers: Int
    private let condition = NSCondition()
    private var results: [Int: (DeviceRowBatch, Bool)] = [:]
    private var started = 0
    private var taken = 0
    private var stopped = false
    /// The pieces joined so far, and the state after them.
    private var joined = 0
    private var state: JoinState

    init(path: String, ranges: [Range<Int>], assumeUTC: Bool, readers: Int, state: JoinState) {
      self.path = path
      self.ranges = ranges
      self.assumeUTC = assumeUTC
      self.readers = readers
      self.state = state
      for _ in 0..<min(readers, ranges.count) {
        let thread = Thread { [self] in work() }
        thread.stackSize = 1 << 20
        thread.start()
      }
    }

    /// Piece `k`'s batch and whether it ends the file, once ready (pieces are taken in order).
    func take(_ k: Int) -> (DeviceRowBatch, Bool) {
      condition.lock()
      defer { condition.unlock() }
      while results[k] == nil { condition.wait() }
      taken = k + 1
      condition.broadcast()
      return results.removeValue(forKey: k) ?? (DeviceRowBatch(), true)
    }

    /// No more pieces are wanted: the threads end once their piece is read.
    func stop() {
      condition.lock()
      stopped = true
      condition.broadcast()
      condition.unlock()
    }

    /// A reading thread: the next piece not started, while there is room for it.
    private func work() {
      while true {
        condition.lock()
        while !stopped && started < ranges.count && started >= taken + 2 * readers { condition.wait() }
        guard !stopped, started < ranges.count else {
          condition.unlock()
          return
        }
        let k = started
        started += 1
        condition.unlock()
        let piece = DeviceRowPieces.read(path: path, range: ranges[k], assumeUTC: assumeUTC)
        condition.lock()
        while joined < k { condition.wait() }
        let plan = DeviceRowPieces.plan(piece, &state, path: path)
        joined += 1
        condition.broadcast()
        condition.unlock()
        let batch = DeviceRowPieces.apply(plan, to: piece)
        condition.lock()
        results[k] = (batch, piece.endsFile)
        condition.broadcast()
        condition.unlock()
      }
    }
  }

  /// Reads one piece: its steps as ``DeviceRowReader`` would make them, with lines counted from
  /// the piece's start and no warning about units (the piece notes them).
  static func read(path: String, range: Range<Int>, assumeUTC: Bool) -> Piece {
    var piece = Piece()
    var csv: FixCSVReader
    do { csv = try FixCSVReader(path: path, assumeUTC: assumeUTC, range: range) } catch {
      piece.batch.steps = [.error(error)]
      piece.endsFile = true
      return piece
    }
    var changes = 0
    let namesCells = csv.namesCells
    while true {
      let result: Result<LocationFix?, TrackIOError>
      do { result = .success(try csv.next()) } catch { result = .failure(error) }
      if piece.firstUnit == nil || piece.changedUnit == nil {
        let units = csv.timeUnits
        // A warning may go here: the row starts a step of its own.
        if piece.firstUnit == nil, let note = units.first {
          piece.firstUnit = (note, piece.batch.steps.count)
          piece.batch.breaksRun = true
        }
        if piece.changedUnit == nil, let note = units.changed {
          piece.changedUnit = (note, piece.batch.steps.count)
          piece.batch.breaksRun = true
        }
      }
      for w in csv.takeWarnings() { piece.batch.steps.append(.warning(w)) }
      if csv.deviceChanges != changes, let device = csv.device {
        changes = csv.deviceChanges
        if piece.firstDeviceBytes == nil {
          piece.firstDeviceBytes = csv.deviceFieldBytes
          piece.firstDeviceStep = piece.batch.steps.count
        }
        piece.batch.steps.append(.device(device, line: csv.lineNumber, id: 0))
      }
      switch result {
      case .success(let fix?): piece.batch.add(fix, line: csv.lineNumber, cell: namesCells ? .some(csv.reportedCell) : nil)
      case .success(nil):
        piece.lineCount = csv.lineNumber
        piece.lastDeviceBytes = changes > 0 ? csv.deviceFieldBytes : nil
        return piece
      case .failure(let error):
        piece.batch.steps.append(.error(error))
        if error.line == 0 {
          piece.endsFile = true
          return piece
        }
      }
    }
  }

  /// How `piece` joins the pieces before it (whose state is `state`, then its own): where its
  /// lines start, the warnings about units one reader of the whole file would make in it, and
  /// whether its first device step only goes on with the device before the cut.
  static func plan(_ piece: Piece, _ state: inout JoinState, path: String) -> JoinPlan {
    var plan = JoinPlan(base: state.lineBase)
    state.lineBase += piece.lineCount
    func warning(_ note: FixCSVReader.TimeUnitNote, mixedWith: Int8?) -> TrackIOError? {
      ByteNumbers.epochUnitWarning(note.text, column: "time", unit: note.unit, mixedWith: mixedWith).map {
        TrackIOError(path: path, line: note.line + plan.base, column: note.column, message: $0)
      }
    }
    if let (note, step) = piece.firstUnit {
      if state.fileUnit == nil {
        state.fileUnit = note
        if let w = warning(note, mixedWith: nil) { plan.unitWarnings.append((step, w)) }
      } else if let file = state.fileUnit, !state.unitsMixed, note.unit != file.unit {
        state.unitsMixed = true
        if let w = warning(note, mixedWith: file.unit) { plan.unitWarnings.append((step, w)) }
      }
    }
    if let (note, step) = piece.changedUnit, let file = state.fileUnit, !state.unitsMixed, note.unit != file.unit {
      state.unitsMixed = true
      if let w = warning(note, mixedWith: file.unit) { plan.unitWarnings.append((step, w)) }
    }
    if let first = piece.firstDeviceStep, let bytes = piece.firstDeviceBytes, bytes == state.lastDeviceBytes { plan.skip = first }
    if let bytes = piece.lastDeviceBytes { state.lastDeviceBytes = bytes }
    return plan
  }

  /// The piece's batch as one reader of the whole file would have made it: lines as in the file,
  /// the unit warnings in their places, the device step that only goes on left out, and the rows
  /// grouped by device.
  static func apply(_ plan: JoinPlan, to piece: Piece) -> DeviceRowBatch {
    let base = plan.base
    var batch = DeviceRowBatch()
    batch.rows = piece.batch.rows
    if base != 0 {
      let shift = Int32(truncatingIfNeeded: base)
      batch.rows.lines.withUnsafeMutableBufferPointer { lines in
        for i in lines.indices { lines[i] &+= shift }
      }
    }
    batch.steps.reserveCapacity(piece.batch.steps.count + plan.unitWarnings.count)
    var nextWarning = 0
    for (k, step) in piece.batch.steps.enumerated() {
      while nextWarning < plan.unitWarnings.count && plan.unitWarnings[nextWarning].step == k {
        batch.steps.append(.warning(plan.unitWarnings[nextWarning].warning))
        nextWarning += 1
      }
      if k == plan.skip { continue }
      switch step {
      case .device(let name, let line, let id): batch.steps.append(.device(name, line: line + base, id: id))
      case .rows: batch.steps.append(step)
      case .error(let e): batch.steps.append(.error(shifted(e, by: base)))
      case .warning(let w): batch.steps.append(.warning(shifted(w, by: base)))
      }
    }
    for (_, w) in plan.unitWarnings[nextWarning...] { batch.steps.append(.warning(w)) }
    batch.groupByDevice()
    return batch
  }

  static func shifted(_ e: TrackIOError, by base: Int) -> TrackIOError {
    e.line == 0 ? e : TrackIOError(path: e.path, line: e.line + base, column: e.column, message: e.message)
  }
}
