import CellHandoff
import Foundation
import Geodesy
import SeededRandom
import TrackIO

/// One device's track in a many-device run, as the run hands it to a worker.
enum DeviceTrack: Sendable {
  /// A whole file is the device's track; the worker reads it.
  case file(device: String, path: String)
  /// The rows of one device in a file with a device column, read already: the fixes, the line
  /// each came from, and the serving cell each names when the file names cells (`namesCells`).
  /// Held as ranges of the batches they were read in, joined by the worker (``DeviceRowSegments/joined()``),
  /// so that a file's rows are not held twice while its devices are handed on.
  case rows(device: String, path: String, rows: DeviceRowSegments, namesCells: Bool)
  /// A device whose track cannot be used.
  case failed(device: String, error: TrackIOError)

  var device: String {
    switch self {
    case .file(let device, _), .rows(let device, _, _, _), .failed(let device, _): return device
    }
  }

}

/// The tracks of a many-device run, one device at a time, in input order: each file in the order
/// given (a folder's track files sorted by name) is one device named after the file, except a
/// CSV or JSON Lines file with a device column, whose rows are read here and cut into one track
/// per device, the devices in the order of their first rows.
///
/// A device's rows may be together (as the Dask integration and `sort -s -t, -k1,1` leave them)
/// or interleaved with other devices' rows (a fleet's log in time order). Finished devices are
/// held back until ``holdLimit`` fixes are held: a device whose rows come back while its rows are
/// held is a file of interleaved devices, and the whole file is grouped by device in memory before
/// any device is passed on. Once that many fixes have passed without a device coming back, each
/// device is passed on when the next begins, and a device that comes back after that, or a name
/// used twice, is reported as failed at the line where it comes back. A bad line fails its device
/// (the rest of its rows are skipped) and reading goes on with the other devices.
///
/// The file is read as steps (``DeviceRowStep``): by one reader, or in pieces on ``readers``
/// threads (``DeviceRowPieces``), which make the same steps. Once the file is known to be
/// interleaved, a batch is taken whole, by device (``takeWhole(_:)``); before, step by step.
struct DeviceTrackSource: IteratorProtocol {
  /// A file with a device column, being read: by one reader, or in pieces on every core once
  /// ``readers`` allows and the file can be (``DeviceRowPieces/readable(path:)``). A class, so that
  /// its readers' buffers are read in place, never copied at a step.
  private final class OpenFile {
    var reader: DeviceRowReader?
    var pieces: DeviceRowPieces?
    var path: String
    var namesCells: Bool
    var started = false

    init(reader: DeviceRowReader, path: String, namesCells: Bool) {
      self.reader = reader
      self.path = path
      self.namesCells = namesCells
    }

    /// The batch being acted on (the how-manyth), and its next step.
    var batch = DeviceRowBatch()
    var batchNumber = -1
    var nextStep = 0
    /// The held group of each device id of the batch (-1: not looked up yet).
    var groupOfID: [Int] = []

    /// The next step, and the batch whose rows it names.
    func step(readers: Int, assumeUTC: Bool) -> DeviceRowStep? {
      while nextStep == batch.steps.count {
        guard advance(readers: readers, assumeUTC: assumeUTC) else { return nil }
      }
      defer { nextStep += 1 }
      return batch.steps[nextStep]
    }

    /// Moves to the next batch; false at the end of the file.
    func advance(readers: Int, assumeUTC: Bool) -> Bool {
      guard let b = next(readers: readers, assumeUTC: assumeUTC) else { return false }
      batch = b
      batchNumber += 1
      nextStep = 0
      groupOfID = Array(repeating: -1, count: b.devices.count)
      return true
    }

    /// Marks the batch's steps all acted on.
    func finishBatch() { nextStep = batch.steps.count }

    private func next(readers: Int, assumeUTC: Bool) -> DeviceRowBatch? {
      if !started {
        started = true
        if readers > 1, DeviceRowPieces.readable(path: path),
          let p = try? DeviceRowPieces(path: path, assumeUTC: assumeUTC, readers: readers)
        {
          pieces = p
          reader = nil
        }
      }
      if pieces != nil { return pieces?.next() }
      return reader?.next()
    }
  }

  /// One device's rows in the open file, not yet passed on.
  private struct Group {
    var device: String
    var rows = DeviceRowSegments()
    /// Why the device is left out; its rows are dropped and the rest skipped.
    var failure: TrackIOError?
  }

  /// Where the rows of the open file go.
  private enum Target {
    /// No device yet.
    case none
    /// The held group at this index.
    case group(Int)
    /// A device that cannot take rows (it came back after being passed on): skipped.
    case skipping
  }

  /// How many fixes of a file with a device column are held before its devices are passed on as
  /// they end: enough for the first round of a large fleet's log in time order (262,144 fixes,
  /// about 11 MB).
  static let defaultHoldLimit = 1 << 18

  private var paths: [String]
  private var nextPath = 0
  private let options: TrackFileReader.Options
  private let holdLimit: Int
  private var open: OpenFile?
  private var ready: [DeviceTrack] = []
  private var readyStart = 0
  /// Every device named so far, by a file or a device column.
  private var seen: Set<String> = []
  // The open file's devices not yet passed on, in the order of their first rows.
  private var groups: [Group] = []
  private var groupIndex: [String: Int] = [:]
  private var heldFixes = 0
  /// Whether a device's rows came back: the file is grouped whole before anything is passed on.
  private var interleaved = false
  /// Whether devices are passed on as they end (more than `holdLimit` fixes held, none came back).
  private var passingOn = false
  private var target = Target.none
  /// Devices reported for coming back after they were passed on (once each).
  private var cameBack: Set<String> = []
  private var lastErrorLine = -1
  /// Warnings about the rows read, for the next track handed on (``takeWarnings()``).
  private var warnings: [TrackIOError] = []
  /// How many times held devices were passed on (a group index means nothing across one).
  private var passOns = 0
  /// How many threads read a file with a device column (1: one reader, as it comes).
  var readers = 1

  /// - Parameters:
  ///   - paths: the track files, folders expanded (``expand(_:)``).
  ///   - opened: the first file already opened and its first fix read (standard input cannot be
  ///     opened twice).
  ///   - holdLimit: how many fixes of a file with a device column are held before its devices are
  ///     passed on as they end (``defaultHoldLimit``).
  init(
    paths: [String], options: TrackFileReader.Options, opened: (TrackFileReader, Result<LocationFix?, TrackIOError>)? = nil,
    holdLimit: Int = defaultHoldLimit
  ) {
    self.paths = paths
    self.options = options
    self.holdLimit = holdLimit
    if let opened {
      open = OpenFile(reader: DeviceRowReader(reader: opened.0, pending: opened.1), path: opened.0.path, namesCells: opened.0.namesCells)
      nextPath = 1
    }
  }

  mutating func next() -> DeviceTrack? {
    while readyStart == ready.count {
      ready.removeAll(keepingCapacity: true)
      readyStart = 0
      if open != nil {
        readRow()
      } else if nextPath < paths.count {
        openNext()
      } else {
        return nil
      }
    }
    defer { readyStart += 1 }
    return ready[readyStart]
  }

  private mutating func openNext() {
    let path = paths[nextPath]
    nextPath += 1
    let device = Self.deviceName(path)
    var reader: TrackFileReader
    do { reader = try TrackFileReader(path: path, options: options) } catch {
      add(.failed(device: device, error: error))
      return
    }
    // JSON Lines say whether they name devices only in their lines: read the first.
    let first: Result<LocationFix?, TrackIOError>
    do { first = .success(try reader.next()) } catch { first = .failure(error) }
    if reader.namesDevices {
      open = OpenFile(reader: DeviceRowReader(reader: reader, pending: first), path: reader.path, namesCells: reader.namesCells)
    } else {
      add(.file(device: device, path: path))
    }
  }

  /// The warnings about rows read since the last call: the file's, not one device's (times in
  /// two units, a last line cut short).
  mutating func takeWarnings() -> [TrackIOError] {
    defer { warnings = [] }
    return warnings
  }

  /// Acts on the next step of the open file with a device column (read in place: the open file
  /// holds its reader's buffers, not to be copied at every step).
  private mutating func readRow() {
    guard let file = open else { return }
    let (path, namesCells) = (file.path, file.namesCells)
    if file.nextStep == file.batch.steps.count {
      if !file.advance(readers: readers, assumeUTC: options.assumeUTC) {
        endFile(path: path, namesCells: namesCells)
        return
      }
      if takeWhole(file) { return }
    }
    let step = file.step(readers: readers, assumeUTC: options.assumeUTC)
    var ended = step == nil
    switch step {
    case .device(let device, let line, let id)?:
      let known = file.groupOfID[Int(id)]
      if known >= 0 {
        // A held device whose rows come back (as `begin` finds it, without its name).
        interleaved = true
        target = .group(known)
      } else {
        let before = passOns
        begin(device, at: line, path: path, namesCells: namesCells)
        // Groups passed on: the ids' groups are no more.
        if passOns != before { file.groupOfID = Array(repeating: -1, count: file.groupOfID.count) }
        if case .group(let index) = target { file.groupOfID[Int(id)] = index }
      }
    case .rows(let range)?:
      if case .group(let index) = target, groups[index].failure == nil {
        groups[index].rows.append(range, of: file.batch.rows, batch: file.batchNumber)
        heldFixes += range.count
      }
    case .error(let error)?:
      fail(error)
      // A read that makes no progress (a failing disk) ends the file rather than loop.
      if error.line <= lastErrorLine || error.line == 0 { ended = true }
      lastErrorLine = error.line
    case .warning(let warning)?:
      warnings.append(warning)
    case nil:
      break
    }
    guard ended else { return }
    endFile(path: path, namesCells: namesCells)
  }

  /// Ends the open file: its held devices passed on.
  private mutating func endFile(path: String, namesCells: Bool) {
    open = nil
    passOn(namesCells: namesCells, path: path)
    target = .none
    lastErrorLine = -1
    interleaved = false
    passingOn = false
  }

  /// Acts on a whole batch at once, by device rather than step by step, where that comes to the
  /// same: the file is known to be interleaved (every device is held to its end, so the order of
  /// the devices' steps no longer matters), no device of the batch comes back after being passed
  /// on, and no read failed in it. Returns whether it did.
  private mutating func takeWhole(_ file: OpenFile) -> Bool {
    let batch = file.batch
    guard interleaved, !passingOn, !batch.readFailed else { return false }
    if case .none = target, batch.devices.first?.firstError != nil { return false }
    for d in batch.devices.dropFirst() where groupIndex[d.name ?? ""] == nil && seen.contains(d.name ?? "") { return false }
    // Id 0: rows and errors of the device before the batch.
    var groupOf = [Int](repeating: -1, count: batch.devices.count)
    if case .group(let index) = target { groupOf[0] = index }
    for id in batch.devices.indices.dropFirst() {
      let d = batch.devices[id]
      guard let name = d.name else { continue }
      if let index = groupIndex[name] {
        groupOf[id] = index
      } else {
        seen.insert(name)
        groupIndex[name] = groups.count
        groupOf[id] = groups.count
        groups.append(Group(device: name))
      }
    }
    for id in batch.devices.indices {
      let d = batch.devices[id]
      let index = groupOf[id]
      // Rows of a device skipped (it came back after being passed on).
      if index < 0 { continue }
      guard groups[index].failure == nil else { continue }
      if let error = d.firstError {
        fail(at: index, error)
      } else if !d.rows.isEmpty {
        groups[index].rows.append(d.rows, of: batch.rows, batch: file.batchNumber)
        heldFixes += d.rows.count
      }
    }
    if batch.lastDeviceID != 0 { target = .group(groupOf[Int(batch.lastDeviceID)]) }
    for step in batch.steps.reversed() {
      if case .error(let e) = step {
        lastErrorLine = e.line
        break
      }
    }
    warnings += batch.warnings
    file.finishBatch()
    return true
  }

  /// Directs the rows from `line` on to `device`.
  private mutating func begin(_ device: String, at line: Int, path: String, namesCells: Bool) {
    if let index = groupIndex[device] {
      // Rows of a held device come back: the devices are interleaved.
      interleaved = true
      target = .group(index)
      return
    }
    if passingOn || (!interleaved && heldFixes > holdLimit) {
      passOn(namesCells: namesCells, path: path)
      passingOn = true
    }
    if seen.insert(device).inserted {
      groupIndex[device] = groups.count
      target = .group(groups.count)
      groups.append(Group(device: device))
      return
    }
    target = .skipping
    guard cameBack.insert(device).inserted else { return }
    add(
      .failed(
        device: device,
        error: TrackIOError(
          path: path, line: line, column: 1,
          message: "device \"\(device)\" comes again after its rows were passed on (after \(holdLimit) fixes without a device "
            + "coming back), or is also a file's name: group a device's rows, in time order (sort by device, keeping each device's order)")))
  }

  /// Fails the device of the current row (once): its rows read so far are dropped and the rest
  /// skipped.
  private mutating func fail(_ error: TrackIOError) {
    switch target {
    case .group(let index):
      fail(at: index, error)
    case .skipping:
      return
    case .none:
      add(.failed(device: Self.deviceName(error.path), error: error))
    }
  }

  /// Fails held group `index` (once): its rows read so far are dropped and the rest skipped.
  private mutating func fail(at index: Int, _ error: TrackIOError) {
    guard groups[index].failure == nil else { return }
    heldFixes -= groups[index].rows.count
    groups[index].rows = DeviceRowSegments()
    groups[index].failure = error
  }

  /// Passes on the held devices, in the order of their first rows.
  private mutating func passOn(namesCells: Bool, path: String) {
    passOns += 1
    for group in groups {
      heldFixes -= group.rows.count
      if let failure = group.failure {
        add(.failed(device: group.device, error: failure))
      } else {
        add(.rows(device: group.device, path: path, rows: group.rows, namesCells: namesCells))
      }
    }
    groups = []
    groupIndex = [:]
    target = .none
  }

  private mutating func add(_ track: DeviceTrack) {
    if case .file(let device, let path) = track, !seen.insert(device).inserted {
      ready.append(
        .failed(
          device: device,
          error: TrackIOError(path: path, line: 0, column: 0, message: "device \"\(device)\" is named twice (by another file or a device column)")))
      return
    }
    ready.append(track)
  }

  /// A device named after its file: the file name without its extension (`standard input` for `-`).
  static func deviceName(_ path: String) -> String {
    if path == "-" || path == "<stdin>" { return "stdin" }
    var name = path.split(separator: "/").last.map(String.init) ?? path
    if name.lowercased().hasSuffix(".gz") { name.removeLast(3) }
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
    return String(name[..<dot])
  }

  /// What the track arguments of `analyze` and `crossings` name: one device's track, opened with
  /// its first fix read (JSON Lines say whether they name devices only in their lines), or many
  /// devices.
  enum Tracks {
    case one(TrackFileReader, first: Result<LocationFix?, TrackIOError>)
    case many(DeviceTrackSource)
  }

  /// Opens the tracks given: several files, a folder, or a file with a device column are many
  /// devices; anything else is one.
  /// - Throws: ``TrackIOError`` for a folder without tracks or a file that cannot be opened.
  static func open(_ arguments: [String], options: TrackFileReader.Options) throws(TrackIOError) -> Tracks {
    let (paths, hadFolder) = try expand(arguments)
    if paths.count > 1 || hadFolder { return .many(DeviceTrackSource(paths: paths, options: options)) }
    var reader = try TrackFileReader(path: paths[0], options: options)
    let first: Result<LocationFix?, TrackIOError>
    do { first = .success(try reader.next()) } catch { first = .failure(error) }
    guard reader.namesDevices else { return .one(reader, first: first) }
    return .many(DeviceTrackSource(paths: paths, options: options, opened: (reader, first)))
  }

  /// The extensions of track files taken from a folder without opening them.
  static let trackExtensions = ["gpx", "csv", "jsonl", "ndjson", "geojson"]

  /// The paths with each folder replaced by its track files, sorted by name: those with a track
  /// extension (``trackExtensions``, gzip-compressed too as `.gpx.gz`), and any other file that
  /// opens as a track, told by its content as a single file is (a `.json` location history, a
  /// `.txt` of CSV fixes). Hidden files are left out; every other file left out, and every
  /// subfolder (not read), is named in one warning on standard error with why.
  /// - Throws: ``TrackIOError`` for a folder that cannot be listed or holds no track file.
  static func expand(_ paths: [String]) throws(TrackIOError) -> (paths: [String], hadFolder: Bool) {
    var expanded: [String] = []
    var hadFolder = false
    for path in paths {
      var isDirectory: ObjCBool = false
      guard path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
        expanded.append(path)
        continue
      }
      hadFolder = true
      let names: [String]
      do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
        throw TrackIOError(path: path, line: 0, column: 0, message: "folder cannot be listed (permission?)")
      }
      let base = path.hasSuffix("/") ? path : path + "/"
      var tracks: [String] = []
      var skipped: [String] = []
      for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !name.hasPrefix(".") {
        let lower = name.lowercased()
        if trackExtensions.contains(where: { lower.hasSuffix("." + $0) || lower.hasSuffix("." + $0 + ".gz") }) {
          tracks.append(name)
          continue
        }
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: base + name, isDirectory: &isFolder)
        if isFolder.boolValue {
          skipped.append("\(name)/ (a folder: those inside a folder are not read)")
          continue
        }
        // Anything else is read as a single file would be: by its content.
        do throws(TrackIOError) {
          var reader = try TrackFileReader(path: base + name)
          _ = try reader.next()
          tracks.append(name)
        } catch {
          skipped.append("\(name) (\(error.message))")
        }
      }
      if !skipped.isEmpty {
        Diagnostics.error(
          "warning: \(path): left out \(skipped.count == 1 ? "1 entry" : "\(skipped.count) entries") that \(skipped.count == 1 ? "is" : "are") not a track: "
            + skipped.joined(separator: "; "))
      }
      guard !tracks.isEmpty else {
        throw TrackIOError(
          path: path, line: 0, column: 0,
          message: "folder holds no track file (GPX, CSV, JSON Lines, GeoJSON or location history, gzip-compressed or not)")
      }
      expanded += tracks.map { base + $0 }
    }
    return (expanded, hadFolder)
  }
}
