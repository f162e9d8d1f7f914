public import CellHandoff
import Geodesy

/// Reads cells from the OpenCellID / Mozilla Location Service CSV format, streaming, validated
/// row by row.
///
/// The header names the columns, in any order: `radio`, `mcc`, `net`, `area`, `cell`, `lon`,
/// `lat`, `range` are required; `unit`, `samples`, `changeable`, `created`, `updated`,
/// `averageSignal` are read when present (other columns are ignored). Each row must have:
/// - `radio` GSM, UMTS, LTE, NR or CDMA (any case);
/// - `mcc` 0…999; `net` 0…32767 (an MNC is at most 999, a CDMA SID 32767); `area` 0…2³²−1;
///   `cell` 0…2⁴⁰ (NR cell identities reach 2³⁶);
/// - `lon`, `lat` a valid position; `range` metres in 1…100,000 (``TowerMap/maximumRange``);
/// - `samples`, `created`, `updated` whole numbers ≥ 0; `changeable` 0 or 1; `averageSignal` a
///   whole number in −150…0 dBm (0: unknown).
/// A cell (radio, mcc, net, area, cell) may appear once.
///
/// A bad row is a ``TrackIOError`` at its line and column naming the field, the value and what
/// was expected. With `lenient`, bad rows and repeated cells are skipped instead, each reported
/// to `warning` and counted in ``TowerFile/skippedRows``.
public enum TowerCSVReader {
  /// What a tower file held.
  public struct TowerFile: Sendable {
    public var towers: [CellTower]
    /// The file line of each tower.
    public var lines: [Int]
    /// Rows skipped in lenient mode.
    public var skippedRows: Int
  }

  public static func read(
    path: String, lenient: Bool = false, warning: (TrackIOError) -> Void = { _ in }
  ) throws(TrackIOError) -> TowerFile {
    var lines = try ByteLineReader(path: path)
    let shownPath = lines.path
    var fields = CSVFields()
    var columns: Columns?
    var file = TowerFile(towers: [], lines: [], skippedRows: 0)
    var firstLine: [CellIdentity: Int] = [:]
    while true {
      let number = lines.lineNumber + 1
      let more: Bool? = try lines.nextLine { line throws(TrackIOError) -> Bool in
        if line.isEmpty || line.first == UInt8(ascii: "#") { return true }
        fields.split(line)
        guard let c = columns else {
          let header = CSVHeader(fields, line: line)
          columns = try Columns(header, path: shownPath)
          return true
        }
        do throws(TrackIOError) {
          let tower = try parse(line, fields, c, path: shownPath, line: number)
          if let first = firstLine[tower.identity] {
            throw TrackIOError(
              path: shownPath, line: number, column: fields.column(c.radio),
              message: "cell \(tower.identity) repeats line \(first): expected each cell once")
          }
          firstLine[tower.identity] = number
          file.towers.append(tower)
          file.lines.append(number)
        } catch {
          guard lenient else { throw error }
          file.skippedRows += 1
          warning(TrackIOError(path: error.path, line: error.line, column: error.column, message: error.message + "; recovered: skipped the row"))
        }
        return true
      }
      guard more != nil else { break }
    }
    guard columns != nil else {
      throw TrackIOError(path: shownPath, line: 1, column: 1, message: "empty file: expected a header radio,mcc,net,area,cell,unit,lon,lat,range,…")
    }
    return file
  }

  struct Columns {
    var radio, mcc, net, area, cell, lon, lat, range: Int
    var samples, changeable, created, updated, averageSignal: Int?
    var width: Int

    init(_ header: CSVHeader, path: String) throws(TrackIOError) {
      func required(_ name: String) throws(TrackIOError) -> Int {
        guard let k = header.column([name.lowercased()]) else {
          throw TrackIOError(
            path: path, line: 1, column: 1,
            message: "header \"\(header.names.joined(separator: ","))\" has no \(name) column: expected the OpenCellID columns radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal")
        }
        return k
      }
      radio = try required("radio")
      mcc = try required("mcc")
      net = try required("net")
      area = try required("area")
      cell = try required("cell")
      lon = try required("lon")
      lat = try required("lat")
      range = try required("range")
      samples = header.column(["samples"])
      changeable = header.column(["changeable"])
      created = header.column(["created"])
      updated = header.column(["updated"])
      averageSignal = header.column(["averagesignal"])
      width = header.names.count
    }
  }

  /// The radio named by `bytes` (any case), without making a String.
  private static func radio(_ bytes: UnsafeBufferPointer<UInt8>) -> Radio? {
    var word: UInt32 = 0
    guard bytes.count <= 4 else { return nil }
    for b in bytes { word = word << 8 | UInt32(b >= 0x61 && b <= 0x7A ? b - 0x20 : b) }
    switch (bytes.count, word) {
    case (3, 0x47_53_4D): return .gsm  // GSM
    case (4, 0x55_4D_54_53): return .umts  // UMTS
    case (3, 0x4C_54_45): return .lte  // LTE
    case (2, 0x4E_52): return .nr  // NR
    case (4, 0x43_44_4D_41): return .cdma  // CDMA
    default: return nil
    }
  }

  private static func parse(
    _ line: UnsafeBufferPointer<UInt8>, _ fields: CSVFields, _ c: Columns, path: String, line number: Int
  ) throws(TrackIOError) -> CellTower {
    func fail(_ k: Int, _ message: String) -> TrackIOError {
      TrackIOError(path: path, line: number, column: fields.column(k), message: message)
    }
    if let open = fields.unterminatedQuote {
      throw TrackIOError(path: path, line: number, column: open + 1, message: "quoted field is not closed")
    }
    guard fields.count == c.width else {
      throw TrackIOError(path: path, line: number, column: 1, message: "\(fields.count) fields: expected \(c.width), as in the header")
    }
    func integer(_ k: Int, _ name: String, _ bounds: ClosedRange<Int>, _ expected: String) throws(TrackIOError) -> Int {
      guard let v = ByteNumbers.integer(fields.field(k, in: line)), bounds.contains(v) else {
        throw fail(k, "\(name) \"\(fields.text(k, in: line))\": expected \(expected)")
      }
      return v
    }
    func optional(_ k: Int?, _ name: String, _ bounds: ClosedRange<Int>, _ expected: String) throws(TrackIOError) -> Int? {
      guard let k else { return nil }
      return try integer(k, name, bounds, expected)
    }
    guard let radio = Self.radio(fields.field(c.radio, in: line)) else {
      throw fail(c.radio, "radio \"\(fields.text(c.radio, in: line))\": expected GSM, UMTS, LTE, NR or CDMA")
    }
    let mcc = try integer(c.mcc, "mcc", 0...999, "a mobile country code 0...999")
    let net = try integer(c.net, "net", 0...32_767, "a network code 0...999 (CDMA SID 0...32767)")
    let area = try integer(c.area, "area", 0...Int(UInt32.max), "an area code 0...4294967295")
    let cell = try integer(c.cell, "cell", 0...(1 << 40), "a cell identity 0...2^40")
    guard let longitude = ByteNumbers.double(fields.field(c.lon, in: line)) else {
      throw fail(c.lon, "lon \"\(fields.text(c.lon, in: line))\": expected degrees")
    }
    guard let latitude = ByteNumbers.double(fields.field(c.lat, in: line)) else {
      throw fail(c.lat, "lat \"\(fields.text(c.lat, in: line))\": expected degrees in -90...90")
    }
    let coordinate: Coordinate
    do throws(CoordinateError) { coordinate = try Coordinate.reading(latitude: latitude, longitude: longitude) } catch {
      throw fail(error.component == .latitude ? c.lat : c.lon, error.description)
    }
    guard let range = ByteNumbers.double(fields.field(c.range, in: line)), range >= 1, range <= TowerMap.maximumRange else {
      throw fail(c.range, "range \"\(fields.text(c.range, in: line))\": expected metres in 1...\(Int(TowerMap.maximumRange))")
    }
    let samples = try optional(c.samples, "samples", 0...Int.max, "a count ≥ 0") ?? 0
    let changeable = try optional(c.changeable, "changeable", 0...1, "0 or 1") ?? 1
    let created = try optional(c.created, "created", 0...Int.max, "Unix seconds ≥ 0") ?? 0
    let updated = try optional(c.updated, "updated", 0...Int.max, "Unix seconds ≥ 0") ?? 0
    let signal = try optional(c.averageSignal, "averageSignal", -150...0, "dBm in -150...0 (0: unknown)") ?? 0
    return CellTower(
      identity: CellIdentity(radio: radio, mcc: mcc, net: net, area: area, cell: cell), coordinate: coordinate, range: range,
      samples: samples, isEstimated: changeable == 1, created: created, updated: updated, averageSignal: signal)
  }
}
