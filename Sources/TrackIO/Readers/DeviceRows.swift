public import CellHandoff
public import Geodesy

/// What reading a file with a device column finds, in file order: the device changing, runs of
/// good rows, bad rows and warnings. Whoever groups the rows by device acts on these steps alone,
/// so the file can be read by one reader (``DeviceRowReader``) or in pieces on every core
/// (``DeviceRowPieces``) with the same steps, and so the same grouping.
package enum DeviceRowStep: Sendable, Hashable {
  /// The rows from here on name `device` (the line that first does: `line`); `id` numbers the
  /// batch's devices (``DeviceRowBatch/groupByDevice()``), so that a grouper can find the device
  /// again without its name.
  case device(String, line: Int, id: Int32)
  /// Good rows of the current device, one after another: these of the batch's rows.
  case rows(Range<Int>)
  /// A bad row (its device, when it names one, came in a `device` step before it), or a read
  /// that failed (line 0). (Boxed, as the warnings: a step is as small as a device's.)
  indirect case error(TrackIOError)
  /// A row read that looks wrong.
  indirect case warning(TrackIOError)
}

/// Steps and the good rows they name (``DeviceRowStep/rows(_:)``), as a reader hands them on.
package struct DeviceRowBatch: Sendable, Hashable {
  package var rows = DeviceRows()
  package var steps: [DeviceRowStep] = []
  /// The batch by device (index: id; 0: the rows before the first `device` step), made by
  /// ``groupByDevice()``.
  package private(set) var devices: [DeviceSummary] = []
  /// The id of the last `device` step (0: none), its warnings in order, and whether a read failed
  /// in it (an error at line 0).
  package private(set) var lastDeviceID: Int32 = 0
  package private(set) var warnings: [TrackIOError] = []
  package private(set) var readFailed = false

  /// What the batch holds of one device: its name (nil for id 0, the rows before the first
  /// `device` step), its rows (one range, once grouped) and the first error laid at its door.
  package struct DeviceSummary: Sendable, Hashable {
    package var name: String?
    package var rows = 0..<0
    package var firstError: TrackIOError?
  }

  package init() {}

  /// Whether the next good row starts a `rows` step of its own (something goes between it and
  /// the rows before).
  var breaksRun = false

  /// Records a good row of the current device.
  mutating func add(_ fix: LocationFix, line: Int, cell: CellIdentity??) {
    let k = rows.fixes.count
    rows.fixes.append(fix)
    rows.lines.append(Int32(truncatingIfNeeded: line))
    if let cell { rows.cells.append(cell) }
    if breaksRun {
      breaksRun = false
      steps.append(.rows(k..<(k + 1)))
    } else if case .rows(let r)? = steps.last, r.upperBound == k {
      steps[steps.count - 1] = .rows(r.lowerBound..<(k + 1))
    } else {
      steps.append(.rows(k..<(k + 1)))
    }
  }

  /// Numbers the devices of the `device` steps (one id per name) and puts each device's rows
  /// together, in their order (a stable counting sort), so that the rows a grouper takes for one
  /// device are one range of the batch, however the devices' rows were interleaved.
  mutating func groupByDevice() {
    var ids: [String: Int32] = [:]
    var owner: [Int32] = []
    owner.reserveCapacity(steps.count)
    var current: Int32 = 0
    var counts: [Int] = [0]
    for k in steps.indices {
      switch steps[k] {
      case .device(let name, let line, _):
        if let id = ids[name] {
          current = id
        } else {
          current = Int32(counts.count)
          ids[name] = current
          counts.append(0)
        }
        steps[k] = .device(name, line: line, id: current)
      case .rows(let r):
        counts[Int(current)] += r.count
      default: break
      }
      owner.append(current)
    }
    lastDeviceID = current
    var start = [Int](repeating: 0, count: counts.count)
    for id in 1..<counts.count { start[id] = start[id - 1] + counts[id - 1] }
    devices = (0..<counts.count).map { DeviceSummary(rows: start[$0]..<(start[$0] + counts[$0])) }
    for k in steps.indices {
      switch steps[k] {
      case .device(let name, _, let id) where devices[Int(id)].name == nil:
        devices[Int(id)].name = name
      case .error(let e):
        if devices[Int(owner[k])].firstError == nil { devices[Int(owner[k])].firstError = e }
        if e.line == 0 { readFailed = true }
      case .warning(let w): warnings.append(w)
      default: break
      }
    }
    guard counts.count > 2 || (counts.count == 2 && counts[0] > 0) else { return }
    // Where each run of rows goes: its device's next free place.
    var moves: [(from: Range<Int>, to: Int)] = []
    var next = start
    for k in steps.indices {
      guard case .rows(let r) = steps[k] else { continue }
      let id = Int(owner[k])
      moves.append((r, next[id]))
      steps[k] = .rows(next[id]..<(next[id] + r.count))
      next[id] += r.count
    }
    rows = DeviceRows(
      fixes: Self.permuted(rows.fixes, moves), lines: Self.permuted(rows.lines, moves),
      cells: rows.cells.isEmpty ? [] : Self.permuted(rows.cells, moves))
  }

  /// `values` with each run `from` moved to start at `to` (the runs cover every value once).
  static func permuted<T>(_ values: [T], _ moves: [(from: Range<Int>, to: Int)]) -> [T] {
    [T](unsafeUninitializedCapacity: values.count) { out, count in
      values.withUnsafeBufferPointer { v in
        for m in moves {
          (out.baseAddress! + m.to).initialize(from: v.baseAddress! + m.from.lowerBound, count: m.from.count)
        }
      }
      count = values.count
    }
  }
}

/// Rows of one device as read: the fixes, the line of each, and the cell each names (when the
/// file names cells).
package struct DeviceRows: Sendable, Hashable {
  package var fixes: [LocationFix] = []
  package var lines: [Int32] = []
  package var cells: [CellIdentity?] = []

  package init(fixes: [LocationFix] = [], lines: [Int32] = [], cells: [CellIdentity?] = []) {
    self.fixes = fixes
    self.lines = lines
    self.cells = cells
  }

  package var isEmpty: Bool { fixes.isEmpty }

  /// Appends `range` of `other`'s rows.
  package mutating func append(_ range: Range<Int>, of other: DeviceRows) {
    fixes.append(contentsOf: other.fixes[range])
    lines.append(contentsOf: other.lines[range])
    if !other.cells.isEmpty { cells.append(contentsOf: other.cells[range]) }
  }
}

/// A device's rows as held by a grouper: ranges of the batches they were read in, joined only when
/// the device is handed on (a range of a batch that follows the one before is one segment).
package struct DeviceRowSegments: Sendable {
  private var segments: [(rows: DeviceRows, range: Range<Int>)] = []
  /// The batch the last segment is of.
  private var lastBatch = -1
  package private(set) var count = 0

  package init() {}

  package var isEmpty: Bool { count == 0 }

  /// Adds `range` of `rows` (the batch `batch` of the reader: a range continuing the last one
  /// of the same batch extends it).
  package mutating func append(_ range: Range<Int>, of rows: DeviceRows, batch: Int) {
    count += range.count
    if let last = segments.last, last.range.upperBound == range.lowerBound, lastBatch == batch {
      segments[segments.count - 1].range = last.range.lowerBound..<range.upperBound
      return
    }
    segments.append((rows, range))
    lastBatch = batch
  }

  /// The rows, joined.
  package func joined() -> DeviceRows {
    if segments.count == 1, let only = segments.first, only.range == 0..<only.rows.fixes.count { return only.rows }
    var out = DeviceRows()
    out.fixes.reserveCapacity(count)
    out.lines.reserveCapacity(count)
    let hasCells = segments.contains { !$0.rows.cells.isEmpty }
    if hasCells { out.cells.reserveCapacity(count) }
    for s in segments { out.append(s.range, of: s.rows) }
    return out
  }
}

/// The steps of a track file with a device column, read by one reader, row by row, handed on in
/// batches of at most ``batchLimit`` rows.
package struct DeviceRowReader {
  private var reader: TrackFileReader
  /// The first fix (or the error in its place), read before to learn whether the file names
  /// devices.
  private var pending: Result<LocationFix?, TrackIOError>?
  private var changes = 0
  private var ended = false
  static let batchLimit = 8_192

  package init(reader: TrackFileReader, pending: Result<LocationFix?, TrackIOError>?) {
    self.reader = reader
    self.pending = pending
  }

  /// The next batch, or nil at the end of the file (after an error the file cannot be read past,
  /// nil follows it).
  package mutating func next() -> DeviceRowBatch? {
    guard !ended else { return nil }
    var batch = DeviceRowBatch()
    let namesCells = reader.namesCells
    while !ended && batch.rows.fixes.count < Self.batchLimit && batch.steps.count < Self.batchLimit {
      let result: Result<LocationFix?, TrackIOError>
      if let p = pending {
        result = p
        pending = nil
      } else {
        do { result = .success(try reader.next()) } catch { result = .failure(error) }
      }
      for w in reader.takeWarnings() { batch.steps.append(.warning(w)) }
      if reader.deviceChanges != changes, let device = reader.device {
        changes = reader.deviceChanges
        batch.steps.append(.device(device, line: reader.lineNumber, id: 0))
      }
      switch result {
      case .success(let fix?): batch.add(fix, line: reader.lineNumber, cell: namesCells ? .some(reader.reportedCell) : nil)
      case .success(nil): ended = true
      case .failure(let error):
        batch.steps.append(.error(error))
        // A read that makes no progress (a failing disk) ends the file rather than loop.
        if error.line == 0 { ended = true }
      }
    }
    if batch.steps.isEmpty && ended { return nil }
    batch.groupByDevice()
    return batch
  }
}

