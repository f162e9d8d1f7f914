import Foundation
import Testing
import _GeoWakeTestSupport

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The HTML report's map, read as the XML it is: every region framed and labelled, a scale bar
/// and a grid, detail maps where small regions had events, and the events in time order with the
/// app's steps among them.
@Suite("The HTML map")
struct MapReportTests {
  /// The report's elements as its XML parser sees them: name, attributes, text, and the id of the
  /// `svg` each is in.
  final class Elements: NSObject, XMLParserDelegate {
    struct Element {
      var name: String
      var attributes: [String: String]
      var text = ""
      var svg: String?
    }
    var all: [Element] = []
    private var open: [Int] = []
    private var svgs: [String?] = []

    init(_ html: String) throws {
      super.init()
      let parser = XMLParser(data: Data(html.utf8))
      parser.delegate = self
      guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
      if name == "svg" { svgs.append(attributes["id"]) }
      all.append(Element(name: name, attributes: attributes, svg: svgs.last ?? nil))
      open.append(all.count - 1)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      for k in open { all[k].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      open.removeLast()
      if name == "svg" { svgs.removeLast() }
    }

    func inMap(_ id: String, _ name: String) -> [Element] { all.filter { $0.svg == id && $0.name == name } }
  }

  /// The numbers of an SVG path's `d`, as (x, y) pairs.
  static func points(_ d: String) -> [(Double, Double)] {
    let numbers = d.split(whereSeparator: { "MLZHV ".contains($0) }).compactMap { Double($0) }
    return stride(from: 0, to: numbers.count - 1, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
  }

  /// Every region's outline inside the map's viewBox, whether the track passes by it or not; a
  /// scale bar and a labelled grid.
  static func checkFramed(_ html: String, regions expected: Int) throws -> Elements {
    let elements = try Elements(html)
    let map = try #require(elements.all.first { $0.name == "svg" && $0.attributes["id"] == "map" })
    let box = try #require(map.attributes["viewBox"]).split(separator: " ").compactMap { Double($0) }
    #expect(box.count == 4)
    let paths = elements.inMap("map", "path").filter { $0.attributes["class"]?.hasPrefix("region") == true }.compactMap { $0.attributes["d"] }
    #expect(paths.count == expected)
    for d in paths {
      #expect(Self.points(d).allSatisfy { $0.0 >= box[0] && $0.0 <= box[0] + box[2] && $0.1 >= box[1] && $0.1 <= box[1] + box[3] })
    }
    let texts = elements.inMap("map", "text").map(\.text)
    #expect(texts.contains { $0.hasSuffix(" m") || $0.hasSuffix(" km") })
    #expect(texts.filter { $0.hasSuffix("°N") || $0.hasSuffix("°S") }.count >= 2)
    #expect(texts.filter { $0.hasSuffix("°E") || $0.hasSuffix("°W") }.count >= 2)
    return elements
  }

  @Test func theDemoReportShowsEveryRegionWithItsNameAndTheEventsInTimeOrder() throws {
    let run = try CommandRunner.run(AnalyzeCommandTests.demo + ["--app", "Fixtures/demo/app-scenario.json", "--format", "html"])
    #expect(run.status == 0, "\(run.stderr)")
    let elements = try Self.checkFramed(run.stdout, regions: 8)
    // Every region named on the map or on a detail map.
    let labels = elements.all.filter { $0.name == "text" && $0.attributes["class"] == "label" }.map(\.text)
    let regions = try String(contentsOfFile: "Fixtures/demo/tokyo-regions.csv", encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst().map { String($0.prefix { $0 != "," }) }
    #expect(Set(regions).isSubset(of: Set(labels)), "\(Set(regions).subtracting(labels))")
    // Shibuya's small circles get a detail map, where their events are drawn.
    #expect(elements.inMap("detail-1", "g").filter { $0.attributes["class"]?.hasPrefix("event") == true }.count >= 10)
    // The table in time order, the app's steps among the region events.
    let cells = elements.all.filter { $0.name == "td" }
    let rowCount = elements.all.filter { $0.name == "tr" && $0.attributes["id"]?.hasPrefix("row-") == true }.count
    #expect(cells.count == rowCount * 7)
    let times = stride(from: 1, to: cells.count, by: 7).map { cells[$0].text }
    #expect(times == times.sorted())
    let subjects = stride(from: 4, to: cells.count, by: 7).map { cells[$0].text }
    let firstApp = try #require(subjects.firstIndex(of: "app"))
    let lastRegion = try #require(subjects.lastIndex { $0 != "app" })
    #expect(firstApp < lastRegion)
  }

  /// A track far from its regions (the wrong region file, swapped coordinates): the map frames
  /// both, so the regions are still seen.
  @Test func regionsAwayFromTheTrackAreFramed() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("r.csv", containing: "id,lat,lon,radius\nfar-one,35.66,139.70,300\nfar-two,35.70,139.75,80\n")
    var track = "time,lat,lon,accuracy\n"
    for k in 0..<200 { track += "\(k * 10),34.70,\(135.50 + Double(k) * 0.0002),5\n" }
    let file = try folder.file("osaka.csv", containing: track)
    let run = try CommandRunner.run(["analyze", "--regions", regions, file, "--format", "html"])
    #expect(run.stderr.contains("more than 50 km from every region"))
    _ = try Self.checkFramed(run.stdout, regions: 2)
  }
}
