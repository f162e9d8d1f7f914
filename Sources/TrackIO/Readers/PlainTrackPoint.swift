import Geodesy

/// The shortcut ``GPXReader`` takes for a track point written plainly — the shape GPS loggers
/// and exporters write millions of times:
///
/// ```xml
/// <trkpt lat="37.7489281" lon="-122.4132807"><ele>12.5</ele><time>2024-05-01T07:00:00Z</time><hdop>1.0</hdop></trkpt>
/// ```
///
/// Whitespace may surround the point and its children. Accepted: `lat` and `lon` (either order,
/// either quote) and nothing else on the `trkpt`; children `ele`, `time`, `hdop`, `vdop`, `pdop`,
/// `sat`, `speed`, `course` without prefix or attributes, each holding text only. Anything else —
/// another attribute or child, a namespace prefix, a comment, CDATA, an entity, a value that does
/// not parse, a point cut by the end of the bytes at hand — makes ``parse(_:from:into:dates:)``
/// return nil having changed nothing, and the reader reads the point the general way, which
/// gives the same point or the error with its line and column. So the shortcut changes speed,
/// never results (tests compare both paths on every fixture).
struct PlainTrackPoint {
  /// Offset of the point's '<'.
  var tagStart: Int
  /// Offset just past its `</trkpt>`.
  var end: Int

  /// Parses the point starting at `start` (after optional whitespace) into `point` (whose kind,
  /// parent, segment and line the caller sets); nil when the point is not plain (see the type).
  static func parse(
    _ b: UnsafeBufferPointer<UInt8>, from start: Int, into point: inout GPXPoint, dates: inout TimestampDayCache
  ) -> PlainTrackPoint? {
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
    while true {
      while i < n, MarkupScanner.isSpace(b[i]) { i += 1 }
      guard i + 8 <= n, b[i] == UInt8(ascii: "<") else { return nil }
      if b[i + 1] == UInt8(ascii: "/") {
        guard b[i + 2] == UInt8(ascii: "t"), b[i + 3] == UInt8(ascii: "r"), b[i + 4] == UInt8(ascii: "k"),
          b[i + 5] == UInt8(ascii: "p"), b[i + 6] == UInt8(ascii: "t"), b[i + 7] == UInt8(ascii: ">")
        else { return nil }
        return PlainTrackPoint(tagStart: tagStart, end: i + 8)
      }
      let nameStart = i + 1
      var nameEnd = nameStart
      while nameEnd < n, b[nameEnd] >= UInt8(ascii: "a"), b[nameEnd] <= UInt8(ascii: "z") { nameEnd += 1 }
      guard nameEnd < n, b[nameEnd] == UInt8(ascii: ">") else { return nil }
      let child = GPXReader.tag(forLocalName: b[nameStart..<nameEnd])
      switch child {
      case .ele, .time, .hdop, .vdop, .pdop, .sat, .speed, .course: break
      default: return nil
      }
      let valueStart = nameEnd + 1
      var valueEnd = valueStart
      while valueEnd < n, b[valueEnd] != UInt8(ascii: "<") { valueEnd += 1 }
      // The end tag: "</" + the same name + ">".
      let nameLength = nameEnd - nameStart
      guard valueEnd + nameLength + 3 <= n, b[valueEnd + 1] == UInt8(ascii: "/"),
        b[valueEnd + 2 + nameLength] == UInt8(ascii: ">")
      else { return nil }
      for k in 0..<nameLength where b[valueEnd + 2 + k] != b[nameStart + k] { return nil }
      i = valueEnd + nameLength + 3
      // Trimmed as the general path trims; an empty value leaves the point as it is.
      var lo = valueStart
      var hi = valueEnd
      while lo < hi, MarkupScanner.isSpace(b[lo]) { lo += 1 }
      while hi > lo, MarkupScanner.isSpace(b[hi - 1]) { hi -= 1 }
      guard lo < hi else { continue }
      let text = UnsafeBufferPointer(rebasing: b[lo..<hi])
      if child == .time {
        guard let t = dates.timestamp(text) else { return nil }
        point.time = t
        continue
      }
      guard let v = ByteNumbers.double(text) else { return nil }
      switch child {
      case .ele: point.elevation = v
      case .hdop: point.horizontalDilution = v
      case .vdop: point.verticalDilution = v
      case .pdop: point.positionDilution = v
      case .speed: point.speed = v
      case .course: point.course = v
      case .sat:
        guard v >= 0 && v <= 1_000 && v == v.rounded() else { return nil }
        point.satellites = Int(v)
      default: return nil
      }
    }
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
