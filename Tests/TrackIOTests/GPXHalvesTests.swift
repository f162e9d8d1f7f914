import Foundation
import SeededRandom
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// A GPX file read in two halves at once gives what reading it in order gives: the same
/// statistics to the bit, the same warnings and the same error, wherever the second half starts.
@Suite("GPX statistics read in two halves")
struct GPXHalvesTests {
  /// What a read gives.
  struct Outcome {
    var statistics: TrackStatistics?
    var error: String?
    var warnings: [String] = []
    var joined = false
  }

  /// The reference: every point in order, on one thread, straight from the reader.
  static func inOrder(_ path: String, lenient: Bool) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      var reader = try GPXReader(path: path, lenient: lenient)
      var statistics = TrackStatistics(format: .gpx)
      while let point = try reader.next() {
        statistics.add(point)
        // Strict reading gives its warnings once the file is read, as `info` does.
        if lenient { outcome.warnings += reader.takeWarnings().map(\.description) }
      }
      outcome.warnings += reader.takeWarnings().map(\.description)
      statistics.finish(reader.summary)
      outcome.statistics = statistics
    } catch {
      outcome.error = error.description
    }
    return outcome
  }

  static func inHalves(_ path: String, lenient: Bool, splitNear: Int) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      let (statistics, joined) = try TrackStatistics.readGPX(
        path: path, lenient: lenient, warning: { outcome.warnings.append($0.description) }, splitNear: splitNear)
      outcome.statistics = statistics
      outcome.joined = joined
    } catch {
      outcome.error = error.description
    }
    return outcome
  }

  /// Whether `a` and `b` agree, to the bit: the sums too (``CompensatedSum`` rounds the exact sum
  /// of the terms, however they are grouped).
  static func agree(_ a: TrackStatistics, _ b: TrackStatistics) -> Bool {
    func close(_ x: Double?, _ y: Double?) -> Bool { x?.bitPattern == y?.bitPattern }
    func readings(_ x: TrackStatistics.Readings, _ y: TrackStatistics.Readings) -> Bool {
      x.points == y.points && x.minimum == y.minimum && x.maximum == y.maximum && close(x.mean, y.mean)
    }
    guard a.perTrack.count == b.perTrack.count else { return false }
    for (x, y) in zip(a.perTrack, b.perTrack) {
      guard x.segments == y.segments, x.points == y.points, x.pointsWithoutTime == y.pointsWithoutTime,
        close(x.length2D, y.length2D), close(x.duration, y.duration), x.firstTime == y.firstTime, x.lastTime == y.lastTime
      else { return false }
    }
    return a.format == b.format && a.version == b.version && a.tracks == b.tracks && a.segments == b.segments
      && a.emptySegments == b.emptySegments && a.trackPoints == b.trackPoints
      && a.trackPointsWithoutTime == b.trackPointsWithoutTime && a.routes == b.routes && a.routePoints == b.routePoints
      && a.waypoints == b.waypoints && a.firstTime == b.firstTime && a.lastTime == b.lastTime
      && a.earliestTime == b.earliestTime && a.latestTime == b.latestTime && a.trackPointsAtZero == b.trackPointsAtZero
      && a.trackPointsBackInTime == b.trackPointsBackInTime && a.bounds == b.bounds && close(a.length2D, b.length2D)
      && close(a.duration, b.duration) && readings(a.heartRate, b.heartRate) && readings(a.cadence, b.cadence)
      && readings(a.power, b.power) && readings(a.temperature, b.temperature)
  }

  /// Offsets where a second half may be asked to start: each '<' of the file (it starts at the
  /// first `<trkpt` from there), at most `most` of them spread over the file, and the file's end.
  static func starts(_ text: String, most: Int = .max) -> [Int] {
    let bytes = Array(text.utf8)
    let all = bytes.indices.filter { bytes[$0] == UInt8(ascii: "<") }
    let step = max(1, all.count / most)
    return Swift.stride(from: 0, to: all.count, by: step).map { all[$0] } + [bytes.count]
  }

  /// Every place to split each generated file: reading in halves agrees with reading in order.
  /// Splits land between points, in other segments and tracks, in comments and CDATA that hold
  /// `<trkpt `, after routes and waypoints; damaged files add errors, recoveries and warnings on
  /// either side.
  @Test(arguments: [(UInt64(1), false), (2, false), (3, false), (4, true), (5, true), (6, true)])
  func halvesAgreeWithReadingInOrder(seed: UInt64, damaged: Bool) throws {
    let folder = try TemporaryFolder()
    var joined = 0
    var readAgain = 0
    for k in 0..<6 {
      var generator = StructuredGPX(seed: seed &* 1_000 &+ UInt64(k), damage: damaged)
      let text = generator.document()
      let path = try folder.file("f\(k).gpx", containing: text)
      for lenient in [false, true] {
        let reference = Self.inOrder(path, lenient: lenient)
        for start in Self.starts(text, most: 60) {
          let halves = Self.inHalves(path, lenient: lenient, splitNear: start)
          #expect(halves.error == reference.error, "seed \(seed) file \(k) lenient \(lenient) from \(start)")
          #expect(halves.warnings == reference.warnings, "seed \(seed) file \(k) lenient \(lenient) from \(start)")
          if let a = halves.statistics, let b = reference.statistics {
            #expect(Self.agree(a, b), "seed \(seed) file \(k) lenient \(lenient) from \(start):\n\(a)\n\(b)")
          }
          if halves.joined { joined += 1 } else { readAgain += 1 }
        }
      }
    }
    // Both ways are taken: halves joined, and halves read again in order.
    #expect(joined > (damaged ? 20 : 100) && readAgain > 50, "joined \(joined), read again \(readAgain)")
  }

  /// A file with a byte-order mark, CRLF lines and a point split from the next by a comment
  /// holding a track point: the halves join only where the reader stands between points.
  @Test func byteOrderMarkAndCommentedPoints() throws {
    let folder = try TemporaryFolder()
    let text = "\u{FEFF}<gpx version=\"1.1\">\r\n<trk><trkseg>\r\n"
      + (0..<40).map { k in
        "<trkpt lat=\"\(Double(k) * 0.001)\" lon=\"1\"><time>2024-05-01T07:00:\(String(format: "%02d", k))Z</time></trkpt>\r\n"
          + (k % 7 == 3 ? "<!-- <trkpt lat=\"50\" lon=\"50\"></trkpt> -->\r\n" : "")
      }.joined() + "</trkseg></trk></gpx>\r\n"
    let path = try folder.file("bom.gpx", containing: text)
    let reference = Self.inOrder(path, lenient: false)
    let statistics = try #require(reference.statistics)
    #expect(statistics.trackPoints == 40 && statistics.bounds?.maxLatitude == 0.039)
    var joined = 0
    for start in Self.starts(text) {
      let halves = Self.inHalves(path, lenient: false, splitNear: start)
      let read = try #require(halves.statistics, "from \(start)")
      #expect(halves.error == nil && Self.agree(read, statistics), "from \(start)")
      if halves.joined { joined += 1 }
    }
    #expect(joined >= 30)
  }

  /// A second half that would start where a prefix the first segment declared is not in scope
  /// is read in order: its reader would not warn about the undeclared prefix, as reading in
  /// order does.
  @Test func prefixesInScopeMustBeTheSame() throws {
    let folder = try TemporaryFolder()
    func points(_ count: Int, hr: Bool) -> String {
      (0..<count).map { k in
        "<trkpt lat=\"\(Double(k) * 0.001)\" lon=\"2\"><time>2024-05-01T07:00:\(String(format: "%02d", k))Z</time>"
          + (hr ? "<extensions><q:hr>\(100 + k)</q:hr></extensions>" : "") + "</trkpt>\n"
      }.joined()
    }
    let first = "<gpx version=\"1.1\">\n<trk xmlns:q=\"urn:q\"><trkseg>\n" + points(20, hr: true) + "</trkseg></trk>\n"
    let text = first + "<trk><trkseg>\n" + points(20, hr: true) + "</trkseg></trk></gpx>\n"
    let path = try folder.file("prefixes.gpx", containing: text)
    let reference = Self.inOrder(path, lenient: false)
    #expect(reference.warnings.count == 1 && reference.warnings[0].contains("prefix \"q\""))
    for start in Self.starts(text) {
      let halves = Self.inHalves(path, lenient: false, splitNear: start)
      #expect(halves.warnings == reference.warnings, "from \(start)")
      #expect(Self.agree(try #require(halves.statistics), try #require(reference.statistics)), "from \(start)")
      // From the first track, the second half's reader warns (so it is read again); from the
      // second, its reader would not, and must not be taken.
      #expect(!halves.joined, "from \(start)")
    }
  }

  /// A file of 20 MB takes the halves without being asked (``TrackStatistics/halvesThreshold``),
  /// and the CLI-facing reader gives what reading in order gives.
  @Test func largeFilesAreReadInHalves() throws {
    let folder = try TemporaryFolder()
    var generator = ExportedGPX(seed: 77, damage: false)
    let text = generator.document(points: 60_000)
    #expect(text.utf8.count > TrackStatistics.halvesThreshold)
    let path = try folder.file("large.gpx", containing: text)
    let halves = try TrackStatistics.readGPX(path: path, lenient: false, warning: { _ in })
    #expect(halves.halvesJoined)
    let reference = try #require(Self.inOrder(path, lenient: false).statistics)
    #expect(Self.agree(halves.statistics, reference))
    #expect(try TrackStatistics.read(path: path).trackPoints == 60_000)
  }
}

/// GPX files of every structure the reader knows: metadata, waypoints and routes between
/// tracks; tracks of several segments, empty and self-closing ones among them; points with and
/// without times (some earlier than the one before), at 0°, 0°, with extensions; comments and
/// CDATA holding `<trkpt ` text; `trkpt` elements that are not points (in a route, in
/// extensions); tracks that declare a prefix, segments written with one. With `damage`, now and then a value, coordinate or tag that is
/// wrong, an undeclared prefix, or a file cut short (``ExportedGPX``'s damage, and more).
struct StructuredGPX {
  var points: ExportedGPX
  /// Points with ``ExportedGPX``'s damage, now and then (damaging every point would leave no
  /// stretch whole).
  var damagedPoints: ExportedGPX
  let damage: Bool
  /// Damaged points and markup still to write: one or two in a file, so that most files keep a
  /// whole stretch; or the file's end damaged instead.
  var damageLeft: Int
  let damagedEnd: Bool

  init(seed: UInt64, damage: Bool) {
    points = ExportedGPX(seed: seed, damage: false)
    damagedPoints = ExportedGPX(seed: ~seed, damage: true)
    // Room for times to go back.
    points.second = 10_000
    self.damage = damage
    let end = points.chance(0.4)
    let inner = 1 + Int(points.rng.next(below: 2))
    damagedEnd = damage && end
    damageLeft = damage && !end ? inner : 0
  }

  mutating func chance(_ p: Double) -> Bool { points.chance(p) }

  mutating func plainPoint(_ name: String = "trkpt") -> String {
    let lat = points.chance(0.05) ? "0" : points.number(-60...60)
    let lon = lat == "0" ? "0" : points.number(-179...179)
    // A prefix only some tracks declare.
    if chance(0.03) { return "<\(name) lat=\"\(lat)\" lon=\"\(lon)\"><extensions><q:hr>7</q:hr></extensions></\(name)>" }
    switch points.rng.next(below: 3) {
    case 0: return "<\(name) lat=\"\(lat)\" lon=\"\(lon)\"/>"
    case 1: return "<\(name) lat=\"\(lat)\" lon=\"\(lon)\"><ele>12</ele></\(name)>"
    default: return "<\(name) lat=\"\(lat)\" lon=\"\(lon)\"><time>\(points.time())</time></\(name)>"
    }
  }

  mutating func trackPoint() -> String {
    if chance(0.1) { points.second -= 5 + Int(points.rng.next(below: 20)) }
    if damageLeft > 0 && chance(0.02) {
      damageLeft -= 1
      damagedPoints.second = points.second
      defer { points.second = damagedPoints.second }
      return damagedPoints.point()
    }
    return chance(0.2) ? plainPoint() : points.point()
  }

  mutating func between() -> String {
    let kind = points.rng.next(below: damageLeft > 0 ? 60 : 12)
    let damaging = damageLeft > 0 && (2...4).contains(kind)
    if damaging { damageLeft -= 1 }
    switch kind {
    case 0: return "<!-- <trkpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt> -->"
    case 1: return "<desc><![CDATA[ <trkpt lat=\"3\" lon=\"4\"></trkpt> ]]></desc>"
    case 2 where damaging: return "<trkpt lat=\"x\" lon=\"1\"></trkpt>"
    case 3 where damaging: return "</ghost>"
    case 4 where damaging: return "<gpxq:note>n</gpxq:note>"
    default: return ""
    }
  }

  mutating func segment() -> String {
    switch points.rng.next(below: 8) {
    case 0: return "<trkseg/>"
    case 1: return "<trkseg></trkseg>"
    default:
      let count = Int(points.rng.next(below: 30))
      var text = "<trkseg>\n"
      for _ in 0..<count { text += trackPoint() + points.space() + between() + "\n" }
      return text + "</trkseg>"
    }
  }

  mutating func document() -> String {
    var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\" xmlns:gpxtpx=\"urn:a\" xmlns:ns3=\"urn:b\" xmlns:p=\"urn:c\" xmlns:pwr=\"urn:d\" xmlns:gpxdata=\"urn:e\" xmlns:gpxx=\"urn:f\">\n"
    if chance(0.5) { text += "<metadata><name>m</name></metadata>\n" }
    for track in 0..<(1 + Int(points.rng.next(below: 4))) {
      if chance(0.3) { text += plainPoint("wpt") + "\n" }
      if chance(0.2) { text += "<rte>" + plainPoint("rtept") + plainPoint("rtept") + "</rte>\n" }
      // Track points where they are not points, which a second half started there would take.
      if chance(0.2) { text += "<rte>" + plainPoint() + "\n" + plainPoint("rtept") + "</rte>\n" }
      if chance(0.2) { text += "<extensions>\n" + plainPoint() + "\n" + plainPoint() + "</extensions>\n" }
      // A track that declares a prefix of its own, or writes its segments with a prefix; not the
      // first, whose first segment is where the second half's reader stands (a file whose first
      // segment is unlike the one at the split is read in order, and tested so all the same).
      switch track > 0 ? points.rng.next(below: 6) : 5 {
      case 0, 2: text += "<trk xmlns:q=\"urn:q\"><name>t</name>\n"
      case 1: text += "<trk><extensions><trkseg>\n" + plainPoint() + "\n</trkseg></extensions>\n"
      default: text += "<trk><name>t</name>\n"
      }
      for _ in 0..<(1 + Int(points.rng.next(below: 4))) {
        text += track > 0 && chance(0.1) ? "<g:trkseg xmlns:g=\"urn:g\">\n" + plainPoint() + "\n" + plainPoint() + "</g:trkseg>\n" : segment() + "\n"
      }
      text += "</trk>\n"
    }
    if chance(0.3) { text += plainPoint("wpt") + "\n" }
    text += "</gpx>\n"
    if damagedEnd {
      if chance(0.6) {
        text = String(text.prefix(Int(points.rng.next(below: UInt64(text.count)))))
      } else {
        text += "<trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk>"
      }
    }
    return text
  }
}
