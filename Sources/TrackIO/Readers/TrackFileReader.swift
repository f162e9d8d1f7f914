public import Geodesy
import Foundation

/// Reads the fixes of a track file, whatever its format: GPX (extension `.gpx`, or content that
/// starts with `<`) or CSV (see ``FixCSVReader``).
///
/// From GPX it returns the track points that have a time, in document order, and counts those
/// without one (they cannot be placed on a timeline); routes and waypoints are not fixes.
public struct TrackFileReader {
  private enum Source {
    case csv(FixCSVReader)
    case gpx(GPXReader)
  }

  private var source: Source
  /// The line of the fix last returned (for error messages about it).
  public private(set) var lineNumber = 0
  /// GPX track points skipped because they have no time.
  public private(set) var pointsWithoutTime = 0

  /// Opens `path` (`-` for standard input, read as CSV unless it starts with `<`).
  public init(path: String) throws(TrackIOError) {
    var looksLikeGPX = path.lowercased().hasSuffix(".gpx")
    if !looksLikeGPX { looksLikeGPX = try Self.startsWithAngleBracket(path) }
    if looksLikeGPX {
      source = .gpx(try GPXReader(path: path))
    } else {
      source = .csv(try FixCSVReader(path: path))
    }
  }

  /// The path as given (or `<stdin>`).
  public var path: String {
    switch source {
    case .csv(let r): return r.path
    case .gpx(let r): return r.path
    }
  }

  /// Whether the file is GPX.
  public var isGPX: Bool {
    if case .gpx = source { return true }
    return false
  }

  /// The next fix, or nil at the end of the file.
  public mutating func next() throws(TrackIOError) -> LocationFix? {
    switch source {
    case .csv(var reader):
      defer { source = .csv(reader) }
      let fix = try reader.next()
      lineNumber = reader.lineNumber
      return fix
    case .gpx(var reader):
      defer { source = .gpx(reader) }
      while let point = try reader.next() {
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
