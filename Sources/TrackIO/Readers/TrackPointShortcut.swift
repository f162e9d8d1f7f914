import Geodesy

/// The shortcut ``GPXReader`` takes for a track point, written as GPS loggers and exporters write
/// them millions of times — plainly, or with the extensions of Garmin, Strava and others:
///
/// ```xml
/// <trkpt lat="37.7489281" lon="-122.4132807"><ele>12.5</ele><time>2024-05-01T07:00:00Z</time><hdop>1.0</hdop></trkpt>
/// <trkpt lat="37.24173816852271556854248046875" lon="-121.9723242335021495819091796875">
///   <ele>104</ele><time>2017-07-29T14:46:35.000Z</time>
///   <extensions><ns3:TrackPointExtension><ns3:atemp>21.0</ns3:atemp><ns3:hr>74</ns3:hr></ns3:TrackPointExtension></extensions>
/// </trkpt>
/// ```
///
/// Accepted: `lat` and `lon` (either order, either quote) and nothing else on the `trkpt`; inside
/// it, elements nested up to ``maximumDepth`` deep, with or without a namespace prefix that an
/// element around the point declared (`xmlns:p`), with any attributes (ignored, as the general
/// path ignores them); the values ``GPXReader`` reads (by local name, at any depth: `ele`,
/// `time`, `hr`, `atemp`, `PowerInWatts`…) holding text only; any other element's text skipped.
/// Anything else — a comment, CDATA, a processing instruction, a prefix not declared around the
/// point (even one declared inside it), a GPX structure element (`trk`,
/// `trkseg`, a point) inside the point, an end tag written other than `</name>`, a value that does
/// not parse, a `fix` outside GPX's values, a point cut by the end of the bytes at hand — makes
/// ``parse(_:from:into:dates:prefixes:)`` return nil having consumed nothing, and the reader reads
/// the point the general way, which gives the same point or the error or warning with its line
/// and column. So the shortcut changes speed, never results (tests compare both paths on every
/// fixture and on generated points of every shape).
struct TrackPointShortcut {
  /// Offset of the point's '<'.
  var tagStart: Int
  /// Offset just past its `</trkpt>`.
  var end: Int

  /// Elements nested deeper inside a point than this are left to the general path.
  static let maximumDepth = 8

  /// Parses the point starting at `start` (after optional whitespace) into `point` (whose kind,
  /// parent, segment and line the caller sets); nil when the shortcut does not apply (see the
  /// type), leaving `point` partly filled in: the caller discards it. `prefixes` are the namespace prefixes declared around the point, each packed
  /// little-endian into an integer (``GPXReader``'s `packed`; 0 for one longer than 8 bytes).
  static func parse(
    _ b: UnsafeBufferPointer<UInt8>, from start: Int, into point: inout GPXPoint, dates: inout TimestampDayCache,
    prefixes: [UInt64]
  ) -> TrackPointShortcut? {
    let n = b.count
    var i = start
    while i < n, MarkupScanner.isSpace(b[i]) { i += 1 }
    let tagStart = i
    guard i + 7 <= n, b[i] == UInt8(ascii: "<"), b[i + 1] == UInt8(ascii: "t"), b[i + 2] == UInt8(ascii: "r"),
      b[i + 3] == UInt8(ascii: "k"), b[i + 4] == UInt8(ascii: "p"), b[i + 5] == UInt8(ascii: "t"),
      MarkupScanner.isSpace(b[i + 6])
    else { return nil }
    i += 7
    var latitude: Double?
    var longitude: Double?
    while true {
      while i < n, MarkupScanner.isSpace(b[i]) { i += 1 }
      guard i + 5 <= n else { return nil }
      if b[i] == UInt8(ascii: ">") {
        i += 1
        break
      }
      guard b[i] == UInt8(ascii: "l"), b[i + 3] == UInt8(ascii: "="), b[i + 4] == UInt8(ascii: "\"") || b[i + 4] == UInt8(ascii: "'")
      else { return nil }
      let isLatitude: Bool
      if b[i + 1] == UInt8(ascii: "a") && b[i + 2] == UInt8(ascii: "t") {
        isLatitude = true
      } else if b[i + 1] == UInt8(ascii: "o") && b[i + 2] == UInt8(ascii: "n") {
        isLatitude = false
      } else {
        return nil
      }
      let quote = b[i + 4]
      i += 5
      let valueStart = i
      while i < n, b[i] != quote { i += 1 }
      guard i < n, let v = ByteNumbers.double(UnsafeBufferPointer(rebasing: b[valueStart..<i])) else { return nil }
      i += 1
      guard i < n, MarkupScanner.isSpace(b[i]) || b[i] == UInt8(ascii: ">") else { return nil }
      if isLatitude {
        guard latitude == nil else { return nil }
        latitude = v
      } else {
        guard longitude == nil else { return nil }
        longitude = v
      }
    }
    guard let latitude, let longitude, let coordinate = try? Coordinate.reading(latitude: latitude, longitude: longitude)
    else { return nil }
    point.coordinate = coordinate
    guard let end = content(b, from: i, name: (tagStart + 1)..<(tagStart + 6), depth: 1, into: &point, dates: &dates, prefixes: prefixes)
    else { return nil }
    return TrackPointShortcut(tagStart: tagStart, end: end)
  }

  /// Reads the content of the element named `b[name]` from `start` (just past its start tag)
  /// through its end tag, storing the values it holds; returns the offset past the end tag, or nil.
  private static func content(
    _ b: UnsafeBufferPointer<UInt8>, from start: Int, name: Range<Int>, depth: Int, into point: inout GPXPoint,
    dates: inout TimestampDayCache, prefixes: [UInt64]
  ) -> Int? {
    let n = b.count
    var i = start
    while true {
      // Text: skipped (values are read below, from their own elements).
      while i < n, b[i] != UInt8(ascii: "<") { i += 1 }
      guard i + 1 < n else { return nil }
      if b[i + 1] == UInt8(ascii: "/") { return endTag(b, at: i, of: name) }
      guard let tag = startTag(b, at: i, prefixes: prefixes) else { return nil }
      i = tag.end
      if tag.isEmpty { continue }
      let kind = tag.kind
      guard kind.isValue else {
        guard depth < maximumDepth,
          let after = content(b, from: i, name: tag.name, depth: depth + 1, into: &point, dates: &dates, prefixes: prefixes)
        else { return nil }
        i = after
        continue
      }
      // A value: text only, then its end tag.
      let valueStart = i
      while i < n, b[i] != UInt8(ascii: "<") { i += 1 }
      guard i + 1 < n, b[i + 1] == UInt8(ascii: "/"), let after = endTag(b, at: i, of: tag.name) else { return nil }
      var lo = valueStart
      var hi = i
      i = after
      // Trimmed as the general path trims; an empty value leaves the point as it is.
      while lo < hi, MarkupScanner.isSpace(b[lo]) { lo += 1 }
      while hi > lo, MarkupScanner.isSpace(b[hi - 1]) { hi -= 1 }
      guard lo < hi else { continue }
      let text = UnsafeBufferPointer(rebasing: b[lo..<hi])
      switch kind {
      case .time:
        guard let t = dates.timestamp(text) else { return nil }
        point.time = t
      case .fix:
        guard GPXReader.isFixValue(text) else { return nil }
      default:
        guard let v = ByteNumbers.double(text), GPXReader.store(v, as: kind, in: &point) else { return nil }
      }
    }
  }

  /// The offset past `</name>` at `i` (a '<' followed by '/'), written exactly so; else nil.
  @inline(__always)
  private static func endTag(_ b: UnsafeBufferPointer<UInt8>, at i: Int, of name: Range<Int>) -> Int? {
    let length = name.count
    guard i + length + 3 <= b.count, b[i + 2 + length] == UInt8(ascii: ">") else { return nil }
    var k = 0
    while k < length {
      guard b[i + 2 + k] == b[name.lowerBound + k] else { return nil }
      k += 1
    }
    return i + length + 3
  }

  /// A start tag inside a point, as the scanner would read it.
  private struct StartTag {
    var name: Range<Int>
    var kind: GPXReader.Tag
    /// Offset past its '>'.
    var end: Int
    /// Whether it ends with '/>' (an empty element: no value).
    var isEmpty: Bool
  }

  /// The start tag at `i` (a '<'), or nil when the general path must read it: not a start tag,
  /// a structure element, an undeclared prefix, a namespace declaration, a tag not closed in
  /// the bytes at hand.
  @inline(__always)
  private static func startTag(_ b: UnsafeBufferPointer<UInt8>, at i: Int, prefixes: [UInt64]) -> StartTag? {
    let n = b.count
    let nameStart = i + 1
    var nameEnd = nameStart
    // The common case first: a lowercase name without prefix or attributes (`<ele>`, `<time>`).
    while nameEnd < n, b[nameEnd] >= UInt8(ascii: "a"), b[nameEnd] <= UInt8(ascii: "z") { nameEnd += 1 }
    if nameEnd < n, nameEnd > nameStart, b[nameEnd] == UInt8(ascii: ">") {
      let kind = GPXReader.tag(forLocalName: b[nameStart..<nameEnd])
      guard !kind.isStructure else { return nil }
      return StartTag(name: nameStart..<nameEnd, kind: kind, end: nameEnd + 1, isEmpty: false)
    }
    var colon = -1
    while nameEnd < n, MarkupScanner.isNameByte(b[nameEnd]) {
      if b[nameEnd] == UInt8(ascii: ":") { colon = nameEnd }
      nameEnd += 1
    }
    guard nameEnd > nameStart, nameEnd < n else { return nil }
    if colon >= 0 {
      let length = colon - nameStart
      guard length > 0, length <= 8 else { return nil }
      let isXML = length == 3 && b[nameStart] == UInt8(ascii: "x") && b[nameStart + 1] == UInt8(ascii: "m") && b[nameStart + 2] == UInt8(ascii: "l")
      guard isXML || isDeclared(b, nameStart..<colon, prefixes) else { return nil }
    }
    let kind = GPXReader.tag(forLocalName: b[(colon >= 0 ? colon + 1 : nameStart)..<nameEnd])
    guard !kind.isStructure else { return nil }
    // The tag ends at the first '>' outside quotes; its attributes are skipped. (A namespace
    // declaration among them can only declare more prefixes for the elements inside: one the
    // shortcut finds declared around the point, the general path finds declared too.)
    var k = nameEnd
    var quote: UInt8 = 0
    while true {
      guard k < n else { return nil }
      let c = b[k]
      if quote != 0 {
        if c == quote { quote = 0 }
      } else if c == UInt8(ascii: ">") {
        break
      } else if c == UInt8(ascii: "<") {
        return nil
      } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
        quote = c
      }
      k += 1
    }
    let isEmpty = k > nameEnd && b[k - 1] == UInt8(ascii: "/")
    return StartTag(name: nameStart..<nameEnd, kind: kind, end: k + 1, isEmpty: isEmpty)
  }

  /// Whether the prefix `b[range]` (1 to 8 bytes) is among `prefixes`.
  @inline(__always)
  private static func isDeclared(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ prefixes: [UInt64]) -> Bool {
    var key: UInt64 = 0
    var shift: UInt64 = 0
    for k in range {
      key |= UInt64(b[k]) << shift
      shift += 8
    }
    for declared in prefixes where declared == key { return true }
    return false
  }
}

/// ``ByteNumbers/timestamp(_:)`` for a stream of times that mostly share their date: the days of
/// the last `YYYY-MM-DD` seen are kept, so a time written `YYYY-MM-DDTHH:MM:SS[.fraction]Z`
/// on the same date costs its time of day only. Any other form goes to the general parser; the
/// result is the same to the bit.
struct TimestampDayCache {
  private var dateKey: UInt64 = 0
  private var dateKeyTail: UInt16 = 0
  private var days = 0
  private var isValid = false

  mutating func timestamp(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
    let n = b.count
    guard n >= 20, b[10] == UInt8(ascii: "T"), b[n - 1] == UInt8(ascii: "Z"), n == 20 || b[19] == UInt8(ascii: ".")
    else { return ByteNumbers.timestamp(b) }
    let raw = UnsafeRawPointer(b.baseAddress!)
    let key = raw.loadUnaligned(as: UInt64.self)
    let tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
    if !isValid || key != dateKey || tail != dateKeyTail {
      // A new date: validated and converted by the general parser, on this time's date at 00:00:00.
      guard let midnight = Self.midnight(b) else { return ByteNumbers.timestamp(b) }
      dateKey = key
      dateKeyTail = tail
      days = midnight
      isValid = true
    }
    @inline(__always) func digit(_ k: Int) -> Int? {
      let d = Int(b[k]) &- 48
      return d >= 0 && d <= 9 ? d : nil
    }
    guard let h1 = digit(11), let h2 = digit(12), b[13] == UInt8(ascii: ":"), let m1 = digit(14), let m2 = digit(15),
      b[16] == UInt8(ascii: ":"), let s1 = digit(17), let s2 = digit(18)
    else { return nil }
    let hour = h1 * 10 + h2
    let minute = m1 * 10 + m2
    let second = s1 * 10 + s2
    guard hour <= 23, minute <= 59, second <= 60 else { return nil }
    var fraction = 0.0
    if n > 20 {
      // The same digit loop as the general parser, so that the sum rounds the same way.
      var scale = 0.1
      var i = 20
      while i < n - 1 {
        guard let d = digit(i) else { return nil }
        fraction += Double(d) * scale
        scale /= 10
        i += 1
      }
      guard n - 1 > 20 else { return nil }
    }
    return Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
  }

  /// Days since the epoch of the date in the first 10 bytes, validated by the general parser.
  private static func midnight(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
    var text: (UInt64, UInt64, UInt32) = (0, 0, 0)
    return withUnsafeMutableBytes(of: &text) { raw -> Int? in
      let scratch = raw.bindMemory(to: UInt8.self)
      for k in 0..<10 { scratch[k] = b[k] }
      for (k, c) in "T00:00:00Z".utf8.enumerated() { scratch[10 + k] = c }
      guard let seconds = ByteNumbers.timestamp(UnsafeBufferPointer(rebasing: scratch[0..<20])) else { return nil }
      return Int(seconds) / 86_400  // a whole number of days: exact
    }
  }
}
