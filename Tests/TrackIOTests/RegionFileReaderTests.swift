import Foundation
import Geodesy
import Geofencing
import SeededRandom
import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("Region files")
struct RegionFileReaderTests {
  static func c(_ lat: Double, _ lon: Double) -> Coordinate { try! Coordinate(latitude: lat, longitude: lon) }

  /// What RegionWriter writes as GeoJSON reads back the same (positions at 7 decimals).
  @Test func geoJSONRoundTrip() throws {
    let square = [Self.c(0, 0), Self.c(0, 1), Self.c(1, 1), Self.c(1, 0)]
    let hole = [Self.c(0.25, 0.25), Self.c(0.75, 0.25), Self.c(0.75, 0.75), Self.c(0.25, 0.75)]
    let far = [Self.c(10, 10), Self.c(10, 11), Self.c(11, 11)]
    let regions: [Region] = [
      .circle(try CircularRegion(identifier: "café \"quoted\"", center: Self.c(35.6812345, 139.7671234), radius: 250.5)),
      .polygon(try PolygonRegion(identifier: "square", exterior: square, holes: [hole])),
      .polygon(try PolygonRegion(identifier: try RegionIdentifier("two"), polygons: [.init(exterior: square), .init(exterior: far)])),
    ]
    let folder = try TemporaryFolder()
    let path = folder.url.path + "/regions.geojson"
    try RegionWriter.write(regions, format: .geojson, to: try ByteSink(path: path))
    let read = try RegionFileReader.read(path: path)
    #expect(read.regions.map(\.identifier) == regions.map(\.identifier))
    #expect(read.notifications.isEmpty)
    guard case .circle(let circle) = read.regions[0], case .polygon(let square2) = read.regions[1],
      case .polygon(let two) = read.regions[2]
    else { Issue.record("kinds changed"); return }
    #expect(circle.radius == 250.5 && circle.center == Self.c(35.6812345, 139.7671234))
    #expect(square2.polygons[0].holes.count == 1 && two.polygons.count == 2)
    #expect(square2.contains(Self.c(0.1, 0.1)) && !square2.contains(Self.c(0.5, 0.5)))
  }

  @Test func jsonArrayAndNotifyFlags() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("regions.json", containing: """
      [ {"id": "home", "lat": 37.7, "lon": -122.4, "radius": 100, "notifyOnExit": false},
        {"id": "work", "lat": 37.8, "lon": -122.4, "radius": 2e2},
        {"id": 42, "lat": -1, "lon": 180, "radius": 5, "notifyOnEntry": false, "notifyOnExit": false, "notifyOnDwell": false} ]
      """)
    let read = try RegionFileReader.read(path: path)
    #expect(read.regions.map(\.identifier.rawValue) == ["home", "work", "42"])
    #expect(read.notifications == [try RegionIdentifier("home"): [.entry, .dwell], try RegionIdentifier("42"): []])
    guard case .circle(let c) = read.regions[2] else { Issue.record("not a circle"); return }
    #expect(c.center.longitude == -180)
  }

  /// A longitude beyond ±180 in a file is an error, not wrapped: it is far more often a mistake
  /// than a position past the antimeridian.
  @Test func longitudesBeyond180AreErrors() throws {
    let folder = try TemporaryFolder()
    let json = try folder.file("regions.json", containing: #"[{"id": "a", "lat": 1, "lon": 499.7, "radius": 5}]"#)
    #expect(throws: TrackIOError(path: json, line: 1, column: 31, message: "longitude 499.7 is out of range: expected degrees east in -180...180")) {
      try RegionFileReader.read(path: json)
    }
    let csv = try folder.file("regions.csv", containing: "id,lat,lon,radius\na,1,-180.5,5\n")
    #expect(throws: TrackIOError(path: csv, line: 2, column: 5, message: "longitude -180.5 is out of range: expected degrees east in -180...180")) {
      try RegionFileReader.read(path: csv)
    }
    let polygon = try folder.file("p.geojson", containing: #"{"type": "Polygon", "coordinates": [[[0, 0], [181, 0], [0, 1], [0, 0]]]}"#)
    #expect(throws: TrackIOError.self) { try RegionFileReader.read(path: polygon) }
  }

  @Test func geoJSONFeaturePropertiesAndEscapes() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("one.geojson", containing: #"""
      {"type": "Feature", "properties": {"name": "caf\u00e9 \ud83d\ude00", "radius": 50, "notifyOnEntry": false},
       "geometry": {"type": "Point", "coordinates": [139.7, 35.6, 12.0]}}
      """#)
    let read = try RegionFileReader.read(path: path)
    #expect(read.regions.map(\.identifier.rawValue) == ["café 😀"])
    #expect(read.notifications.values.first == [.exit, .dwell])
  }

  @Test(arguments: [
    ("[{\"id\":\"a\",\"lat\":1,\"lon\":2,\"radius\":5},\n {\"id\":\"a\",\"lat\":1,\"lon\":2,\"radius\":5}]",
     "2:8: error: duplicate region identifier \"a\" (first on line 1): expected unique identifiers"),
    ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"id\":\"x\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[2,1]}}]}",
     "2:1: error: Point feature \"x\" has no \"radius\" property: expected metres"),
    ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"id\":\"x\",\"properties\":{\"radius\":5},\"geometry\":{\"type\":\"Point\",\"coordinates\":[2,91]}}]}",
     "2:98: error: latitude 91.0 is out of range: expected a finite value in -90...90"),
    ("[{\"id\":\"a\",\"lat\":1,\"lon\":2,\"radius\":5},]", "1:40: error: found ']': expected a JSON value"),
    ("[{\"id\":\"a\",\"lat\":1,\"lon\":2,\"radius\":\"5\"}]", "1:37: error: \"radius\" is a string: expected a number of metres"),
    ("[{\"id\":\"a\",\"lat\":1,\"lon\":2,\"radius\":-5}]", "1:37: error: region \"a\": radius -5.0 is not positive: expected metres in (0, 10000000.0]"),
    ("{\"type\":\"Topology\"}", "1:1: error: expected a GeoJSON FeatureCollection or Feature (\"type\"), or an array of regions"),
    ("[{\"id\":\"a\",\"lat\":01,\"lon\":2,\"radius\":5}]", "1:18: error: leading zero in a number"),
    ("[\"unterminated]", "1:2: error: unterminated string: expected a closing quote"),
  ])
  func badFilesAreLocated(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("bad.json", containing: text)
    do {
      _ = try RegionFileReader.read(path: path)
      Issue.record("accepted bad input")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
  }

  /// The regions are read one feature at a time: whatever the order of the collection's members
  /// (`features` before `type`, as sorted keys write it), extra members and spacing, a collection
  /// reads as the same regions as its plain form.
  @Test(arguments: [UInt64(1), 2, 3])
  func memberOrderAndSpacingDoNotMatter(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    var features: [String] = []
    for k in 0..<40 {
      let (lat, lon) = (Double(random.next() % 1_000) / 10 - 50, Double(random.next() % 3_000) / 10 - 150)
      let geometry = k % 3 == 0
        ? "{\"type\":\"Polygon\",\"coordinates\":[[[\(lon),\(lat)],[\(lon + 0.01),\(lat)],[\(lon),\(lat + 0.01)],[\(lon),\(lat)]]]}"
        : "{\"coordinates\":[\(lon),\(lat)],\"type\":\"Point\"}"
      var members = ["\"type\":\"Feature\"", "\"id\":\"r\(k)\"", "\"geometry\":" + geometry, "\"properties\":{\"radius\":\(10 + k),\"notifyOnExit\":\(k % 2 == 0)}"]
      members.shuffle(using: &random)
      features.append("{" + members.joined(separator: random.next() % 2 == 0 ? "," : " ,\n ") + "}")
    }
    let plain = "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}"
    let folder = try TemporaryFolder()
    let expected = try RegionFileReader.read(path: try folder.file("plain.geojson", containing: plain))
    #expect(expected.regions.count == 40 && expected.notifications.count == 20)
    var members = ["\"type\" : \"FeatureCollection\"", "\"features\": [\n" + features.joined(separator: ",\n") + "\n]", "\"bbox\": [-150, -50, 150, 50]",
      "\"name\": \"sites\"", "\"crs\": {\"type\": \"name\", \"properties\": {\"name\": \"urn:ogc:def:crs:OGC:1.3:CRS84\"}}"]
    for trial in 0..<6 {
      members.shuffle(using: &random)
      let text = "\u{FEFF}\n  {" + members.joined(separator: trial % 2 == 0 ? "," : ",\n\t") + "}  \n"
      let read = try RegionFileReader.read(path: try folder.file("c\(trial).geojson", containing: text))
      #expect(read.regions == expected.regions)
      #expect(read.notifications == expected.notifications)
    }
  }

  @Test(arguments: [
    ("{\"features\":[],\"type\":\"Feature\"}", "1:1: error: expected a GeoJSON FeatureCollection or Feature (\"type\"), or an array of regions"),
    ("{\"type\":\"FeatureCollection\"}", "1:1: error: a FeatureCollection needs a \"features\" array"),
    ("{\"type\":\"FeatureCollection\",\"features\":{}}", "1:1: error: a FeatureCollection needs a \"features\" array"),
    ("{\"type\":\"FeatureCollection\",\"features\":[]} []", "1:44: error: found an array after the JSON value: expected the end of the file"),
    ("{\"type\":\"FeatureCollection\",\"features\":[]", "1:42: error: found the end of the file inside an object: expected ',' or '}'"),
    ("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"id\":\"a\",\"properties\":{\"radius\":5},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}} {}]}",
     "1:143: error: found an object: expected ',' or ']' in an array"),
  ])
  func collectionsReadInOnePassLocateTheirErrors(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("bad.geojson", containing: text)
    do {
      _ = try RegionFileReader.read(path: path)
      Issue.record("accepted bad input")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
  }

  @Test func polygonCheckFailuresAreLocatedAtTheGeometry() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file(
      "bow.json",
      containing: "{\"type\":\"Feature\",\"id\":\"bow\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}")
    // Without a check the core reads it (even-odd containment); a check's error gets the place.
    #expect(try RegionFileReader.read(path: path).regions.count == 1)
    do {
      _ = try RegionFileReader.read(path: path) { (polygon) throws(RegionError) in
        throw RegionError(identifier: polygon.identifier.rawValue, reason: .invalidPolygon("crossing edges"))
      }
      Issue.record("the check was not applied")
    } catch {
      #expect(error.description == "\(path):1:41: error: region \"bow\": invalid polygon: crossing edges")
    }
  }

  @Test func deepNestingIsRefusedNotACrash() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("deep.json", containing: String(repeating: "[", count: 100_000))
    #expect(throws: TrackIOError.self) { try RegionFileReader.read(path: path) }
  }

  @Test func csvDuplicatesAreErrors() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("r.csv", containing: "id,lat,lon,radius\nhome,1,2,3\nwork,1,2,3\nhome,4,5,6\n")
    do {
      _ = try RegionFileReader.read(path: path)
      Issue.record("accepted a duplicate")
    } catch {
      #expect(error.description == "\(path):4:1: error: duplicate region identifier \"home\" (first on line 2): expected unique identifiers")
    }
  }
}
