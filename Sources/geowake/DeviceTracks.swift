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
  /// each came from, and the serving cell each names when the file names cells.
  case rows(device: String, path: String, fixes: [LocationFix], lines: [Int32], cells: [CellIdentity?]?)
  /// A device whose track cannot be used.
  case failed(device: String, error: TrackIOError)

  var device: String {
    switch self {
    case .file(let device, _), .rows(let device, _, _, _, _), .failed(let device, _): return device
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
struct DeviceTrackSource: IteratorProtocol {
  /// A file with a device column, being read.
  private struct OpenFile {
    var reader: TrackFileReader
    /// The first fix (or the error in its place), read to learn whether the file names devices.
    var pending: Result<LocationFix?, TrackIOError>?
  }

  /// One device's rows in the open file, not yet passed on.
  private struct Group {
    var device: String
    var fixes: [LocationFix] = []
    var lines: [Int32] = []
    var cells: [CellIdentity?] = []
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
  private var changes = 0
  private var lastErrorLine = -1

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
      open = OpenFile(reader: opened.0, pending: opened.1)
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
      open = OpenFile(reader: reader, pending: first)
    } else {
      add(.file(device: device, path: path))
    }
  }

  /// Reads one row of the open file with a device column.
  private mutating func readRow() {
    guard var file = open else { return }
    var ended = false
    defer { open = ended ? nil : file }
    let result: Result<LocationFix?, TrackIOError>
    if let pending = file.pending {
      result = pending
      file.pending = nil
    } else {
      do { result = .success(try file.reader.next()) } catch { result = .failure(error) }
    }
    let namesCells = file.reader.namesCells
    if file.reader.deviceChanges != changes, let device = file.reader.device {
      changes = file.reader.deviceChanges
      begin(device, at: file.reader.lineNumber, path: file.reader.path, namesCells: namesCells)
    }
    switch result {
    case .success(let fix?):
      guard case .group(let index) = target, groups[index].failure == nil else { return }
      groups[index].fixes.append(fix)
      groups[index].lines.append(Int32(truncatingIfNeeded: file.reader.lineNumber))
      if namesCells { groups[index].cells.append(file.reader.reportedCell) }
      heldFixes += 1
    case .success(nil):
      ended = true
    case .failure(let error):
      fail(error)
      // A read that makes no progress (a failing disk) ends the file rather than loop.
      if error.line <= lastErrorLine || error.line == 0 { ended = true }
      lastErrorLine = error.line
    }
    if ended {
      passOn(namesCells: namesCells, path: file.reader.path)
      target = .none
      changes = 0
      lastErrorLine = -1
      interleaved = false
      passingOn = false
    }
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
      guard groups[index].failure == nil else { return }
      heldFixes -= groups[index].fixes.count
      groups[index].fixes = []
      groups[index].lines = []
      groups[index].cells = []
      groups[index].failure = error
    case .skipping:
      return
    case .none:
      add(.failed(device: Self.deviceName(error.path), error: error))
    }
  }

  /// Passes on the held devices, in the order of their first rows.
  private mutating func passOn(namesCells: Bool, path: String) {
    for group in groups {
      heldFixes -= group.fixes.count
      if let failure = group.failure {
        add(.failed(device: group.device, error: failure))
      } else {
        add(.rows(device: group.device, path: path, fixes: group.fixes, lines: group.lines, cells: namesCells ? group.cells : nil))
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
