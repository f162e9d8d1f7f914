import Foundation
import Geodesy
import Geofencing
import Testing
import GeoWakeReports
import TrackIO
import _GeoWakeTestSupport

#if canImport(FoundationXML)
  import FoundationXML
#endif

@Suite("Region timeline reports")
struct RegionReportTests {
  static let start = try! Coordinate(latitude: -16.5, longitude: 179.99)

  /// A walk east across the antimeridian through a circle and a polygon with a hole.
  static func scenario() throws -> ([Region], [LocationFix]) {
    let circle = try CircularRegion(identifier: "ring <&> \"quoted\"", center: Geodesic.wgs84.direct(from: start, azimuth: 90, distance: 1_000)!.destination, radius: 300)
    let square = try PolygonRegion(identifier: "square", exterior: [
      Coordinate(latitude: -16.51, longitude: -179.99), Coordinate(latitude: -16.51, longitude: -179.97),
      Coordinate(latitude: -16.49, longitude: -179.97), Coordinate(latitude: -16.49, longitude: -179.99),
    ], holes: [[
      Coordinate(latitude: -16.501, longitude: -179.981), Coordinate(latitude: -16.501, longitude: -179.979),
      Coordinate(latitude: -16.499, longitude: -179.979), Coordinate(latitude: -16.499, longitude: -179.981),
    ]])
    let fixes = (0..<600).map { k in
      LocationFix(time: 1_700_000_000 + Double(k) * 2, coordinate: Geodesic.wgs84.direct(from: start, azimuth: 90, distance: Double(k) * 8)!.destination)
    }
    return ([.circle(circle), .polygon(square)], fixes)
  }

  static func render(_ format: TimelineWriter.Format) throws -> (String, [RegionEvent]) {
    let (regions, fixes) = try scenario()
    var monitor = try RegionMonitor(regions: regions, profile: .server)
    let folder = try TemporaryFolder()
    let path = folder.url.path + "/out"
    let sink = try ByteSink(path: path)
    var writer = TimelineWriter(format: format, sink: sink, regions: regions, title: "walk <1>", subtitle: "server & co")
    try writer.begin()
    var all: [RegionEvent] = []
    for fix in fixes {
      var events: [RegionEvent] = []
      monitor.process(fix, into: &events)
      writer.add(fix)
      for e in events { try writer.write(e) }
      all += events
    }
    var events: [RegionEvent] = []
    monitor.finish(into: &events)
    for e in events { try writer.write(e) }
    all += events
    try writer.finish(summary: "2 regions & <summary>\n")
    try sink.commit()
    return (try String(contentsOfFile: path, encoding: .utf8), all)
  }

  @Test func htmlIsWellFormedAndHasEveryEvent() throws {
    let (html, events) = try Self.render(.html)
    #expect(events.map(\.kind) == [.enter, .exit, .enter, .exit, .enter, .exit])
    let parser = XMLParser(data: Data(html.utf8))
    let collector = ElementCollector()
    parser.delegate = collector
    #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
    // On the map and in the table, once each, in order.
    #expect(collector.ids.filter { $0.hasPrefix("event-") } == (1...events.count).map { "event-\($0)" })
    #expect(collector.ids.filter { $0.hasPrefix("row-") } == (1...events.count).map { "row-\($0)" })
    #expect(collector.ids.contains("map") && collector.ids.contains("timeline"))
    #expect(collector.text.contains("ring <&> \"quoted\""))
    #expect(collector.text.contains("2 regions & <summary>"))
    for e in events { #expect(collector.text.contains(e.reason)) }
    // Self-contained: nothing fetched from elsewhere.
    #expect(!html.contains("http://") || html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/") })
    #expect(!html.contains("https://") && !html.contains("<script") && !html.contains("<img") && !html.contains("<link"))
    // Regions drawn once each, the polygon with its hole as a second subpath.
    #expect(collector.paths.count == 2)
    #expect(collector.paths.contains { $0.components(separatedBy: "M").count == 3 })
    // Across the antimeridian the track stays in one piece: no jump across the map.
    let xs = try #require(collector.polyline).split(separator: " ").map { Double($0.split(separator: ",")[0])! }
    #expect(zip(xs, xs.dropFirst()).allSatisfy { abs($1 - $0) < 50 })
  }

  @Test func csvHasOneRowPerEvent() throws {
    let (csv, events) = try Self.render(.csv)
    let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.first == "event,region,at,crossedAt,deliveredAt,lat,lon,state,reason,fromCell,toCell,fromFix,toFix,launchReason,stateBefore,stateAfter,budgetRemaining,request,apnsId,status,apnsReason,app,staleness")
    #expect(lines.count == events.count + 1)
    #expect(lines[1].hasPrefix("enter,\"ring <&> \"\"quoted\"\"\",2023-11-14T22:16:16.000000Z,2023-11-14T22:16:15.000000Z,2023-11-14T22:16:16.000000Z,"))
    #expect(lines[1].hasSuffix(",,\"" + events[0].reason + "\",,,87,88,,,,,,,,,,"))
  }

  @Test func geoJSONHasRegionsThenEvents() throws {
    let (text, events) = try Self.render(.geojson)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let features = try #require(object["features"] as? [[String: Any]])
    let kinds = features.map { ($0["properties"] as? [String: Any])?["kind"] as? String }
    #expect(kinds == ["region", "region"] + Array(repeating: "event", count: events.count))
    let first = try #require(features[2]["properties"] as? [String: Any])
    #expect(first["event"] as? String == "enter" && first["region"] as? String == "ring <&> \"quoted\"")
    #expect(first["deliveredAt"] as? String == "2023-11-14T22:16:16.000000Z" && first["crossedAt"] as? String == "2023-11-14T22:16:15.000000Z")
    let geometry = try #require(features[2]["geometry"] as? [String: Any])
    let position = try #require(geometry["coordinates"] as? [Double])
    // To 8 decimals (about 1 mm).
    #expect(abs(position[0] - events[0].coordinate.longitude) <= 5e-9 && abs(position[1] - events[0].coordinate.latitude) <= 5e-9)
  }

  @Test func trackSketchStaysBoundedAndEven() throws {
    var sketch = TrackSketch(capacity: 100)
    for k in 0..<10_007 { sketch.add(LocationFix(time: Double(k), coordinate: Self.start)) }
    let times = sketch.fixes.map(\.time)
    #expect(times.count <= 101 && times.count > 50)
    #expect(times.first == 0 && times.last == 10_006)
    let gaps = Set(zip(times, times.dropFirst()).dropLast().map { $1 - $0 })
    #expect(gaps == [Double(sketch.stride)])
    #expect(sketch.offered == 10_007)
  }
}

/// Collects ids, text, path data and the polyline of a parsed document.
final class ElementCollector: NSObject, XMLParserDelegate {
  var ids: [String] = []
  var text = ""
  var paths: [String] = []
  var polyline: String?

  func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
    if let id = attributes["id"] { ids.append(id) }
    if name == "path", attributes["class"]?.hasPrefix("region") == true, let d = attributes["d"] { paths.append(d) }
    if name == "polyline" { polyline = attributes["points"] }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}
