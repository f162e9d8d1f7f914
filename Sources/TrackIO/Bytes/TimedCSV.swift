/// Small time-keyed CSV files: a header locating the columns, then one row per line, each
/// handed over with helpers that locate errors at `path:line:column`.
package enum TimedCSV {
  package struct Row {
    package let path: String
    package let line: Int
    package let bytes: UnsafeBufferPointer<UInt8>
    package let fields: CSVFields
    /// The field index of each required column, then of each optional one (nil: absent).
    package let columns: [Int?]

    package func column(_ k: Int) -> Int { columns[k]! }
    package func optional(_ k: Int) -> Int? { columns[k].flatMap { $0 < fields.count ? $0 : nil } }
    package func text(_ field: Int) -> String { fields.text(field, in: bytes) }

    package func fail(_ field: Int, _ message: String) -> TrackIOError {
      TrackIOError(path: path, line: line, column: fields.column(field), message: message)
    }

    /// Required column `k` as an ISO 8601 time, with its offset. A time without a zone (no `Z`,
    /// no offset) names no instant and no clock offset, so it is refused unless `assumeUTC`,
    /// which reads it as UTC.
    package func time(_ k: Int, _ what: String, assumeUTC: Bool) throws(TrackIOError) -> (Double, Int) {
      let f = column(k)
      let field = fields.field(f, in: bytes)
      guard let t = ByteNumbers.timestampWithOffset(field) else {
        throw fail(f, "\(what) \"\(text(f))\" is not an ISO 8601 time such as 2024-05-06T07:45:00+02:00")
      }
      guard assumeUTC || ByteNumbers.hasZone(field) else {
        throw fail(f, ByteNumbers.zonelessMessage(text(f), what: what))
      }
      return t
    }

    package func number(_ field: Int, _ what: String, _ range: ClosedRange<Double>, _ expected: String) throws(TrackIOError) -> Double {
      guard let v = ByteNumbers.double(fields.field(field, in: bytes)), v.isFinite, range.contains(v) else {
        throw fail(field, "\(what) \"\(text(field))\" is not valid: expected \(expected)")
      }
      return v
    }
  }

  /// Calls `body` for each data row of `path`. `columns` lists the aliases of each required
  /// column, `optional` those of optional ones; `header` is the header shown in errors.
  package static func rows(
    path: String, columns: [[String]], optional: [[String]], header: String, _ body: (Row) throws(TrackIOError) -> Void
  ) throws(TrackIOError) {
    var lines = try ByteLineReader(path: path)
    let shownPath = lines.path
    var fields = CSVFields()
    var located: [Int?]?
    var width = 0
    while true {
      let number = lines.lineNumber + 1
      let more: Bool? = try lines.nextLine { bytes throws(TrackIOError) -> Bool in
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return true }
        if bytes.first == UInt8(ascii: "#") { return true }
        fields.split(bytes)
        if let open = fields.unterminatedQuote {
          throw TrackIOError(path: shownPath, line: number, column: open + 1, message: "quoted field is not closed")
        }
        guard let columnsFound = located else {
          let names = CSVHeader(fields, line: bytes)
          var found: [Int?] = []
          for aliases in columns {
            guard let k = names.column(aliases) else {
              throw TrackIOError(
                path: shownPath, line: number, column: 1,
                message: "header has no \(aliases[0]) column: expected a header such as \(header)")
            }
            found.append(k)
          }
          for aliases in optional { found.append(names.column(aliases)) }
          located = found
          width = fields.count
          return true
        }
        guard fields.count == width else {
          throw TrackIOError(path: shownPath, line: number, column: 1, message: "\(fields.count) fields: expected \(width), as in the header")
        }
        try body(Row(path: shownPath, line: number, bytes: bytes, fields: fields, columns: columnsFound))
        return true
      }
      guard more != nil else { break }
    }
    if located == nil {
      throw TrackIOError(path: shownPath, line: 1, column: 1, message: "empty file: expected a header \(header)")
    }
  }
}
