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
  private let scanner: MarkupScanner
  /// What the file held so far (complete once ``next()`` returned nil).
  public private(set) var summary = GPXSummary()

  // Element stack: qualified names as bytes in one flat array, and each one's kind.
  private var nameBytes: [UInt8] = []
  private var nameEnds: [Int] = []
  private var tags: [Tag] = []
  private var tagLines: [Int] = []
  private var sawRoot = false

  private var point: GPXPoint?
  private var pointsInSegment = 0
  private var value: [UInt8] = []
  private var collecting: Tag?
  private var valueStart = (line: 0, column: 0)

  /// Opens `path` (`-` for standard input).
  public init(path: String) throws(TrackIOError) {
    scanner = try MarkupScanner(path: path)
    value.reserveCapacity(64)
    nameBytes.reserveCapacity(256)
  }

  /// The file as named by the user (or `<stdin>`).
  public var path: String { scanner.path }

  /// Bytes read from the file so far (it is read ahead in chunks), for progress reports.
  public var bytesRead: Int { scanner.bytesRead }

  /// Reads every point (convenience for small files).
  public mutating func readAll() throws(TrackIOError) -> [GPXPoint] {
    var points: [GPXPoint] = []
    while let p = try next() { points.append(p) }
    return points
  }

  /// The next point in document order, or nil at the end of the file.
  public mutating func next() throws(TrackIOError) -> GPXPoint? {
    var trailing = 0..<0
    while let token = try scanner.next(trailingText: &trailing) {
      if collecting != nil && !token.text.isEmpty { value.append(contentsOf: scanner.bytes[token.text]) }  // rare: values only
      switch token.kind {
      case .startTag, .emptyElementTag:
        if let done = try startTag(token) { return done }
      case .endTag:
        if let done = try endTag(token) { return done }
      case .cdata:
        if collecting != nil { value.append(contentsOf: scanner.bytes[token.name]) }
      case .other:
        break
      }
    }
    if let open = tags.indices.last {
      throw scanner.error(
        "file ends inside <\(name(at: open))> opened on line \(tagLines[open]): expected </\(name(at: open))>",
        at: scanner.bytes.count)
    }
    if !sawRoot { throw scanner.error("no <gpx> element: expected a GPX document", at: scanner.bytes.count) }
    return nil
  }

  // MARK: - Tags

  private enum Tag: UInt8 {
    case gpx, trk, trkseg, trkpt, rte, rtept, wpt
    case ele, time, hdop, vdop, pdop, sat, speed, course, hr, cad
    case other
  }

  /// The GPX element a local name stands for, compared as bytes.
  private static func tag(forLocalName n: Slice<UnsafeBufferPointer<UInt8>>) -> Tag {
    @inline(__always) func byte(_ k: Int) -> UInt8 { n[n.startIndex + k] }
    @inline(__always) func equals(_ s: StaticString) -> Bool {
      let p = s.utf8Start
      for k in 0..<n.count where byte(k) != p[k] { return false }
      return true
    }
    switch (n.count, n.isEmpty ? 0 : byte(0)) {
    case (2, UInt8(ascii: "h")): return equals("hr") ? .hr : .other
    case (3, UInt8(ascii: "t")): return equals("trk") ? .trk : .other
    case (3, UInt8(ascii: "e")): return equals("ele") ? .ele : .other
    case (3, UInt8(ascii: "g")): return equals("gpx") ? .gpx : .other
    case (3, UInt8(ascii: "r")): return equals("rte") ? .rte : .other
    case (3, UInt8(ascii: "w")): return equals("wpt") ? .wpt : .other
    case (3, UInt8(ascii: "s")): return equals("sat") ? .sat : .other
    case (3, UInt8(ascii: "c")): return equals("cad") ? .cad : .other
    case (4, UInt8(ascii: "t")): return equals("time") ? .time : .other
    case (4, UInt8(ascii: "h")): return equals("hdop") ? .hdop : .other
    case (4, UInt8(ascii: "v")): return equals("vdop") ? .vdop : .other
    case (4, UInt8(ascii: "p")): return equals("pdop") ? .pdop : .other
    case (5, UInt8(ascii: "t")): return equals("trkpt") ? .trkpt : .other
    case (5, UInt8(ascii: "r")): return equals("rtept") ? .rtept : .other
    case (5, UInt8(ascii: "s")): return equals("speed") ? .speed : .other
    case (6, UInt8(ascii: "t")): return equals("trkseg") ? .trkseg : .other
    case (6, UInt8(ascii: "c")): return equals("course") ? .course : .other
    default: return .other
    }
  }

  private func name(at index: Int) -> String {
    let start = index == 0 ? 0 : nameEnds[index - 1]
    return String(decoding: nameBytes[start..<nameEnds[index]], as: UTF8.self)
  }

  private func text(_ range: Range<Int>) -> String {
    String(decoding: scanner.bytes[range], as: UTF8.self)
  }

  private mutating func startTag(_ token: MarkupScanner.Token) throws(TrackIOError) -> GPXPoint? {
    let bytes = scanner.bytes
    let qualified = token.name
    guard !qualified.isEmpty else { throw scanner.error("expected an element name after '<'", at: token.start + 1) }
    var localStart = qualified.lowerBound
    for i in qualified where bytes[i] == UInt8(ascii: ":") { localStart = i + 1 }
    let tag = Self.tag(forLocalName: bytes[localStart..<qualified.upperBound])
    let parent = tags.last
    if !sawRoot {
      guard tag == .gpx else { throw scanner.error("root element is <\(text(qualified))>: expected <gpx>", at: token.start) }
      sawRoot = true
    } else if tags.isEmpty {
      throw scanner.error("content after the end of <gpx>", at: token.start)
    }
    let selfClosing = token.kind == .emptyElementTag
    let isPoint = (tag == .trkpt && parent == .trkseg) || (tag == .rtept && parent == .rte) || (tag == .wpt && parent == .gpx)
    // Attributes: only lat/lon on points and version on the root are read.
    var latitude: (value: Double, offset: Int)?
    var longitude: (value: Double, offset: Int)?
    if isPoint || (tag == .gpx && parent == nil) {
      var i = token.attributes.lowerBound
      let end = token.attributes.upperBound
      while true {
        while i < end, MarkupScanner.isSpace(bytes[i]) { i += 1 }
        guard i < end else { break }
        let nameStart = i
        while i < end, MarkupScanner.isNameByte(bytes[i]) { i += 1 }
        let attributeName = nameStart..<i
        guard !attributeName.isEmpty else { throw scanner.error("expected an attribute name", at: i) }
        while i < end, MarkupScanner.isSpace(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "=") else {
          throw scanner.error("expected '=' after attribute \(text(attributeName))", at: i)
        }
        i += 1
        while i < end, MarkupScanner.isSpace(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
          throw scanner.error("expected a quoted value for attribute \(text(attributeName))", at: i)
        }
        let quote = bytes[i]
        i += 1
        let valueStart = i
        while i < end, bytes[i] != quote { i += 1 }
        guard i < end else { throw scanner.error("attribute value is not closed", at: valueStart - 1) }
        let valueRange = valueStart..<i
        i += 1
        let attributeBytes = bytes[attributeName]
        if isPoint && attributeBytes.elementsEqual("lat".utf8) {
          guard let v = Self.number(bytes, valueRange) else {
            throw scanner.error("lat \"\(text(valueRange))\" is not a number: expected degrees in -90...90", at: valueStart)
          }
          latitude = (v, valueStart)
        } else if isPoint && attributeBytes.elementsEqual("lon".utf8) {
          guard let v = Self.number(bytes, valueRange) else {
            throw scanner.error("lon \"\(text(valueRange))\" is not a number: expected degrees", at: valueStart)
          }
          longitude = (v, valueStart)
        } else if tag == .gpx && attributeBytes.elementsEqual("version".utf8) {
          summary.version = text(valueRange)
        }
      }
    }
    switch tag {
    case .trk where parent == .gpx:
      summary.tracks += 1
    case .trkseg where parent == .trk:
      summary.segments += 1
      pointsInSegment = 0
      if selfClosing { summary.emptySegments += 1 }
    case .rte where parent == .gpx:
      summary.routes += 1
    case .trkpt, .rtept, .wpt:
      guard isPoint else { break }
      let kindName = tag == .trkpt ? "trkpt" : tag == .rtept ? "rtept" : "wpt"
      guard let latitude else { throw scanner.error("<\(kindName)> has no lat attribute: expected lat=\"degrees\"", at: token.start) }
      guard let longitude else { throw scanner.error("<\(kindName)> has no lon attribute: expected lon=\"degrees\"", at: token.start) }
      let coordinate: Coordinate
      do throws(CoordinateError) {
        coordinate = try Coordinate(latitude: latitude.value, longitude: longitude.value)
      } catch {
        throw scanner.error(error.description, at: error.component == .latitude ? latitude.offset : longitude.offset)
      }
      let line = scanner.location(of: token.start).line
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
      if selfClosing { return p }
      point = p
    case .ele, .time, .hdop, .vdop, .pdop, .sat, .speed, .course, .hr, .cad:
      if point != nil && !selfClosing && collecting == nil {
        collecting = tag
        value.removeAll(keepingCapacity: true)
        valueStart = scanner.location(of: token.start + (token.attributes.upperBound - token.start) + 1)
      }
    default:
      break
    }
    if !selfClosing {
      nameBytes.append(contentsOf: bytes[qualified])
      nameEnds.append(nameBytes.count)
      tags.append(tag)
      tagLines.append(scanner.location(of: token.start).line)
    }
    return nil
  }

  private mutating func endTag(_ token: MarkupScanner.Token) throws(TrackIOError) -> GPXPoint? {
    guard let tag = tags.last else { throw scanner.error("</\(text(token.name))> closes nothing", at: token.start) }
    let start = tags.count == 1 ? 0 : nameEnds[tags.count - 2]
    guard nameBytes[start..<nameEnds[tags.count - 1]].elementsEqual(scanner.bytes[token.name]) else {
      throw scanner.error(
        "</\(text(token.name))> does not match <\(name(at: tags.count - 1))> opened on line \(tagLines[tags.count - 1])",
        at: token.start)
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
    default:
      break
    }
    return nil
  }

  @inline(__always)
  private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Double? {
    bytes.withUnsafeBufferPointer { b in ByteNumbers.double(UnsafeBufferPointer(rebasing: b[range])) }
  }

  @inline(__always)
  private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
    ByteNumbers.double(UnsafeBufferPointer(rebasing: bytes[range]))
  }

  /// Parses the collected text of a value element into the current point.
  private mutating func store(_ tag: Tag) throws(TrackIOError) {
    var lo = 0
    var hi = value.count
    while lo < hi, MarkupScanner.isSpace(value[lo]) { lo += 1 }
    while hi > lo, MarkupScanner.isSpace(value[hi - 1]) { hi -= 1 }
    guard lo < hi, var p = point else { return }  // empty elements carry no value
    let range = lo..<hi
    func fail(_ message: String) -> TrackIOError {
      TrackIOError(path: scanner.path, line: valueStart.line, column: valueStart.column, message: message)
    }
    func number(_ what: String) throws(TrackIOError) -> Double {
      guard let v = Self.number(value, range) else {
        throw fail("<\(what)> \"\(String(decoding: value[range], as: UTF8.self))\" is not a number")
      }
      return v
    }
    switch tag {
    case .time:
      let t = value.withUnsafeBufferPointer { b in ByteNumbers.timestamp(UnsafeBufferPointer(rebasing: b[range])) }
      guard let t else {
        throw fail("<time> \"\(String(decoding: value[range], as: UTF8.self))\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z")
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
}
