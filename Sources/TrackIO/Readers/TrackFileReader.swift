public import Geodesy
import Foundation

/// Reads the fixes of a track file, whatever its format: GPX (extension `.gpx`, or content that
/// starts with `<`) or CSV (see ``FixCSVReader``).
///
/// From GPX it returns the track points that have a time, in document order, and counts those
/// without one (they cannot be placed on a timeline); routes and waypoints are not fixes.
public struct TrackFileReader {
  // Exactly one is set. Optionals rather than an enum with payloads, so that reading mutates the
  // reader in place instead of copying it (and its buffers) out and back on every fix.
  private var csv: FixCSVReader?
  private var gpx: GPXReader?
  /// The line of the fix last returned (for error messages about it).
  public private(set) var lineNumber = 0
  /// GPX track points skipped because they have no time.
  public private(set) var pointsWithoutTime = 0

  /// Opens `path` (`-` for standard input, read as CSV unless it starts with `<`).
  public init(path: String) throws(TrackIOError) {
    if try Self.readsAsGPX(path: path) {
      gpx = try GPXReader(path: path)
    } else {
      csv = try FixCSVReader(path: path)
    }
  }

  /// The path as given (or `<stdin>`).
  public var path: String { gpx?.path ?? csv?.path ?? "" }

  /// Whether the file is GPX.
  public var isGPX: Bool { gpx != nil }

  /// The next fix, or nil at the end of the file.
  public mutating func next() throws(TrackIOError) -> LocationFix? {
    if csv != nil {
      let fix = try csv?.next()
      lineNumber = csv?.lineNumber ?? 0
      return fix ?? nil
    }
    while let point = try gpx?.next() {
      guard point.kind == .track else { continue }
      guard let fix = point.fix else {
        pointsWithoutTime += 1
        continue
      }
      lineNumber = point.line
      return fix
    }
    return nil
  }

  /// Whether the file at `path` is read as GPX: its name ends in `.gpx` or its first character
  /// (after a byte-order mark and spaces) is '<'. Standard input (`-`) is never probed.
  public static func readsAsGPX(path: String) throws(TrackIOError) -> Bool {
    if path.lowercased().hasSuffix(".gpx") { return true }
    return try startsWithAngleBracket(path)
  }

  /// Whether the file's first character after a byte-order mark and spaces is '<'.
  private static func startsWithAngleBracket(_ path: String) throws(TrackIOError) -> Bool {
    guard path != "-" else { return false }
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = Array((try? handle.read(upToCount: 256)) ?? Data())
    let body = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
    return body.first { !MarkupScanner.isSpace($0) } == UInt8(ascii: "<")
  }
}
