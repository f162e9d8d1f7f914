public import CellHandoff
public import Geodesy
import Foundation

/// Reads the fixes of a track file, whatever its format: GPX (extension `.gpx`, or content that
/// starts with `<`), JSON Lines (extension `.jsonl`/`.ndjson`, or content that starts with `{`;
/// see ``FixJSONLinesReader``) or CSV (see ``FixCSVReader``).
///
/// From GPX it returns the track points that have a time, in document order, and counts those
/// without one (they cannot be placed on a timeline); routes and waypoints are not fixes.
public struct TrackFileReader {
  // Exactly one is set. Optionals rather than an enum with payloads, so that reading mutates the
  // reader in place instead of copying it (and its buffers) out and back on every fix.
  private var csv: FixCSVReader?
  private var gpx: GPXReader?
  private var jsonLines: FixJSONLinesReader?
  private var geoJSON: GeoJSONTrackReader?
  private var history: LocationHistoryReader?
  /// The line of the fix last returned (for error messages about it).
  public private(set) var lineNumber = 0
  /// GPX track points skipped because they have no time.
  public private(set) var pointsWithoutTime = 0

  /// Opens `path` (`-` for standard input, its format sniffed from its first bytes). `lenient`
  /// recovers from damage in a GPX file, with warnings (see ``GPXReader``); CSV and JSON Lines
  /// are always strict.
  public init(path: String, lenient: Bool = false) throws(TrackIOError) {
    try self.init(path: path, options: Options(lenient: lenient))
  }

  /// How a track file is read.
  public struct Options: Sendable {
    /// Recover from damage in a GPX file, with warnings (see ``GPXReader``).
    public var lenient: Bool
    /// Read ISO 8601 times without a zone in CSV and JSON Lines as UTC; otherwise they are errors.
    /// (GPX times are UTC by the GPX schema, with or without the `Z`.)
    public var assumeUTC: Bool

    public init(lenient: Bool = false, assumeUTC: Bool = false) {
      self.lenient = lenient
      self.assumeUTC = assumeUTC
    }
  }

  /// Opens `path` (`-` for standard input) with `options`.
  public init(path: String, options: Options) throws(TrackIOError) {
    switch try Self.format(path: path) {
    case .gpx: gpx = try GPXReader(path: path, lenient: options.lenient)
    case .jsonLines: jsonLines = try FixJSONLinesReader(path: path, assumeUTC: options.assumeUTC)
    case .csv: csv = try FixCSVReader(path: path, assumeUTC: options.assumeUTC)
    case .geoJSON: geoJSON = try GeoJSONTrackReader(path: path, assumeUTC: options.assumeUTC)
    case .locationHistory: history = try LocationHistoryReader(path: path)
    }
  }

  /// The format being read.
  public var format: Format {
    gpx != nil ? .gpx : csv != nil ? .csv : jsonLines != nil ? .jsonLines : geoJSON != nil ? .geoJSON : .locationHistory
  }

  /// The path as given (or `<stdin>`).
  public var path: String { gpx?.path ?? csv?.path ?? jsonLines?.path ?? geoJSON?.path ?? history?.path ?? "" }

  /// Bytes read from the file so far (it is read ahead in chunks), for progress reports.
  public var bytesRead: Int { gpx?.bytesRead ?? csv?.bytesRead ?? jsonLines?.bytesRead ?? 0 }

  /// The warnings since the last call: recoveries (lenient GPX; see ``GPXReader/takeWarnings()``)
  /// and lines read that look wrong (a CSV file that may be cut short, numeric times in
  /// milliseconds or in two units).
  public mutating func takeWarnings() -> [TrackIOError] {
    gpx?.takeWarnings() ?? csv?.takeWarnings() ?? jsonLines?.takeWarnings() ?? []
  }

  /// Recoveries made so far (lenient GPX only).
  public var warningCount: Int { gpx?.warningCount ?? 0 }

  /// The serving cell named by the fix last returned (CSV files with a `cell` column, drive logs).
  public var reportedCell: CellIdentity? { csv?.reportedCell }

  /// Whether the file names serving cells.
  public var namesCells: Bool { csv?.namesCells ?? false }

  /// Whether the file holds the tracks of many devices: a CSV `device` column, or JSON Lines
  /// whose lines read so far name a `device` (known once the first fix is read).
  public var namesDevices: Bool { csv?.namesDevices ?? jsonLines?.namesDevices ?? false }

  /// The device of the line last read, when the file names devices; set before the line's other
  /// fields are checked, so that an error in them belongs to the right device.
  public var device: String? { csv?.device ?? jsonLines?.device }

  /// How many times the device changed from one line to the next: a change of this count is a
  /// new device.
  public var deviceChanges: Int { csv?.deviceChanges ?? jsonLines?.deviceChanges ?? 0 }

  /// The offset from UTC (seconds, east positive) of the first time read that names its zone,
  /// in a CSV or JSON Lines file (`+09:00`; `Z` is 0); nil before one, for epoch numbers, and for
  /// GPX, whose times are UTC by its schema.
  public var utcOffset: Int? { csv?.utcOffset ?? jsonLines?.utcOffset }

  /// Whether the file is GPX.
  public var isGPX: Bool { gpx != nil }

  /// The next fix, or nil at the end of the file.
  public mutating func next() throws(TrackIOError) -> LocationFix? {
    if geoJSON != nil {
      let fix = geoJSON?.next()
      lineNumber = geoJSON?.lineNumber ?? 0
      return fix ?? nil
    }
    if history != nil {
      let fix = history?.next()
      lineNumber = history?.lineNumber ?? 0
      return fix ?? nil
    }
    if jsonLines != nil {
      defer { lineNumber = jsonLines?.lineNumber ?? 0 }
      let fix = try jsonLines?.next()
      return fix ?? nil
    }
    if csv != nil {
      // The line of a bad row too: the device it names is laid at that line.
      defer { lineNumber = csv?.lineNumber ?? 0 }
      let fix = try csv?.next()
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

  /// Track file formats.
  public enum Format: String, Sendable {
    case gpx = "GPX"
    case jsonLines = "JSON Lines"
    case csv = "CSV"
    case geoJSON = "GeoJSON"
    case locationHistory = "location history"
  }

  /// How the file at `path` is read: by its extension (`.gpx`, `.jsonl`, `.ndjson`, `.csv`,
  /// `.geojson`; a compressed file's name without `.gz`), else by its content (`.json` too): after
  /// a byte-order mark and spaces, `<` is GPX, `{` is a location history when its first 4 KB
  /// name `"latitudeE7"`, `"semanticSegments"`, `"rawSignals"` or `"timelinePath"`, GeoJSON when they name
  /// `"coordinates"`, a `"Feature"`, a `"FeatureCollection"` or a `"LineString"` and JSON Lines
  /// otherwise, anything else CSV.
  /// Standard input (`-`) is sniffed the same way; the bytes read to sniff it are given back to
  /// its reader.
  public static func format(path: String) throws(TrackIOError) -> Format {
    // A compressed file is named for what it holds: walk.gpx.gz.
    let lower = path.lowercased().hasSuffix(".gz") ? String(path.lowercased().dropLast(3)) : path.lowercased()
    if lower.hasSuffix(".gpx") { return .gpx }
    if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonLines }
    if lower.hasSuffix(".csv") { return .csv }
    if lower.hasSuffix(".geojson") { return .geoJSON }
    let head = path == "-" ? StandardInputPushback.head() : Self.head(path)
    switch StandardInputPushback.firstNonSpace(head) {
    case UInt8(ascii: "<"): return .gpx
    case UInt8(ascii: "{"):
      if Self.names(["\"latitudeE7\"", "\"semanticSegments\"", "\"rawSignals\"", "\"timelinePath\""], in: head) { return .locationHistory }
      return Self.namesGeoJSON(head) ? .geoJSON : .jsonLines
    default: return .csv
    }
  }

  /// Whether a document's first bytes look like GeoJSON rather than a line of JSON Lines.
  static func namesGeoJSON(_ head: [UInt8]) -> Bool {
    names(["\"coordinates\"", "\"FeatureCollection\"", "\"Feature\"", "\"LineString\"", "\"MultiLineString\""], in: head)
  }

  /// Whether `head` holds any of `words`.
  static func names(_ words: [String], in head: [UInt8]) -> Bool {
    words.contains { word in
      let w = Array(word.utf8)
      guard head.count >= w.count else { return false }
      return (0...(head.count - w.count)).contains { k in head[k..<(k + w.count)].elementsEqual(w) }
    }
  }

  /// Whether the file at `path` is read as GPX (see ``format(path:)``).
  public static func readsAsGPX(path: String) throws(TrackIOError) -> Bool {
    try format(path: path) == .gpx
  }

  /// The file's first byte after a byte-order mark and spaces, if it is a regular file that can be
  /// read (a FIFO's bytes would be lost to the sniffing).
  static func firstCharacter(_ path: String) -> UInt8? { StandardInputPushback.firstNonSpace(head(path)) }

  /// Whether the regular file at `path` is gzip-compressed (standard input or a FIFO: false,
  /// without opening it: its bytes are not looked at twice, and a FIFO opened again would wait
  /// for a writer).
  public static func isCompressed(_ path: String) -> Bool {
    guard path != "-", InputFile.isRegularFile(path: path), let input = try? InputFile(path: path) else { return false }
    return input.isCompressed
  }

  /// The first 4 KB of a file (inflated, when compressed). A FIFO's are read and kept for the
  /// reader that opens it next (``SniffedInputs``); standard input has its own (`-`: empty here).
  static func head(_ path: String) -> [UInt8] {
    guard path != "-" else { return [] }
    guard InputFile.isRegularFile(path: path) else { return SniffedInputs.head(path) }
    guard let input = try? InputFile(path: path) else { return [] }
    var head: [UInt8] = []
    while head.count < 4_096 {
      guard let n = try? input.append(upTo: 4_096 - head.count, to: &head), n > 0 else { break }
    }
    return head
  }
}
