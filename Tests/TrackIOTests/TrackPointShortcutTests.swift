import Foundation
import SeededRandom
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// The track point shortcut changes speed, never results: every file reads to the same
/// points, summary and error (message, line, column) with and without it.
@Suite("GPX track point shortcut")
struct TrackPointShortcutTests {
  /// Everything a read gives: the points, the summary and the error or warnings.
  struct Outcome: Equatable {
    var points: [GPXPoint] = []
    var summary = ""
    var error: String?
    var warnings: [String] = []
  }

  static func read(_ path: String, shortcut: Bool, lenient: Bool = false) -> Outcome {
    var outcome = Outcome()
    do throws(TrackIOError) {
      var reader = try GPXReader(path: path, lenient: lenient, shortcut: shortcut)
      while let p = try reader.next() { outcome.points.append(p) }
      outcome.summary = "\(reader.summary)"
      outcome.warnings = reader.takeWarnings().map(\.description)
    } catch {
      outcome.error = error.description
    }
    return outcome
  }

  static let fixtures: [String] = {
    let root = FixtureFiles.url("gpx")
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    return files.filter { $0.pathExtension == "gpx" }.map { String($0.path.dropFirst(root.path.count + 1)) }.sorted()
  }()

  @Test func everyFixtureIsCovered() {
    #expect(Self.fixtures.count >= 38)
  }

  @Test(arguments: fixtures)
  func fixtureReadsTheSameBothWays(_ file: String) {
    let path = FixtureFiles.url("gpx/" + file).path
    #expect(Self.read(path, shortcut: true) == Self.read(path, shortcut: false))
    #expect(Self.read(path, shortcut: true, lenient: true) == Self.read(path, shortcut: false, lenient: true))
  }

  static func document(_ points: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="urn:tpx" xmlns:p="urn:p" xmlns:gpxdata="urn:data">
      <trk><trkseg>
    \(points)
      </trkseg></trk>
    </gpx>

    """
  }

  /// Plain points, points the shortcut leaves to the general path, and damaged points: the same
  /// outcome both ways, strict and lenient.
  @Test(arguments: [
    // Plain, with every child it takes, either quote, either attribute order, spacing, new dates.
    #"<trkpt lat="1.5" lon="2.5"><ele>3</ele><time>2024-05-01T07:00:00Z</time><hdop>1.0</hdop></trkpt>"#,
    #"<trkpt lon='2.5'  lat='1.5' >  <time>2024-02-29T23:59:60.25Z</time>\#n<sat>7</sat><vdop>2</vdop><pdop>3</pdop><speed>4</speed><course>5</course></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-05-01T07:00:00Z</time></trkpt><trkpt lat="1" lon="2"><time>2024-05-02T00:00:00.5Z</time></trkpt><trkpt lat="1" lon="2"><time>1969-12-31T23:59:59Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time> 2024-05-01T07:00:00+02:00 </time><ele></ele><ele> 7 </ele></trkpt>"#,
    #"<trkpt lat="1" lon="200"><time>2024-05-01 07:00:00Z</time></trkpt>"#,
    // Extensions and other elements: prefixed values read by local name at any depth, unknown
    // elements skipped with their attributes and text, empty elements, later values winning.
    #"<trkpt lat="1" lon="2"><name>x &amp; y</name><extensions><power>250</power><p:PowerInWatts a='>'>251</p:PowerInWatts><Temperature/></extensions></trkpt>"#,
    #"<trkpt lat="1" lon="2"><speed>1</speed><extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>2</gpxtpx:speed><gpxtpx:atemp> -3.5 </gpxtpx:atemp><gpxtpx:cad></gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>"#,
    #"<trkpt lat="1" lon="2"><extensions><gpxdata:temp>20</gpxdata:temp><gpxdata:cadence>90</gpxdata:cadence><a><b><c><d><e><f><g><hr>1</hr></g></f></e></d></c></b></a></extensions></trkpt>"#,
    // Left to the general path.
    #"<trkpt lat="1" lon="2"/><trkpt lat="1" lon="2"><name>x</name><trk><trkseg/></trk></trkpt>"#,
    #"<trkpt lat="1" lon="2"><extensions><undeclared:TrackPointExtension><undeclared:hr>120</undeclared:hr></undeclared:TrackPointExtension></extensions></trkpt>"#,
    #"<trkpt lat="1" lon="2"><extensions><q:x xmlns:q="urn:q"><q:hr>120</q:hr></q:x><q:hr>7</q:hr><x a="xmlns:gpxtpx"/></extensions></trkpt>"#,
    #"<trkpt lat="1" lon="2"><extensions><a><b><c><d><e><f><g><h><hr>1</hr></h></g></f></e></d></c></b></a></extensions></trkpt>"#,
    #"<trkpt lat="1" lon="2"><fix>4d</fix><fix>3d</fix><xml:hr>3</xml:hr><:hr>4</:hr></trkpt>"#,
    #"<trkpt lat="1" lon="2" extra="x"><ele>1<!-- c -->2</ele><time><![CDATA[2024-05-01T07:00:00Z]]></time></trkpt>"#,
    #"<trkpt lat = "1" lon="2"><ele >1</ele ><gpx:ele>2</gpx:ele></trkpt>"#,
    // Damaged: errors (strict) and recoveries (lenient) located the same way.
    #"<trkpt lat="91" lon="2"><time>2024-05-01T07:00:00Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-13-01T07:00:00Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-05-01T24:00:00Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><time>2024-05-01T07:00:00.Z</time></trkpt>"#,
    #"<trkpt lat="1" lon="2"><ele>high</ele><sat>2.5</sat></trkpt>"#,
    #"<trkpt lat="x" lon="2"></trkpt><trkpt lat="1" lat="1" lon="2"></trkpt><trkpt lon="2"></trkpt>"#,
    #"<trkpt lat="1" lon="2"><ele>1</elevation></trkpt>"#,
    #"<trkpt lat="1" lon="2"><ele>1</ele>"#,
  ])
  func craftedPointsReadTheSameBothWays(_ points: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("t.gpx", containing: Self.document(points))
    let strict = Self.read(path, shortcut: true)
    #expect(strict == Self.read(path, shortcut: false))
    #expect(Self.read(path, shortcut: true, lenient: true) == Self.read(path, shortcut: false, lenient: true))
  }

  /// A long file: the shortcut crosses read-ahead chunks and buffer compaction (points cut by a
  /// chunk boundary are finished the general way) and still reads every point the same.
  @Test func longFileReadsTheSameBothWays() throws {
    var text = ""
    for k in 0..<30_000 {
      let second = k % 60
      let minute = (k / 60) % 60
      let hour = k / 3600
      let time = "2024-05-01T\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):\(second < 10 ? "0" : "")\(second)Z"
      text += "    <trkpt lat=\"\(Double(k % 9_000) / 100)\" lon=\"-\(Double(k) / 1000)\"><ele>\(k % 500)</ele>"
      text += "<time>\(time)</time><hdop>\(Double(k % 20) / 10)</hdop></trkpt>\n"
    }
    let folder = try TemporaryFolder()
    let path = try folder.file("long.gpx", containing: Self.document(text))
    let fast = Self.read(path, shortcut: true)
    #expect(fast.points.count == 30_000 && fast.error == nil)
    #expect(fast == Self.read(path, shortcut: false))
  }

  /// Points of every shape real exports write (and damaged ones), generated: the same outcome
  /// both ways, strict and lenient.
  @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
  func generatedPointsReadTheSameBothWays(seed: UInt64) throws {
    var generator = ExportedGPX(seed: seed, damage: true)
    let folder = try TemporaryFolder()
    for k in 0..<20 {
      let path = try folder.file("g\(k).gpx", containing: generator.document(points: 200))
      #expect(Self.read(path, shortcut: true) == Self.read(path, shortcut: false), "seed \(seed) file \(k)")
      #expect(Self.read(path, shortcut: true, lenient: true) == Self.read(path, shortcut: false, lenient: true), "seed \(seed) file \(k)")
    }
  }

  /// Undamaged exports of every style take the shortcut for every track point (what makes them
  /// fast), and their sensor values arrive on the points.
  @Test(arguments: [UInt64(11), 12, 13])
  func exportsTakeTheShortcut(seed: UInt64) throws {
    var generator = ExportedGPX(seed: seed, damage: false)
    let folder = try TemporaryFolder()
    for k in 0..<10 {
      let path = try folder.file("e\(k).gpx", containing: generator.document(points: 300))
      var reader = try GPXReader(path: path, lenient: false, shortcut: true)
      let points = try reader.readAll()
      #expect(points.count == 300 && reader.pointsByShortcut == 300, "seed \(seed) file \(k): \(reader.pointsByShortcut) of \(points.count)")
      #expect(points.contains { $0.heartRate != nil || $0.power != nil || $0.temperature != nil || $0.cadence != nil })
    }
  }

  /// A point fits the 128 bytes a copy does inline (points are copied on the reading hot path).
  @Test func pointIsAtMost128Bytes() {
    #expect(MemoryLayout<GPXPoint>.size <= 128)
  }

  /// `fix` values compared as bytes: the same answer as GPX's enumeration on every short string.
  @Test func fixValuesAreRecognisedAsBytes() {
    let alphabet = Array("23dgpsnoex".utf8)
    var texts: [[UInt8]] = [[]]
    for length in 1...4 {
      texts += texts.filter { $0.count == length - 1 }.flatMap { prefix in alphabet.map { prefix + [$0] } }
    }
    for text in texts {
      let expected = GPXReader.fixValues.contains { Array($0.utf8) == text }
      #expect(text.withUnsafeBufferPointer { GPXReader.isFixValue($0) } == expected, "\(String(decoding: text, as: UTF8.self))")
    }
  }

  /// The Garmin Connect fixture (30-digit coordinates, millisecond times, TrackPointExtension)
  /// takes the shortcut for every point.
  @Test func garminConnectExportTakesTheShortcut() throws {
    var reader = try GPXReader(path: FixtureFiles.url("gpx/georust/garmin-activity.gpx").path, lenient: false, shortcut: true)
    let points = try reader.readAll()
    #expect(reader.pointsByShortcut == reader.summary.trackPoints && reader.summary.trackPoints > 900)
    #expect(points.first?.heartRate == 74 && points.first?.cadence == 79)
  }
}

/// GPX track points written the ways exporters write them — Garmin Connect (30-digit
/// coordinates, TrackPointExtension v1/v2 with `atemp`/`hr`/`cad`), Strava (`power` unprefixed),
/// Cluetrust GPXData, GpxExtensions v3 `Temperature`, PowerExtension, unknown extensions with
/// attributes, GPX 1.0 `speed`/`course`, `name`/`desc`/`sym` children — with random spacing,
/// quoting, digits, time forms, prefixes and child order; with `damage`, now and then a
/// comment, CDATA, an undeclared prefix, a namespace declaration, an end tag with a space, or
/// a value, time, coordinate or tag that is wrong.
struct ExportedGPX {
  var rng: SeededGenerator
  let damage: Bool
  var second = 0

  init(seed: UInt64, damage: Bool) {
    rng = SeededGenerator(seed: seed)
    self.damage = damage
  }

  mutating func chance(_ p: Double) -> Bool { rng.unit() < p }
  mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next(below: UInt64(items.count)))] }
  mutating func space() -> String { pick(["", "", "", " ", "\n  ", "\n\t\t", "\r\n "]) }

  mutating func number(_ range: ClosedRange<Double>) -> String {
    let v = rng.uniform(range)
    switch rng.next(below: 5) {
    case 0: return String(format: "%.7f", v)
    case 1: return String(format: "%.14f", v)
    case 2: return DecimalParsingTests.exactDecimal(v)
    case 3: return DecimalParsingTests.exactDecimal(Double(Float(v)))
    default: return "\(v)"
    }
  }

  mutating func time() -> String {
    second += 1 + Int(rng.next(below: 3))
    let day = 1 + second / 86_400
    let s = second % 86_400
    let clock = String(format: "2024-05-%02d%@%02d:%02d:%02d", day, chance(0.02) ? " " : "T", s / 3600, s / 60 % 60, s % 60)
    return clock + pick(["Z", "Z", ".000Z", ".250Z", ".5Z", "+02:00", "-0500", "Z"])
  }

  mutating func value(_ name: String, _ text: String) -> String {
    var text = text
    if damage && chance(0.01) { text = pick(["high", "", "1e", "2024-13-01T00:00:00Z", "  "]) }
    let open = damage && chance(0.01) ? "\(name) unit=\"x\"" : name
    let close = damage && chance(0.005) ? name + " " : name
    if damage && chance(0.005) { return "<\(open)><![CDATA[\(text)]]></\(close)>" }
    if damage && chance(0.003) { return "<\(open)>\(text)</\(name)x>" }
    return "<\(open)>\(space())\(text)\(space())</\(close)>"
  }

  mutating func extensions() -> String {
    let prefix = damage && chance(0.02) ? "nsx" : pick(["gpxtpx", "ns3", "p"])
    var inner: [String] = []
    if chance(0.8) { inner.append(value("\(prefix):hr", String(60 + rng.next(below: 120)))) }
    if chance(0.6) { inner.append(value("\(prefix):cad", String(rng.next(below: 110)))) }
    if chance(0.5) { inner.append(value("\(prefix):atemp", number(-10...40))) }
    if chance(0.2) { inner.append(value("\(prefix):wtemp", "18")) }
    if chance(0.2) { inner.append(value("\(prefix):speed", number(0...20))) }
    if chance(0.2) { inner.append(value("\(prefix):course", number(0...360))) }
    var parts = ["<\(prefix):TrackPointExtension>" + inner.joined(separator: space()) + "</\(prefix):TrackPointExtension>"]
    if chance(0.3) { parts.append(value("power", String(rng.next(below: 600)))) }
    if chance(0.2) { parts.append("<pwr:PowerExtension>" + value("pwr:PowerInWatts", String(rng.next(below: 600))) + "</pwr:PowerExtension>") }
    if chance(0.2) { parts.append(value("gpxdata:temp", number(-5...35)) + value("gpxdata:cadence", String(rng.next(below: 100)))) }
    if chance(0.2) { parts.append("<gpxx:TrackPointExtension>" + value("gpxx:Temperature", number(0...30)) + "<gpxx:Depth>3</gpxx:Depth></gpxx:TrackPointExtension>") }
    if chance(0.2) { parts.append("<vendor a=\"1\" b='x>y'><data kind=\"z\">text</data><empty/></vendor>") }
    if damage && chance(0.02) { parts.append("<q:x xmlns:q=\"urn:q\"><q:hr>1</q:hr></q:x>") }
    if damage && chance(0.02) { parts.append("<!-- note -->") }
    return "<extensions>" + space() + parts.joined(separator: space()) + space() + "</extensions>"
  }

  mutating func point() -> String {
    var lat = number(-89.9...89.9)
    let lon = number(-180...180)
    if damage && chance(0.005) { lat = pick(["91", "x", ""]) }
    let quote = chance(0.9) ? "\"" : "'"
    let attributes = chance(0.8) ? "lat=\(quote)\(lat)\(quote) lon=\(quote)\(lon)\(quote)" : "lon=\(quote)\(lon)\(quote)  lat=\(quote)\(lat)\(quote)"
    var children: [String] = []
    if chance(0.9) { children.append(value("ele", number(-50...3000))) }
    children.append(value("time", time()))
    if chance(0.2) { children.append(value("hdop", number(0.5...5))) }
    if chance(0.1) { children.append(value("sat", String(rng.next(below: 20)))) }
    if chance(0.1) { children.append(value("speed", number(0...30)) + value("course", number(0...360))) }
    if chance(0.1) { children.append(value("fix", damage && chance(0.2) ? "4d" : "3d")) }
    if chance(0.1) { children.append("<name>P \(second) &amp; more</name><sym>Flag</sym>") }
    if chance(0.85) { children.append(extensions()) }
    if chance(0.3) { children.shuffle(using: &rng) }
    return "<trkpt \(attributes)>" + space() + children.joined(separator: space()) + space() + "</trkpt>"
  }

  mutating func document(points count: Int) -> String {
    var declared = ["gpxtpx", "ns3", "p", "pwr", "gpxdata", "gpxx"]
    if damage && chance(0.3) { declared.removeLast() }
    let declarations = declared.map { " xmlns:\($0)=\"urn:\($0)\"" }.joined()
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\"\(declarations)>\n<trk><name>t</name><trkseg>\n"
    for k in 0..<count {
      text += "  " + point() + "\n"
      if k == count / 2 && chance(0.3) { text += "</trkseg><trkseg>\n" }
    }
    if damage && chance(0.1) { return text }
    return text + "</trkseg></trk>\n</gpx>\n"
  }
}
