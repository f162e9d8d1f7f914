import Foundation
import Geodesy

/// Reads GPX 1.0 and 1.1 files point by point, streaming, in bounded memory.
///
/// A byte-level scanner (no DOM, no `Character`s): the file is read in 1 MiB chunks and only
/// the elements GPX defines are interpreted — `trk`/`trkseg`/`trkpt`, `rte`/`rtept`, `wpt`, and
/// within a point `ele`, `time`, `hdop`, `vdop`, `pdop`, `sat`, GPX 1.0 `speed`/`course` — and the
/// sensor values exporters put in a point's `<extensions>`: heart rate (`hr`: Garmin
/// TrackPointExtension v1/v2, Cluetrust GPXData), cadence (`cad`; Cluetrust `cadence`),
/// temperature (`atemp`; Garmin GpxExtensions v3 `Temperature`; Cluetrust `temp`), power
/// (`power`: Strava and others; Garmin PowerExtension `PowerInWatts`), and TrackPointExtension
/// v2 `speed` and `course`. Elements are recognised by their local name whatever their
/// namespace prefix (`<gpx:trkpt>` is a track point; gpxpy ignores those), at any depth inside
/// a point. Metadata and foreign elements are skipped. A UTF-8 byte-order mark is accepted.
///
/// Track points are read by a shortcut (``TrackPointShortcut``) that gives the same points,
/// summary and errors as the general scanner, several times faster.
///
/// Strict: malformed XML (mismatched or unclosed tags, a file that ends inside an element),
/// a point without `lat`/`lon`, a latitude outside −90…90 (gpxpy accepts 91), a number or time
/// that does not parse — each is a ``TrackIOError`` with the line and column.
///
/// **Lenient** (`lenient: true`): recovers what it can from a damaged file, and reports each
/// recovery as a warning (``takeWarnings()``: the error, its line and column, and what was done):
/// - a point without a usable `lat`/`lon` (missing, not a number, out of range, malformed
///   attributes) is skipped, with everything inside it;
/// - a value that does not parse (`<time>noon</time>`, `<ele>high</ele>`) is left out of its point;
/// - an end tag that matches an element opened further up closes the elements inside it; one
///   that matches nothing open is ignored;
/// - a file that ends inside an element (truncated) closes what is open: the point being read is
///   kept with the values complete before the end; markup cut short is ignored;
/// - content after the end of `<gpx>` is ignored; a tag with no name, or with a '<' inside it, is
///   skipped.
///
/// A file without a `<gpx>` root is an error in both modes. A schema or namespace violation that
/// leaves the data usable (a `<fix>` value outside `none`, `2d`, `3d`, `dgps`, `pps`; an element
/// prefix no `xmlns:` declares, such as `gpxpx:` in some exports, warned about once per prefix)
/// is a located warning in both modes (``takeWarnings()``).
///
/// ```swift
/// var reader = try GPXReader(path: "ride.gpx")
/// while let point = try reader.next() { print(point.line, point.coordinate) }
/// print(reader.summary.trackPoints)
/// ```
public struct GPXReader {
  private let scanner: MarkupScanner
  /// What the file held so far (complete once ``next()`` returned nil).
  public private(set) var summary = GPXSummary()

  // Element stack: each open element's kind, where it starts, and its qualified name — packed
  // into an integer when it has at most 8 bytes (every GPX name does), else stored in `nameBytes`,
  // so that the common case copies nothing and compares one integer.
  private var nameBytes: [UInt8] = []
  private var open: [OpenElement] = []
  private var sawRoot = false

  // The point being read (when `inPoint`); not an Optional, so that presence checks and value
  // updates never copy it.
  private var point = GPXPoint(kind: .track, parent: -1, segment: -1, coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0), line: 0)
  private var inPoint = false
  private var pointsInSegment = 0
  private var value: [UInt8] = []
  private var collecting: Tag?
  private var ended = false
  private var warnings: [TrackIOError] = []
  /// Namespace prefixes declared (`xmlns:p="…"`) on the open elements, with the depth of the
  /// element that declares each: in scope until it closes.
  private var prefixes: [(name: [UInt8], depth: Int)] = []
  /// Undeclared prefixes already warned about (once each, not once per element).
  private var undeclaredPrefixes: Set<[UInt8]> = []
  /// Misplaced structure warned about (``warnMisplaced(_:at:)``): a tag and its parent's, packed.
  private var misplacedWarned: Set<UInt16> = []
  /// ``prefixes`` packed as ``TrackPointShortcut`` takes them (0 for a name over 8 bytes).
  private var prefixKeys: [UInt64] = []
  /// The date of the last shortcut point's time, for the next one.
  private var dates = TimestampDayCache()
  private let usesShortcut: Bool
  /// Track points read by the shortcut (tests check that real exports take it).
  private(set) var pointsByShortcut = 0

  /// Whether damaged input is recovered from, with warnings, instead of thrown.
  public let isLenient: Bool
  /// Recoveries made so far (lenient mode), including those already taken.
  public private(set) var warningCount = 0

  /// Opens `path` (`-` for standard input); `lenient` recovers from damage (see the type).
  public init(path: String, lenient: Bool = false) throws(TrackIOError) {
    try self.init(path: path, lenient: lenient, shortcut: true)
  }

  /// `shortcut: false` reads every point the general way (tests compare the two).
  init(path: String, lenient: Bool, shortcut: Bool, from offset: Int = 0) throws(TrackIOError) {
    usesShortcut = shortcut
    scanner = try MarkupScanner(path: path, from: offset)
    scanner.isLenient = lenient
    isLenient = lenient
    value.reserveCapacity(64)
    nameBytes.reserveCapacity(256)
  }

  /// The recoveries made since the last call, oldest first: each an error (with its line and
  /// column) whose message ends with what was done; and, in either mode, schema violations that
  /// leave the data usable (a `<fix>` outside GPX's enumeration).
  public mutating func takeWarnings() -> [TrackIOError] {
    absorbScannerRecoveries()
    defer { warnings.removeAll() }
    return warnings
  }

  /// In lenient mode records `problem` and what was done about it; otherwise throws it. (A
  /// schema violation that leaves the data usable, such as a `<fix>` outside its enumeration, is
  /// a warning in both modes, not a recovery.)
  private mutating func recover(_ problem: TrackIOError, _ done: String) throws(TrackIOError) {
    guard isLenient else { throw problem }
    warningCount += 1
    warnings.append(TrackIOError(path: problem.path, line: problem.line, column: problem.column, message: problem.message + "; recovered: " + done))
  }

  private mutating func absorbScannerRecoveries() {
    guard !scanner.recoveries.isEmpty else { return }
    warningCount += scanner.recoveries.count
    warnings += scanner.recoveries
    scanner.recoveries.removeAll()
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
    while !ended {
      if scanner.willCompact { resolveLines() }
      if usesShortcut, !inPoint, collecting == nil, let parent = open.last, parent.tag == .trkseg, let fast = try shortcutTrackPoint() {
        return fast
      }
      guard let token = try scanner.next(trailingText: &trailing) else { break }
      if isLenient { absorbScannerRecoveries() }
      // A value's text is read where it lies when it comes in one piece (the end tag's text);
      // pieces split by comments or CDATA are gathered in `value`.
      if collecting != nil && !token.text.isEmpty && token.kind != .endTag { value.append(contentsOf: scanner.bytes[token.text]) }
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
    // Stopped at a limit, not at the end: nothing ends here.
    if scanner.isStoppedAtLimit { return nil }
    if isLenient { absorbScannerRecoveries() }
    if !sawRoot { throw scanner.error("no <gpx> element: expected a GPX document", at: scanner.bytes.count) }
    if let open = open.indices.last {
      if let cut = collecting {
        // A value cut short could read as another value (<ele>12 of <ele>1234): never kept.
        collecting = nil
        try recover(scanner.error("file ends inside the <\(name(at: open))> value", at: scanner.bytes.count), "left out the \(cut == .time ? "time" : "value")")
      }
      try recover(
        scanner.error(
          "file ends inside <\(name(at: open))> opened on line \(line(at: open)): expected </\(name(at: open))>",
          at: scanner.bytes.count),
        "closed \(closing(from: 0))")
      var last: GPXPoint?
      while !self.open.isEmpty {
        if let p = try closeTop(text: nil) { last = p }
      }
      if let last { return last }
    }
    return nil
  }

  /// A track point in a segment read by the shortcut (``TrackPointShortcut``), or nil, with
  /// nothing consumed, when the next markup is not one it takes.
  private mutating func shortcutTrackPoint() throws(TrackIOError) -> GPXPoint? {
    scanner.compact()
    try scanner.prefetch(Self.shortcutLookahead)
    var p = GPXPoint(
      kind: .track, parent: summary.tracks - 1, segment: summary.segments - 1,
      coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0), line: 0)
    guard let read = TrackPointShortcut.parse(scanner.bytes, from: scanner.unreadOffset, into: &p, dates: &dates, prefixes: prefixKeys)
    else { return nil }
    p.line = scanner.location(of: read.tagStart).line
    scanner.consume(upTo: read.end)
    summary.trackPoints += 1
    pointsInSegment += 1
    pointsByShortcut += 1
    return p
  }

  /// Bytes read ahead for the shortcut: an exported point with extensions is a few hundred; one
  /// that is not in them is read the general way.
  private static let shortcutLookahead = 4_096

  // MARK: - Tags

  /// The GPX elements the reader interprets (``TrackPointShortcut`` names its children by them
  /// too): the structure, then the values of a point, by local name.
  enum Tag: UInt8 {
    case gpx, trk, trkseg, trkpt, rte, rtept, wpt
    case ele, time, hdop, vdop, pdop, sat, speed, course, fix
    case hr, cad, cadence, atemp, temp, temperature, power, powerInWatts
    case other
    /// A track, segment, route or point outside the element GPX puts it in, or inside such an
    /// element: read as an unknown element.
    case misplaced

    /// Whether it is one of a point's values.
    var isValue: Bool { rawValue >= Tag.ele.rawValue && rawValue < Tag.other.rawValue }
    /// Whether it is part of the file's structure (the root, tracks, segments, routes, points).
    var isStructure: Bool { rawValue <= Tag.wpt.rawValue }

    /// The element GPX puts it directly inside, for the file's structure (`nil` for the root and
    /// for everything else).
    var parent: Tag? {
      switch self {
      case .trk, .rte, .wpt: .gpx
      case .trkseg: .trk
      case .trkpt: .trkseg
      case .rtept: .rte
      default: nil
      }
    }

    /// Its local name, for messages.
    var localName: String {
      switch self {
      case .temperature: "Temperature"
      case .powerInWatts: "PowerInWatts"
      default: "\(self)"
      }
    }
  }

  fileprivate struct OpenElement {
    var tag: Tag
    /// The qualified name's bytes packed little-endian when it has at most 8, else 0 (the name
    /// is then in `nameBytes`).
    var packedName: UInt64
    /// The qualified name's length in bytes.
    var nameLength: Int
    /// End of its name in `nameBytes` (where the next element's name starts).
    var nameEnd: Int
    /// Offset of its '<' in the scanner's bytes, until `line` is known.
    var start: Int
    /// Its line, once located (before the bytes it is in are dropped, or for an error); else -1.
    var line: Int
  }

  /// The GPX element a local name stands for, compared as bytes.
  static func tag(forLocalName n: Slice<UnsafeBufferPointer<UInt8>>) -> Tag {
    @inline(__always) func byte(_ k: Int) -> UInt8 { n[n.startIndex + k] }
    @inline(__always) func equals(_ s: StaticString) -> Bool {
      let p = s.utf8Start
      for k in 0..<n.count where byte(k) != p[k] { return false }
      return true
    }
    switch (n.count, n.isEmpty ? 0 : byte(0)) {
    case (2, UInt8(ascii: "h")): return equals("hr") ? .hr : .other
    case (5, UInt8(ascii: "a")): return equals("atemp") ? .atemp : .other
    case (5, UInt8(ascii: "p")): return equals("power") ? .power : .other
    case (7, UInt8(ascii: "c")): return equals("cadence") ? .cadence : .other
    case (11, UInt8(ascii: "T")): return equals("Temperature") ? .temperature : .other
    case (12, UInt8(ascii: "P")): return equals("PowerInWatts") ? .powerInWatts : .other
    case (3, UInt8(ascii: "t")): return equals("trk") ? .trk : .other
    case (3, UInt8(ascii: "e")): return equals("ele") ? .ele : .other
    case (3, UInt8(ascii: "g")): return equals("gpx") ? .gpx : .other
    case (3, UInt8(ascii: "r")): return equals("rte") ? .rte : .other
    case (3, UInt8(ascii: "w")): return equals("wpt") ? .wpt : .other
    case (3, UInt8(ascii: "s")): return equals("sat") ? .sat : .other
    case (3, UInt8(ascii: "c")): return equals("cad") ? .cad : .other
    case (3, UInt8(ascii: "f")): return equals("fix") ? .fix : .other
    case (4, UInt8(ascii: "t")): return equals("time") ? .time : equals("temp") ? .temp : .other
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
    let element = open[index]
    if element.nameLength <= 8 {
      return String(decoding: (0..<element.nameLength).map { UInt8(truncatingIfNeeded: element.packedName >> (8 * UInt64($0))) }, as: UTF8.self)
    }
    let start = index == 0 ? 0 : open[index - 1].nameEnd
    return String(decoding: nameBytes[start..<element.nameEnd], as: UTF8.self)
  }

  /// The line where open element `index` starts.
  private func line(at index: Int) -> Int {
    open[index].line >= 0 ? open[index].line : scanner.location(of: open[index].start).line
  }

  /// Locates every open element before the scanner drops the bytes they start in.
  private mutating func resolveLines() {
    for k in open.indices where open[k].line < 0 { open[k].line = scanner.location(of: open[k].start).line }
  }

  /// A name of at most 8 bytes packed little-endian into an integer; nil when longer.
  @inline(__always)
  private static func packed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
    guard range.count <= 8 else { return nil }
    var key: UInt64 = 0
    var shift: UInt64 = 0
    for i in range {
      key |= UInt64(bytes[i]) << shift
      shift += 8
    }
    return key
  }

  /// Whether `qualified` (a range of the scanner's bytes) is the name of open element `index`.
  private func isName(_ qualified: Range<Int>, of index: Int) -> Bool {
    let element = open[index]
    guard qualified.count == element.nameLength else { return false }
    if let key = Self.packed(scanner.bytes, qualified) { return key == element.packedName }
    let start = index == 0 ? 0 : open[index - 1].nameEnd
    return nameBytes[start..<element.nameEnd].elementsEqual(scanner.bytes[qualified])
  }

  private func text(_ range: Range<Int>) -> String {
    String(decoding: scanner.bytes[range], as: UTF8.self)
  }

  private mutating func startTag(_ token: MarkupScanner.Token) throws(TrackIOError) -> GPXPoint? {
    let bytes = scanner.bytes
    let qualified = token.name
    guard !qualified.isEmpty else {
      try recover(scanner.error("expected an element name after '<'", at: token.start + 1), "skipped the tag")
      return nil
    }
    var localStart = qualified.lowerBound
    for i in qualified where bytes[i] == UInt8(ascii: ":") { localStart = i + 1 }
    if !token.attributes.isEmpty { declarePrefixes(in: token.attributes) }
    if localStart > qualified.lowerBound { checkPrefix(qualified.lowerBound..<(localStart - 1), of: qualified, at: token.start) }
    var tag = Self.tag(forLocalName: bytes[localStart..<qualified.upperBound])
    let parent = open.last?.tag
    if !sawRoot {
      guard tag == .gpx else { throw scanner.error("root element is <\(text(qualified))>: expected <gpx>", at: token.start) }
      sawRoot = true
    } else if open.isEmpty {
      try recover(scanner.error("content after the end of <gpx>", at: token.start), "ignored the rest of the file")
      ended = true
      return nil
    }
    // A track, segment, route or point outside the element GPX puts it in is read as an unknown
    // element, with a located warning in either mode: its points belong to no track or route (and
    // what it holds is not warned about again).
    if tag.isStructure, parent != tag.parent {
      if parent != .misplaced { warnMisplaced(tag, at: token.start) }
      tag = .misplaced
    }
    let selfClosing = token.kind == .emptyElementTag
    let isPoint = (tag == .trkpt && parent == .trkseg) || (tag == .rtept && parent == .rte) || (tag == .wpt && parent == .gpx)
    // Attributes: only lat/lon on points and version on the root are read.
    var latitude: (value: Double, offset: Int)?
    var longitude: (value: Double, offset: Int)?
    // The first problem with the attributes (a point with one is skipped in lenient mode).
    var problem: TrackIOError?
    if isPoint || (tag == .gpx && parent == nil) {
      var i = token.attributes.lowerBound
      let end = token.attributes.upperBound
      attributes: while problem == nil {
        while i < end, MarkupScanner.isSpace(bytes[i]) { i += 1 }
        guard i < end else { break }
        let nameStart = i
        while i < end, MarkupScanner.isNameByte(bytes[i]) { i += 1 }
        let attributeName = nameStart..<i
        guard !attributeName.isEmpty else {
          problem = scanner.error("expected an attribute name", at: i)
          break attributes
        }
        while i < end, MarkupScanner.isSpace(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "=") else {
          problem = scanner.error("expected '=' after attribute \(text(attributeName))", at: i)
          break attributes
        }
        i += 1
        while i < end, MarkupScanner.isSpace(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
          problem = scanner.error("expected a quoted value for attribute \(text(attributeName))", at: i)
          break attributes
        }
        let quote = bytes[i]
        i += 1
        let valueStart = i
        while i < end, bytes[i] != quote { i += 1 }
        guard i < end else {
          problem = scanner.error("attribute value is not closed", at: valueStart - 1)
          break attributes
        }
        let valueRange = valueStart..<i
        i += 1
        let attributeBytes = bytes[attributeName]
        if isPoint && Self.isLatOrLon(attributeBytes, UInt8(ascii: "a"), UInt8(ascii: "t")) {
          guard let v = Self.number(bytes, valueRange) else {
            problem = scanner.error("lat \"\(text(valueRange))\" is not a number: expected degrees in -90...90", at: valueStart)
            break attributes
          }
          latitude = (v, valueStart)
        } else if isPoint && Self.isLatOrLon(attributeBytes, UInt8(ascii: "o"), UInt8(ascii: "n")) {
          guard let v = Self.number(bytes, valueRange) else {
            problem = scanner.error("lon \"\(text(valueRange))\" is not a number: expected degrees", at: valueStart)
            break attributes
          }
          longitude = (v, valueStart)
        } else if tag == .gpx && attributeBytes.elementsEqual("version".utf8) {
          summary.version = text(valueRange)
        }
      }
    }
    if let problem, !isPoint { try recover(problem, "ignored the attributes") }
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
      var coordinate: Coordinate?
      if problem == nil, let latitude, let longitude {
        do throws(CoordinateError) {
          coordinate = try Coordinate.reading(latitude: latitude.value, longitude: longitude.value)
        } catch {
          problem = scanner.error(error.description, at: error.component == .latitude ? latitude.offset : longitude.offset)
        }
      } else if problem == nil {
        let missing = latitude == nil ? "lat" : "lon"
        problem = scanner.error("<\(kindName)> has no \(missing) attribute: expected \(missing)=\"degrees\"", at: token.start)
      }
      guard let coordinate else {
        try recover(problem ?? scanner.error("<\(kindName)> has no position", at: token.start), "skipped the <\(kindName)>")
        break
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
      inPoint = true
    case _ where tag.isValue:
      if inPoint && !selfClosing && collecting == nil {
        collecting = tag
        value.removeAll(keepingCapacity: true)
        scanner.pin = .offset(token.start + (token.attributes.upperBound - token.start) + 1)
      }
    default:
      break
    }
    if selfClosing {
      closePrefixes()
    } else {
      let key = Self.packed(bytes, qualified)
      if key == nil { nameBytes.append(contentsOf: bytes[qualified]) }
      // Elements around points are few: located now, cheaply (forward). Points and their values
      // are located only if an error needs it (or just before their bytes are dropped, close by).
      let line: Int
      switch tag {
      case .trkpt, .rtept, .wpt: line = inPoint ? point.line : -1
      default: line = tag.isValue ? -1 : scanner.location(of: token.start).line
      }
      open.append(OpenElement(
        tag: tag, packedName: key ?? 0, nameLength: qualified.count, nameEnd: nameBytes.count, start: token.start, line: line))
    }
    return nil
  }

  // MARK: - Namespaces

  /// Records the prefixes the attributes in `range` declare (`xmlns:p="…"`), in scope from the
  /// element being opened (at depth `open.count`) until it closes.
  private mutating func declarePrefixes(in range: Range<Int>) {
    let bytes = scanner.bytes
    let xmlns = Array("xmlns:".utf8)
    var i = range.lowerBound
    while i + xmlns.count < range.upperBound {
      // An attribute name starts the range or follows a space.
      if bytes[i] == UInt8(ascii: "x"), i == range.lowerBound || MarkupScanner.isSpace(bytes[i - 1]),
        bytes[i..<(i + xmlns.count)].elementsEqual(xmlns)
      {
        var end = i + xmlns.count
        while end < range.upperBound, MarkupScanner.isNameByte(bytes[end]), bytes[end] != UInt8(ascii: ":") { end += 1 }
        if end > i + xmlns.count {
          prefixes.append((Array(bytes[(i + xmlns.count)..<end]), open.count))
          prefixKeys.append(Self.packed(bytes, (i + xmlns.count)..<end) ?? 0)
        }
        i = end
      } else {
        i += 1
      }
    }
  }

  /// Drops the prefixes declared by elements no longer open.
  @inline(__always)
  private mutating func closePrefixes() {
    while let last = prefixes.last, last.depth >= open.count {
      prefixes.removeLast()
      prefixKeys.removeLast()
    }
  }

  /// A located warning, once per prefix, when an element's prefix is not declared: the element is
  /// read by its local name all the same (so a GPX element with a stray prefix still counts).
  private mutating func checkPrefix(_ prefix: Range<Int>, of qualified: Range<Int>, at offset: Int) {
    let bytes = scanner.bytes
    let name = bytes[prefix]
    if name.elementsEqual("xml".utf8) || prefixes.contains(where: { $0.name.elementsEqual(name) }) { return }
    guard undeclaredPrefixes.insert(Array(name)).inserted else { return }
    warnings.append(
      scanner.error(
        "namespace prefix \"\(text(prefix))\" of <\(text(qualified))> is not declared (no xmlns:\(text(prefix)) on it or an element around it); "
          + "elements with this prefix are read by their local names", at: offset))
  }

  /// A located warning, once per element and parent, when `tag` opens outside the element GPX
  /// puts it in (`open.last`).
  private mutating func warnMisplaced(_ tag: Tag, at offset: Int) {
    let parent = open.last?.tag ?? .other
    let parentName = open.isEmpty ? "the document" : "<\(name(at: open.count - 1))>"
    guard misplacedWarned.insert(UInt16(tag.rawValue) << 8 | UInt16(parent.rawValue)).inserted else { return }
    let expected = tag.parent.map { "<\($0.localName)>" } ?? "no element"
    warnings.append(
      scanner.error(
        "<\(tag.localName)> inside \(parentName): GPX puts it directly inside \(expected); "
          + "ignored it and what it holds (and any other <\(tag.localName)> in \(parentName), without another warning)", at: offset))
  }

  private mutating func endTag(_ token: MarkupScanner.Token) throws(TrackIOError) -> GPXPoint? {
    guard !open.isEmpty else {
      try recover(scanner.error("</\(text(token.name))> closes nothing", at: token.start), "ignored it")
      return nil
    }
    if isName(token.name, of: open.count - 1) { return try closeTop(text: token.text) }
    let mismatch = scanner.error(
      "</\(text(token.name))> does not match <\(name(at: open.count - 1))> opened on line \(line(at: open.count - 1))",
      at: token.start)
    guard let match = open.indices.last(where: { isName(token.name, of: $0) }) else {
      try recover(mismatch, "ignored the end tag")
      return nil
    }
    try recover(mismatch, "closed \(closing(from: match))")
    var last: GPXPoint?
    var text: Range<Int>? = token.text
    while open.count > match {
      if let p = try closeTop(text: text) { last = p }
      text = nil
    }
    return last
  }

  /// Whether an attribute name is `l` + `second` + `third` ("lat" or "lon"), without the
  /// generic comparison against a `String.UTF8View` (measurably slow on this path).
  @inline(__always)
  private static func isLatOrLon(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ second: UInt8, _ third: UInt8) -> Bool {
    let i = name.startIndex
    return name.count == 3 && name.base[i] == UInt8(ascii: "l") && name.base[i + 1] == second && name.base[i + 2] == third
  }

  /// The end tags that close the open elements from stack index `index` up, innermost first.
  private func closing(from index: Int) -> String {
    stride(from: open.count - 1, through: index, by: -1).map { "</\(name(at: $0))>" }.joined()
  }

  /// Closes the innermost open element: stores its value (`text`: the value's last piece, in the
  /// scanner's bytes), returns the point it completes.
  private mutating func closeTop(text: Range<Int>?) throws(TrackIOError) -> GPXPoint? {
    guard let element = open.popLast() else { return nil }
    closePrefixes()
    let tag = element.tag
    if element.nameLength > 8 { nameBytes.removeLast(nameBytes.count - (open.last?.nameEnd ?? 0)) }
    if collecting == tag {
      collecting = nil
      let bytes = scanner.bytes
      if value.isEmpty {
        try store(tag, UnsafeBufferPointer(rebasing: bytes[text ?? 0..<0]))
      } else {
        if let text { value.append(contentsOf: bytes[text]) }
        try value.withUnsafeBufferPointer { (b) throws(TrackIOError) in try store(tag, b) }
      }
    }
    switch tag {
    case .trkseg:
      if pointsInSegment == 0 && open.last?.tag == .trk { summary.emptySegments += 1 }
    case .trkpt, .rtept, .wpt:
      if inPoint {
        inPoint = false
        return point
      }
    default:
      break
    }
    return nil
  }

  @inline(__always)
  private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
    ByteNumbers.double(UnsafeBufferPointer(rebasing: bytes[range]))
  }

  /// Parses the text of a value element into the current point.
  private mutating func store(_ tag: Tag, _ text: UnsafeBufferPointer<UInt8>) throws(TrackIOError) {
    var lo = 0
    var hi = text.count
    while lo < hi, MarkupScanner.isSpace(text[lo]) { lo += 1 }
    while hi > lo, MarkupScanner.isSpace(text[hi - 1]) { hi -= 1 }
    guard lo < hi, inPoint else { return }  // empty elements carry no value
    let trimmed = UnsafeBufferPointer(rebasing: text[lo..<hi])
    func fail(_ message: String) -> TrackIOError {
      let (line, column) = scanner.pinnedLocation()
      return TrackIOError(path: scanner.path, line: line, column: column, message: message)
    }
    func number(_ what: String) throws(TrackIOError) -> Double? {
      guard let v = ByteNumbers.double(trimmed) else {
        try recover(fail("<\(what)> \"\(String(decoding: trimmed, as: UTF8.self))\" is not a number"), "left out the value")
        return nil
      }
      return v
    }
    switch tag {
    case .time:
      guard let t = ByteNumbers.timestamp(trimmed) else {
        try recover(
          fail("<time> \"\(String(decoding: trimmed, as: UTF8.self))\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z"),
          "left out the time")
        return
      }
      point.time = t
    case .fix:
      // The point stays usable: a warning in either mode, not a recovery.
      guard Self.isFixValue(trimmed) else {
        warnings.append(fail("<fix> \"\(String(decoding: trimmed, as: UTF8.self))\" is not one of GPX's values (\(Self.fixValues.joined(separator: ", "))); the point is read without it"))
        break
      }
    case .sat:
      guard let v = try number("sat") else { break }
      guard Self.store(v, as: .sat, in: &point) else {
        try recover(fail("<sat> \"\(String(decoding: trimmed, as: UTF8.self))\" is not a satellite count: expected a whole number in 0...1000"), "left out the value")
        break
      }
    default:
      guard let v = try number(tag.localName) else { break }
      _ = Self.store(v, as: tag, in: &point)
    }
  }

  /// Stores the number `v` read from a value element into `point`; false when it is not a valid
  /// value of that element (a satellite count that is not a whole number in 0...1000).
  @inline(__always)
  static func store(_ v: Double, as tag: Tag, in point: inout GPXPoint) -> Bool {
    switch tag {
    case .ele: point.elevation = v
    case .hdop: point.horizontalDilution = v
    case .vdop: point.verticalDilution = v
    case .pdop: point.positionDilution = v
    case .speed: point.speed = v
    case .course: point.course = v
    case .hr: point.heartRate = v
    case .cad, .cadence: point.cadence = v
    case .atemp, .temp, .temperature: point.temperature = v
    case .power, .powerInWatts: point.power = v
    case .sat:
      guard v >= 0 && v <= 1_000 && v == v.rounded() else { return false }
      point.satellites = Int(v)
    default: return false
    }
    return true
  }

  /// Whether `text` is one of GPX's `fixType` values.
  static func isFixValue(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    // Compared as bytes: exporters write a `fix` on every point.
    switch text.count {
    case 2: return (text[0] == UInt8(ascii: "2") || text[0] == UInt8(ascii: "3")) && text[1] == UInt8(ascii: "d")
    case 3: return text[0] == UInt8(ascii: "p") && text[1] == UInt8(ascii: "p") && text[2] == UInt8(ascii: "s")
    case 4:
      return (text[0] == UInt8(ascii: "n") && text[1] == UInt8(ascii: "o") && text[2] == UInt8(ascii: "n") && text[3] == UInt8(ascii: "e"))
        || (text[0] == UInt8(ascii: "d") && text[1] == UInt8(ascii: "g") && text[2] == UInt8(ascii: "p") && text[3] == UInt8(ascii: "s"))
    default: return false
    }
  }

  /// GPX's `fixType` enumeration.
  static let fixValues = ["none", "2d", "3d", "dgps", "pps"]
}

// MARK: - Reading a file from its middle

extension GPXReader {
  /// Where a reader stands between two track points of a segment: its open elements and the
  /// namespace prefixes in scope. A reader started at a later track point from such a place
  /// (``init(resuming:path:from:lenient:)``) reads what the first reader would read from there,
  /// if the first reader stands in the same place when it gets there (``stands(at:)``).
  struct Place {
    fileprivate var open: [OpenElement]
    fileprivate var nameBytes: [UInt8]
    fileprivate var prefixes: [(name: [UInt8], depth: Int)]
    fileprivate var prefixKeys: [UInt64]
    fileprivate var undeclaredPrefixes: Set<[UInt8]>
    fileprivate var misplacedWarned: Set<UInt16>
  }

  /// Where the reader stands, when it is between two track points of a segment (after a track
  /// point, nothing of the next read); else nil.
  var place: Place? {
    guard sawRoot, !ended, !inPoint, collecting == nil, open.last?.tag == .trkseg, !scanner.straddlesLimit else { return nil }
    // Lines of the open elements are only for messages: a reader resuming elsewhere has no use
    // for offsets into this reader's bytes.
    var open = open
    for k in open.indices {
      if open[k].line < 0 { open[k].line = 0 }
      open[k].start = 0
    }
    return Place(open: open, nameBytes: nameBytes, prefixes: prefixes, prefixKeys: prefixKeys, undeclaredPrefixes: undeclaredPrefixes,
      misplacedWarned: misplacedWarned)
  }

  /// Whether the reader stands in `place`: the same elements open, with the same names and the
  /// same prefixes in scope, between two track points of a segment. (Undeclared prefixes warned
  /// about may differ: this reader's include the place's, and a reader from the place warns
  /// about one only when this one has not.)
  func stands(at place: Place) -> Bool {
    guard let here = self.place, here.open.count == place.open.count, here.nameBytes == place.nameBytes,
      here.prefixKeys == place.prefixKeys, here.prefixes.count == place.prefixes.count
    else { return false }
    for (a, b) in zip(here.open, place.open)
    where a.tag != b.tag || a.packedName != b.packedName || a.nameLength != b.nameLength || a.nameEnd != b.nameEnd {
      return false
    }
    for (a, b) in zip(here.prefixes, place.prefixes) where a.name != b.name || a.depth != b.depth { return false }
    return true
  }

  /// A reader of `path` from file offset `offset` on (a track point's '<'), standing in `place`:
  /// its summary counts from a track and a segment already open (``GPXSummary/tracks`` and
  /// ``GPXSummary/segments`` 1), so its points' ``GPXPoint/parent`` and ``GPXPoint/segment``
  /// count from 0 at the track and segment open there, and its lines and columns count from
  /// `offset`.
  init(resuming place: Place, path: String, from offset: Int, lenient: Bool) throws(TrackIOError) {
    try self.init(path: path, lenient: lenient, shortcut: true, from: offset)
    open = place.open
    nameBytes = place.nameBytes
    prefixes = place.prefixes
    prefixKeys = place.prefixKeys
    undeclaredPrefixes = place.undeclaredPrefixes
    misplacedWarned = place.misplacedWarned
    sawRoot = true
    summary.tracks = 1
    summary.segments = 1
  }

  /// Stops reading at file offset `offset`: ``next()`` returns nil there, without any
  /// end-of-file check, and ``place`` says whether the reader stands between two points.
  func stop(at offset: Int) throws(TrackIOError) { try scanner.stop(at: offset) }

  /// The file offset of the first byte not yet read (a regular, uncompressed file).
  var unreadFileOffset: Int { scanner.unreadFileOffset }

  /// Whether a warning or a recovery waits in ``takeWarnings()``.
  var hasWarnings: Bool { !warnings.isEmpty || !scanner.recoveries.isEmpty }

  /// Goes on past the offset given to ``stop(at:)``.
  func readPastLimit() { scanner.readPastLimit() }

  /// Whether ``next()`` returned nil at the offset given to ``stop(at:)``.
  var isStoppedAtLimit: Bool { scanner.isStoppedAtLimit }

  /// The size of the file, when it is a regular file read as stored (not compressed, not a pipe).
  var regularFileSize: Int? { scanner.regularFileSize }
}
