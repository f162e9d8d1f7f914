import Foundation
import Geodesy

/// Reads GPX 1.0 and 1.1 files point by point, streaming, in bounded memory.
///
/// A byte-level scanner (no DOM, no `Character`s): the file is read in 1 MiB chunks and only
/// the elements GPX defines are interpreted — `trk`/`trkseg`/`trkpt`, `rte`/`rtept`, `wpt`, and
/// within a point `ele`, `time`, `hdop`, `vdop`, `pdop`, `sat`, GPX 1.0 `speed`/`course`, and the
/// Garmin TrackPointExtension v1/v2 `hr`, `cad`, `speed`, `course`. Elements are recognised by
/// their local name whatever their namespace prefix (`<gpx:trkpt>` is a track point; gpxpy
/// ignores those). Metadata and foreign elements are skipped. A UTF-8 byte-order mark is
/// accepted.
///
/// Strict: malformed XML (mismatched or unclosed tags, a file that ends inside an element),
/// a point without `lat`/`lon`, a latitude outside −90…90 (gpxpy accepts 91), a number or time
/// that does not parse — each is a ``TrackIOError`` with the line and column.
///
/// ```swift
/// var reader = try GPXReader(path: "ride.gpx")
/// while let point = try reader.next() { … }
/// print(reader.summary.trackPoints)
/// ```
public struct GPXReader {
  private var scanner: ByteScanner
  /// What the file held so far (complete once ``next()`` returned nil).
  public private(set) var summary = GPXSummary()

  // Element stack: qualified names as bytes in one flat array, and each one's kind.
  private var nameBytes: [UInt8] = []
  private var nameEnds: [Int] = []
  private var tags: [Tag] = []
  private var tagLines: [Int] = []
  private var sawRoot = false
  private var rootClosed = false

  private var point: GPXPoint?
  private var pointsInSegment = 0
  private var value: [UInt8] = []
  private var collecting: Tag?
  private var valueLine = 0
  private var valueColumn = 0

  /// Opens `path` (`-` for standard input).
  public init(path: String) throws(TrackIOError) {
    scanner = try ByteScanner(path: path)
  }

  /// The file as named by the user (or `<stdin>`).
  public var path: String { scanner.path }

  /// Reads every point (convenience for small files).
  public mutating func readAll() throws(TrackIOError) -> [GPXPoint] {
    var points: [GPXPoint] = []
    while let p = try next() { points.append(p) }
    return points
  }

  /// The next point in document order, or nil at the end of the file.
  public mutating func next() throws(TrackIOError) -> GPXPoint? {
    while true {
      guard try scanner.skipText(collect: collecting != nil, into: &value) else {
        // End of input.
        if !tags.isEmpty {
          throw fail("file ends inside <\(name(at: tags.count - 1))> opened on line \(tagLines[tags.count - 1]): expected </\(name(at: tags.count - 1))>")
        }
        if !sawRoot { throw fail("no <gpx> element: expected a GPX document") }
        return nil
      }
      // At '<'.
      let line = scanner.line
      let column = scanner.column
      scanner.advance()
      guard let first = try scanner.peek() else { throw fail("file ends inside a tag") }
      switch first {
      case UInt8(ascii: "?"):
        try scanner.skip(past: Array("?>".utf8), what: "processing instruction")
      case UInt8(ascii: "!"):
        try skipDeclarationOrComment()
      case UInt8(ascii: "/"):
        scanner.advance()
        if let done = try endTag(line: line, column: column) { return done }
      default:
        if let done = try startTag(line: line, column: column) { return done }
      }
    }
  }

  // MARK: - Tags

  private enum Tag: UInt8 {
    case gpx, trk, trkseg, trkpt, rte, rtept, wpt
    case ele, time, hdop, vdop, pdop, sat, speed, course, hr, cad
    case extensions, other
  }

  private static func tag(forLocalName n: ArraySlice<UInt8>) -> Tag {
    switch n.count {
    case 2:
      if n.elementsEqual("hr".utf8) { return .hr }
    case 3:
      if n.elementsEqual("gpx".utf8) { return .gpx }
      if n.elementsEqual("trk".utf8) { return .trk }
      if n.elementsEqual("rte".utf8) { return .rte }
      if n.elementsEqual("wpt".utf8) { return .wpt }
      if n.elementsEqual("ele".utf8) { return .ele }
      if n.elementsEqual("sat".utf8) { return .sat }
      if n.elementsEqual("cad".utf8) { return .cad }
    case 4:
      if n.elementsEqual("time".utf8) { return .time }
      if n.elementsEqual("hdop".utf8) { return .hdop }
      if n.elementsEqual("vdop".utf8) { return .vdop }
      if n.elementsEqual("pdop".utf8) { return .pdop }
    case 5:
      if n.elementsEqual("trkpt".utf8) { return .trkpt }
      if n.elementsEqual("rtept".utf8) { return .rtept }
      if n.elementsEqual("speed".utf8) { return .speed }
    case 6:
      if n.elementsEqual("trkseg".utf8) { return .trkseg }
      if n.elementsEqual("course".utf8) { return .course }
    case 10:
      if n.elementsEqual("extensions".utf8) { return .extensions }
    default: break
    }
    return .other
  }

  private func name(at index: Int) -> String {
    let start = index == 0 ? 0 : nameEnds[index - 1]
    return String(decoding: nameBytes[start..<nameEnds[index]], as: UTF8.self)
  }

  private func fail(_ message: String, line: Int? = nil, column: Int? = nil) -> TrackIOError {
    TrackIOError(path: scanner.path, line: line ?? scanner.line, column: column ?? scanner.column, message: message)
  }

  private mutating func startTag(line: Int, column: Int) throws(TrackIOError) -> GPXPoint? {
    let nameStart = nameBytes.count
    try scanner.readName(into: &nameBytes)
    guard nameBytes.count > nameStart else { throw fail("expected an element name after '<'", line: line, column: column + 1) }
    var localStart = nameStart
    for i in nameStart..<nameBytes.count where nameBytes[i] == UInt8(ascii: ":") { localStart = i + 1 }
    let tag = Self.tag(forLocalName: nameBytes[localStart..<nameBytes.count])
    let parent = tags.last
    if !sawRoot {
      guard tag == .gpx else {
        throw fail("root element is <\(String(decoding: nameBytes[nameStart...], as: UTF8.self))>: expected <gpx>", line: line, column: column)
      }
      sawRoot = true
    } else if tags.isEmpty {
      throw fail("content after the end of <gpx>", line: line, column: column)
    }
    // Attributes.
    var latitude: (value: Double, column: Int)?
    var longitude: (value: Double, column: Int)?
    var selfClosing = false
    while true {
      scanner.skipSpaces()
      guard let b = try scanner.peek() else { throw fail("file ends inside a start tag", line: line, column: column) }
      if b == UInt8(ascii: ">") {
        scanner.advance()
        break
      }
      if b == UInt8(ascii: "/") {
        scanner.advance()
        guard try scanner.peek() == UInt8(ascii: ">") else { throw fail("expected '>' after '/' in a start tag") }
        scanner.advance()
        selfClosing = true
        break
      }
      var attributeName: [UInt8] = []
      try scanner.readName(into: &attributeName)
      guard !attributeName.isEmpty else { throw fail("expected an attribute name or '>' in a start tag") }
      scanner.skipSpaces()
      guard try scanner.peek() == UInt8(ascii: "=") else { throw fail("expected '=' after attribute \(String(decoding: attributeName, as: UTF8.self))") }
      scanner.advance()
      scanner.skipSpaces()
      let valueColumn = scanner.column + 1
      var attributeValue: [UInt8] = []
      try scanner.readQuoted(into: &attributeValue)
      let isPoint = tag == .trkpt || tag == .rtept || tag == .wpt
      if isPoint && attributeName == Array("lat".utf8) {
        guard let v = attributeValue.withUnsafeBufferPointer({ ByteNumbers.double($0) }) else {
          throw fail("lat \"\(String(decoding: attributeValue, as: UTF8.self))\" is not a number: expected degrees in -90...90", column: valueColumn)
        }
        latitude = (v, valueColumn)
      } else if isPoint && attributeName == Array("lon".utf8) {
        guard let v = attributeValue.withUnsafeBufferPointer({ ByteNumbers.double($0) }) else {
          throw fail("lon \"\(String(decoding: attributeValue, as: UTF8.self))\" is not a number: expected degrees", column: valueColumn)
        }
        longitude = (v, valueColumn)
      } else if tag == .gpx && parent == nil && attributeName == Array("version".utf8) {
        summary.version = String(decoding: attributeValue, as: UTF8.self)
      }
    }
    // Meaning.
    switch tag {
    case .trk where parent == .gpx:
      summary.tracks += 1
    case .trkseg where parent == .trk:
      summary.segments += 1
      pointsInSegment = 0
    case .rte where parent == .gpx:
      summary.routes += 1
    case .trkpt where parent == .trkseg, .rtept where parent == .rte, .wpt where parent == .gpx:
      let kindName = tag == .trkpt ? "trkpt" : tag == .rtept ? "rtept" : "wpt"
      guard let latitude else { throw fail("<\(kindName)> has no lat attribute: expected lat=\"degrees\"", line: line, column: column) }
      guard let longitude else { throw fail("<\(kindName)> has no lon attribute: expected lon=\"degrees\"", line: line, column: column) }
      let coordinate: Coordinate
      do throws(CoordinateError) {
        coordinate = try Coordinate(latitude: latitude.value, longitude: longitude.value)
      } catch {
        throw fail(error.description, line: line, column: error.component == .latitude ? latitude.column : longitude.column)
      }
      var p: GPXPoint
      switch tag {
      case .trkpt:
        summary.trackPoints += 1
        pointsInSegment += 1
        p = GPXPoint(kind: .track, parent: summary.tracks - 1, segment: summary.segments - 1, coordinate: coordinate, line: line)
      case .rtept:
        summary.routePoints += 1
        p = GPXPoint(kind: .route, parent: summary.routes - 1, segment: -1, coordinate: coordinate, line: line)
      default:
        summary.waypoints += 1
        p = GPXPoint(kind: .waypoint, parent: -1, segment: -1, coordinate: coordinate, line: line)
      }
      if selfClosing {
        nameBytes.removeSubrange(nameStart...)
        return p
      }
      point = p
    case .ele, .time, .hdop, .vdop, .pdop, .sat, .speed, .course, .hr, .cad:
      if point != nil && !selfClosing && collecting == nil {
        collecting = tag
        value.removeAll(keepingCapacity: true)
        valueLine = scanner.line
        valueColumn = scanner.column
      }
    default:
      break
    }
    if selfClosing {
      if tag == .trkseg && parent == .trk { summary.emptySegments += 1 }
      nameBytes.removeSubrange(nameStart...)
      return nil
    }
    nameEnds.append(nameBytes.count)
    tags.append(tag)
    tagLines.append(line)
    return nil
  }

  private mutating func endTag(line: Int, column: Int) throws(TrackIOError) -> GPXPoint? {
    var closing: [UInt8] = []
    try scanner.readName(into: &closing)
    scanner.skipSpaces()
    guard try scanner.peek() == UInt8(ascii: ">") else { throw fail("expected '>' to close </\(String(decoding: closing, as: UTF8.self))>") }
    scanner.advance()
    guard let tag = tags.last else {
      throw fail("</\(String(decoding: closing, as: UTF8.self))> closes nothing", line: line, column: column)
    }
    let start = tags.count == 1 ? 0 : nameEnds[tags.count - 2]
    guard nameBytes[start..<nameEnds[tags.count - 1]].elementsEqual(closing) else {
      throw fail(
        "</\(String(decoding: closing, as: UTF8.self))> does not match <\(name(at: tags.count - 1))> opened on line \(tagLines[tags.count - 1])",
        line: line, column: column)
    }
    tags.removeLast()
    tagLines.removeLast()
    nameEnds.removeLast()
    nameBytes.removeSubrange(start...)
    if collecting == tag {
      collecting = nil
      try store(tag)
    }
    switch tag {
    case .trkseg:
      if pointsInSegment == 0 && tags.last == .trk { summary.emptySegments += 1 }
    case .trkpt, .rtept, .wpt:
      if let p = point {
        point = nil
        return p
      }
    case .gpx:
      rootClosed = true
    default:
      break
    }
    return nil
  }

  /// Parses the collected text of a value element into the current point.
  private mutating func store(_ tag: Tag) throws(TrackIOError) {
    // Trim XML whitespace.
    var lo = 0
    var hi = value.count
    while lo < hi, Self.isSpace(value[lo]) { lo += 1 }
    while hi > lo, Self.isSpace(value[hi - 1]) { hi -= 1 }
    guard lo < hi, var p = point else { return }  // empty elements carry no value
    let text = value[lo..<hi]
    let shown = String(decoding: text, as: UTF8.self)
    func number(_ what: String) throws(TrackIOError) -> Double {
      guard let v = text.withUnsafeBufferPointer({ ByteNumbers.double($0) }) else {
        throw fail("<\(what)> \"\(shown)\" is not a number", line: valueLine, column: valueColumn)
      }
      return v
    }
    switch tag {
    case .time:
      guard let t = text.withUnsafeBufferPointer({ ByteNumbers.timestamp($0) }) else {
        throw fail("<time> \"\(shown)\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z", line: valueLine, column: valueColumn)
      }
      p.time = t
    case .ele: p.elevation = try number("ele")
    case .hdop: p.horizontalDilution = try number("hdop")
    case .vdop: p.verticalDilution = try number("vdop")
    case .pdop: p.positionDilution = try number("pdop")
    case .sat: p.satellites = Int(try number("sat"))
    case .speed: p.speed = try number("speed")
    case .course: p.course = try number("course")
    case .hr: p.heartRate = try number("hr")
    case .cad: p.cadence = try number("cad")
    default: break
    }
    point = p
  }

  @inline(__always) private static func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }

  private mutating func skipDeclarationOrComment() throws(TrackIOError) {
    // At "!": a comment, CDATA (text: only values are kept), or a DOCTYPE.
    if try scanner.consume(Array("!--".utf8)) {
      try scanner.skip(past: Array("-->".utf8), what: "comment")
    } else if try scanner.consume(Array("![CDATA[".utf8)) {
      try scanner.copy(until: Array("]]>".utf8), collect: collecting != nil, into: &value, what: "CDATA section")
    } else {
      try scanner.skipDeclaration()
    }
  }
}

/// A forward-only byte reader over a file with line and column tracking, refilled in chunks.
struct ByteScanner {
  let path: String
  private let handle: FileHandle
  private var buffer: [UInt8] = []
  private var position = 0
  private var atEnd = false
  private var firstChunk = true
  /// 1-based line and column (in bytes) of the next byte.
  private(set) var line = 1
  private var lineStart = 0  // offset in `buffer` where the current line starts (may be negative after compaction)

  static let chunkSize = 1 << 20

  init(path: String) throws(TrackIOError) {
    self.path = path == "-" ? "<stdin>" : path
    if path == "-" {
      handle = FileHandle.standardInput
    } else {
      guard let h = FileHandle(forReadingAtPath: path) else {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let why = !exists ? "no such file" : isDirectory.boolValue ? "is a directory, expected a file" : "cannot be read (permission?)"
        throw TrackIOError(path: path, line: 0, column: 0, message: why)
      }
      handle = h
    }
  }

  var column: Int { position - lineStart + 1 }

  /// Makes at least `n` bytes available from `position` if the input has them.
  @inline(__always)
  private mutating func ensure(_ n: Int) throws(TrackIOError) -> Bool {
    if position + n <= buffer.count { return true }
    while position + n > buffer.count && !atEnd { try refill() }
    return position + n <= buffer.count
  }

  private mutating func refill() throws(TrackIOError) {
    if position > 0 {
      buffer.removeSubrange(0..<position)
      lineStart -= position
      position = 0
    }
    let data: Data?
    do { data = try handle.read(upToCount: Self.chunkSize) } catch {
      throw TrackIOError(path: path, line: line, column: column, message: "read failed: \(error.localizedDescription)")
    }
    guard let data, !data.isEmpty else {
      atEnd = true
      return
    }
    buffer.append(contentsOf: data)
    if firstChunk {
      firstChunk = false
      if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
        buffer.removeFirst(3)
      }
    }
  }

  @inline(__always)
  mutating func peek() throws(TrackIOError) -> UInt8? {
    guard try ensure(1) else { return nil }
    return buffer[position]
  }

  @inline(__always)
  mutating func advance() {
    if buffer[position] == 0x0A {
      line += 1
      lineStart = position + 1
    }
    position += 1
  }

  /// Skips text up to the next '<' (appending it to `text` when `collect`); false at the end of
  /// input.
  mutating func skipText(collect: Bool, into text: inout [UInt8]) throws(TrackIOError) -> Bool {
    while true {
      guard try ensure(1) else { return false }
      let b = buffer[position]
      if b == UInt8(ascii: "<") { return true }
      if collect { text.append(b) }
      advance()
    }
  }

  mutating func skipSpaces() {
    while position < buffer.count || !atEnd {
      guard (try? ensure(1)) == true else { return }
      let b = buffer[position]
      guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { return }
      advance()
    }
  }

  /// Reads an XML name (letters, digits, '_', ':', '-', '.', and any non-ASCII byte).
  mutating func readName(into out: inout [UInt8]) throws(TrackIOError) {
    while try ensure(1) {
      let b = buffer[position]
      let isNameByte =
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x3A
        || b == 0x2D || b == 0x2E || b >= 0x80
      guard isNameByte else { return }
      out.append(b)
      advance()
    }
  }

  /// Reads a quoted attribute value (quotes removed, entities kept as written).
  mutating func readQuoted(into out: inout [UInt8]) throws(TrackIOError) {
    guard let quote = try peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
      throw TrackIOError(path: path, line: line, column: column, message: "expected a quoted attribute value")
    }
    let startLine = line
    let startColumn = column
    advance()
    while true {
      guard let b = try peek() else {
        throw TrackIOError(path: path, line: startLine, column: startColumn, message: "attribute value is not closed")
      }
      advance()
      if b == quote { return }
      out.append(b)
    }
  }

  /// Consumes `literal` if the input continues with it.
  mutating func consume(_ literal: [UInt8]) throws(TrackIOError) -> Bool {
    guard try ensure(literal.count) else { return false }
    for (i, b) in literal.enumerated() where buffer[position + i] != b { return false }
    for _ in literal { advance() }
    return true
  }

  /// Skips past the next occurrence of `terminator`.
  mutating func skip(past terminator: [UInt8], what: String) throws(TrackIOError) {
    var unused: [UInt8] = []
    try copy(until: terminator, collect: false, into: &unused, what: what)
  }

  /// Consumes bytes up to and including `terminator`, appending those before it to `out` when
  /// `collect`.
  mutating func copy(until terminator: [UInt8], collect: Bool, into out: inout [UInt8], what: String)
    throws(TrackIOError)
  {
    let startLine = line
    let startColumn = column
    while true {
      if try consume(terminator) { return }
      guard try ensure(1) else {
        throw TrackIOError(
          path: path, line: startLine, column: startColumn,
          message: "\(what) is not closed: expected \(String(decoding: terminator, as: UTF8.self))")
      }
      if collect { out.append(buffer[position]) }
      advance()
    }
  }

  /// Skips a `<!DOCTYPE …>` (with an internal subset in brackets) or another `<!…>` declaration.
  mutating func skipDeclaration() throws(TrackIOError) {
    let startLine = line
    let startColumn = column
    var depth = 0
    while let b = try peek() {
      advance()
      if b == UInt8(ascii: "[") { depth += 1 }
      if b == UInt8(ascii: "]") { depth -= 1 }
      if b == UInt8(ascii: ">") && depth <= 0 { return }
    }
    throw TrackIOError(path: path, line: startLine, column: startColumn, message: "declaration is not closed: expected '>'")
  }
}
