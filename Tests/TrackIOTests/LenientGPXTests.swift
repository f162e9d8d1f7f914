import Foundation
import Geodesy
import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("Lenient GPX")
struct LenientGPXTests {
  static func read(_ text: String, lenient: Bool = true) throws -> (points: [GPXPoint], warnings: [String]) {
    let folder = try TemporaryFolder()
    let path = try folder.file("damaged.gpx", containing: text)
    var reader = try GPXReader(path: path, lenient: lenient)
    let points = try reader.readAll()
    let warnings = reader.takeWarnings().map { String($0.warningDescription.dropFirst(path.count + 1)) }
    #expect(reader.warningCount == warnings.count)
    return (points, warnings)
  }

  /// Each damage the strict reader refuses, recovered from with a located warning saying what was done.
  @Test(arguments: [
    ("<gpx><trk><trkseg><trkpt lat=\"91\" lon=\"0\"/><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>",
     ["1:31: warning: latitude 91.0 is out of range: expected a finite value in -90...90; recovered: skipped the <trkpt>"], 1),
    ("<gpx><wpt lon=\"1\"><ele>5</ele></wpt><wpt lat=\"2\" lon=\"1\"/></gpx>",
     ["1:6: warning: <wpt> has no lat attribute: expected lat=\"degrees\"; recovered: skipped the <wpt>"], 1),
    ("<gpx>\n<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>noon</time><sat>1e300</sat></trkpt></trkseg></trk></gpx>",
     ["2:43: warning: <time> \"noon\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z; recovered: left out the time",
      "2:59: warning: <sat> \"1e300\" is not a satellite count: expected a whole number in 0...1000; recovered: left out the value"], 1),
    ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"></trk></gpx>",
     ["1:42: warning: </trk> does not match <trkpt> opened on line 1; recovered: closed </trkpt></trkseg></trk>"], 1),
    ("<gpx><trk><trkseg></trkpt></trkseg></trk></gpx>",
     ["1:19: warning: </trkpt> does not match <trkseg> opened on line 1; recovered: ignored the end tag"], 0),
    ("<gpx><trk>\n<trkseg><trkpt lat=\"1\" lon=\"2\"><ele>3</ele><time>2024-05-01T07:0",
     ["2:65: warning: file ends inside the <time> value; recovered: left out the time",
      "2:65: warning: file ends inside <time> opened on line 2: expected </time>; recovered: closed </time></trkpt></trkseg></trk></gpx>"], 1),
    ("<gpx><wpt lat=\"1\" lon=\"2\"/></gpx><wpt lat=\"3\" lon=\"4\"/>",
     ["1:34: warning: content after the end of <gpx>; recovered: ignored the rest of the file"], 1),
    ("<gpx><wpt lat=\"1\" lon=\"2\"<name>x</name></wpt><wpt lat=\"3\" lon=\"4\"/></gpx>",
     ["1:26: warning: '<' inside a tag: expected '>' to close it first; recovered: skipped the unclosed tag",
      "1:40: warning: </wpt> does not match <gpx> opened on line 1; recovered: ignored the end tag"], 1),
    ("<gpx><wpt lat=\"1\" lon=\"2\"/><!-- cut", ["1:28: warning: comment is not closed: expected -->; recovered: ignored the rest of the file",
      "1:36: warning: file ends inside <gpx> opened on line 1: expected </gpx>; recovered: closed </gpx>"], 1),
  ])
  func damageIsRecoveredAndReported(_ text: String, _ expected: [String], _ points: Int) throws {
    #expect(throws: TrackIOError.self) { try Self.read(text, lenient: false) }
    let (read, warnings) = try Self.read(text)
    #expect(warnings == expected)
    #expect(read.count == points)
  }

  /// A schema violation that leaves the point usable is a located warning in both modes, not a
  /// recovery: the point is read, without the value.
  @Test(arguments: [false, true])
  func aFixOutsideItsEnumerationIsAWarning(lenient: Bool) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("fix.gpx", containing: """
      <gpx version="1.1" creator="t"><trk><trkseg>
      <trkpt lat="1" lon="2"><time>2024-05-01T07:00:00Z</time><fix>3d</fix></trkpt>
      <trkpt lat="1" lon="2.001"><time>2024-05-01T07:00:01Z</time><fix> gps </fix></trkpt>
      </trkseg></trk></gpx>
      """)
    var reader = try GPXReader(path: path, lenient: lenient)
    let points = try reader.readAll()
    #expect(points.count == 2)
    #expect(points.allSatisfy { $0.time != nil })
    let warnings = reader.takeWarnings().map(\.warningDescription)
    #expect(warnings.count == 1)
    #expect(warnings.first?.hasPrefix("\(path):3:") == true)
    #expect(warnings.first?.hasSuffix("warning: <fix> \"gps\" is not one of GPX's values (none, 2d, 3d, dgps, pps); the point is read without it") == true, "\(warnings)")
    #expect(reader.warningCount == 0)
  }

  /// An element prefix no `xmlns:` declares is a located warning in both modes, once per prefix;
  /// the elements are read by their local names. Declarations count where XML scopes them: on the
  /// element itself or one around it, not on a sibling that has closed.
  @Test(arguments: [false, true])
  func anUndeclaredNamespacePrefixIsAWarning(lenient: Bool) throws {
    let folder = try TemporaryFolder()
    func point(_ k: Int, _ extensions: String) -> String {
      "<trkpt lat=\"1\" lon=\"2.00\(k)\"><time>2024-05-01T07:00:0\(k)Z</time><extensions>\(extensions)</extensions></trkpt>\n"
    }
    let undeclared = "<gpxpx:TrackPointExtension><gpxpx:hr>120</gpxpx:hr></gpxpx:TrackPointExtension>"
    let cases: [(String, String, [String])] = [
      // Undeclared, on many points: one warning, at the first.
      ("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n", (1...4).map { point($0, undeclared) }.joined(), ["2:"]),
      // Declared on the root, or on the element itself: nothing to say.
      ("<gpx version=\"1.1\" creator=\"t\" xmlns:gpxpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\"><trk><trkseg>\n",
       (1...3).map { point($0, undeclared) }.joined(), []),
      ("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n",
       point(1, "<g:E xmlns:g=\"urn:x\"><g:hr>100</g:hr></g:E>") + point(2, "<g:E xmlns:g='urn:x'/>"), []),
      // Declared on a sibling that has closed: out of scope at the next point.
      ("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n",
       point(1, "<g:E xmlns:g=\"urn:x\"><g:hr>100</g:hr></g:E>") + point(2, "<g:E><g:hr>101</g:hr></g:E>"), ["3:"]),
      // Two undeclared prefixes, and xml: (always declared).
      ("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n",
       point(1, "<a:x xml:lang=\"en\">1</a:x>") + point(2, "<b:y/><a:x/>") + point(3, "<xml:z/>"), ["2:", "3:"]),
    ]
    for (k, (head, points, expected)) in cases.enumerated() {
      let path = try folder.file("ns\(k).gpx", containing: head + points + "</trkseg></trk></gpx>\n")
      var reader = try GPXReader(path: path, lenient: lenient)
      let read = try reader.readAll()
      #expect(read.count == points.components(separatedBy: "<trkpt").count - 1, "case \(k)")
      #expect(read.allSatisfy { $0.time != nil })
      let warnings = reader.takeWarnings().map(\.warningDescription)
      #expect(warnings.count == expected.count, "case \(k): \(warnings)")
      for (warning, location) in zip(warnings, expected) {
        #expect(warning.hasPrefix("\(path):\(location)"), "case \(k): \(warning)")
        #expect(warning.contains("warning: namespace prefix"), "case \(k): \(warning)")
      }
      #expect(reader.warningCount == 0)
    }
    // The heart rate under an undeclared prefix is read all the same.
    let path = try folder.file("hr.gpx", containing: "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n" + point(1, undeclared) + "</trkseg></trk></gpx>")
    var reader = try GPXReader(path: path, lenient: lenient)
    #expect(try reader.readAll().first?.heartRate == 120)
  }

  /// A track, segment, route or point outside the element GPX puts it in belongs to no track or
  /// route: a located warning in both modes (once per element and parent, none for what it holds),
  /// and its points are not read.
  @Test(arguments: [false, true])
  func misplacedStructureIsAWarningAndItsPointsAreNotRead(lenient: Bool) throws {
    let good = "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk>"
    let cases: [(String, [String], Int)] = [
      // A track inside <metadata> (a <metadata> left open by damage, say), twice: one warning.
      ("<metadata>\n<trk><trkseg><trkpt lat=\"3\" lon=\"4\"/></trkseg></trk><trk><trkseg/></trk></metadata>" + good,
       ["2:1: warning: <trk> inside <metadata>: GPX puts it directly inside <gpx>; ignored it and what it holds "
        + "(and any other <trk> in <metadata>, without another warning)"], 1),
      // A segment straight inside <gpx>; a point straight inside <trk>; a waypoint inside a route.
      ("<trkseg><trkpt lat=\"3\" lon=\"4\"/></trkseg>" + good, ["1:32: warning: <trkseg> inside <gpx>"], 1),
      ("<trk><trkpt lat=\"3\" lon=\"4\"/><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk>", ["1:37: warning: <trkpt> inside <trk>"], 1),
      ("<rte><wpt lat=\"3\" lon=\"4\"/><rtept lat=\"1\" lon=\"2\"/></rte>", ["1:37: warning: <wpt> inside <rte>"], 1),
      // A <gpx> inside <gpx>, and a point inside a point.
      ("<gpx>" + good + "</gpx>" + good, ["1:32: warning: <gpx> inside <gpx>: GPX puts it directly inside no element"], 1),
      ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><trkpt lat=\"3\" lon=\"4\"/></trkpt></trkseg></trk>",
       ["1:68: warning: <trkpt> inside <trkpt>"], 1),
    ]
    let folder = try TemporaryFolder()
    for (k, (body, expected, count)) in cases.enumerated() {
      let path = try folder.file("misplaced\(k).gpx", containing: "<gpx version=\"1.1\" creator=\"t\">" + body + "</gpx>")
      var reader = try GPXReader(path: path, lenient: lenient)
      let points = try reader.readAll()
      #expect(points.count == count, "case \(k)")
      #expect(points.allSatisfy { $0.parent >= 0 && ($0.kind != .track || $0.segment >= 0) }, "case \(k)")
      let warnings = reader.takeWarnings().map { String($0.warningDescription.dropFirst(path.count + 1)) }
      #expect(warnings.count == expected.count, "case \(k): \(warnings)")
      for (warning, start) in zip(warnings, expected) { #expect(warning.hasPrefix(start), "case \(k): \(warning)") }
      // The statistics of such a file hold: the crash this guards against was an index of -1.
      let statistics = try TrackStatistics.read(path: path, lenient: lenient)
      #expect(statistics.trackPoints + statistics.routePoints + statistics.waypoints == count, "case \(k)")
    }
  }

  @Test func notGPXIsStillAnError() throws {
    #expect(throws: TrackIOError.self) { try Self.read("<kml><wpt lat=\"1\" lon=\"2\"/></kml>") }
    #expect(throws: TrackIOError.self) { try Self.read("") }
  }

  /// Good files read the same in both modes, without a warning.
  @Test(arguments: GPXExpectation.all.map(\.file))
  func goodFilesAreUnchanged(_ file: String) throws {
    let path = FixtureFiles.url("gpx/" + file).path
    var strict = try GPXReader(path: path)
    var lenient = try GPXReader(path: path, lenient: true)
    #expect(try strict.readAll() == lenient.readAll())
    #expect(lenient.warningCount == 0)
  }

  /// A real file cut at any byte: the lenient reader keeps every point complete before the cut,
  /// in order, and says it recovered; it never invents a point.
  @Test func truncatedFilesKeepTheirCompletePoints() throws {
    let full = try FixtureFiles.text("gpx/gpxstudio/with_time.gpx")
    let bytes = Array(full.utf8)
    let all = try Self.read(full, lenient: false).points
    #expect(all.count > 10)
    // From just after the <gpx ...> start tag (before it, there is no GPX document to recover).
    let gpx = try #require(full.range(of: "<gpx"))
    let root = try #require(full[gpx.upperBound...].firstIndex(of: ">")).utf16Offset(in: full) + 1
    for cut in stride(from: root, to: bytes.count - 1, by: 53) {
      let text = String(decoding: bytes[..<cut], as: UTF8.self)
      let (points, warnings) = try Self.read(text)
      #expect(!warnings.isEmpty, "cut at \(cut)")
      #expect(points.count <= all.count)
      for (k, p) in points.enumerated() {
        #expect(p.coordinate == all[k].coordinate && p.kind == all[k].kind, "cut at \(cut), point \(k)")
        // Values complete before the cut are kept; the last point may lack the ones after it.
        if k < points.count - 1 { #expect(p == all[k], "cut at \(cut), point \(k)") }
        if let t = p.time { #expect(t == all[k].time) }
      }
      // Every point whose end tag is before the cut is there.
      let closed = text.components(separatedBy: "</trkpt>").count - 1
      #expect(points.filter { $0.kind == .track }.count >= closed, "cut at \(cut)")
    }
  }
}
