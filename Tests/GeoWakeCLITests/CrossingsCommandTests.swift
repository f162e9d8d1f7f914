import Foundation
import Testing
import _GeoWakeTestSupport

@Suite("geowake crossings and generate")
struct CrossingsCommandTests {
  @Test func demoFindsTheTokyoCrossings() throws {
    let result = try CommandRunner.run([
      "crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("2018-11-29T02:29:48.141Z  aoyama-itchome    enter"))
    // A pass-through row, every column as wide as the header's.
    #expect(
      result.stdout.contains(
        "\n2018-11-29T05:10:31.595Z  shibuya-station   enter  35.6597792   139.7019544   2031→2032     pass\n"))
    #expect(result.stdout.hasSuffix("4142 fixes over 7 h 34 min, 8 regions: 55 enters, 55 exits (22 in pass-throughs)\ninside at the end: none\n"))
  }

  /// The same track as GPX and as CSV (Fixtures/demo/convert-track.py) gives the same output.
  @Test func gpxAndCSVOfOneTrackAgree() throws {
    let gpx = try CommandRunner.run(["crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"])
    let csv = try CommandRunner.run(["crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/demo/tokyo-track.csv"])
    #expect(gpx.status == 0 && csv.status == 0)
    #expect(gpx.stdout == csv.stdout)
  }

  @Test func jsonLinesOutputIsDeterministic() throws {
    let arguments = ["crossings", "--format", "jsonl", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/demo/tokyo-track.csv"]
    let first = try CommandRunner.run(arguments)
    let second = try CommandRunner.run(arguments)
    #expect(first.status == 0)
    #expect(first.stdout == second.stdout)
    let lines = first.stdout.split(separator: "\n")
    #expect(lines.count == 110)
    #expect(lines[0] == #"{"event":"enter","region":"aoyama-itchome","at":"2018-11-29T02:29:48.140529Z","crossedAt":"2018-11-29T02:29:48.140529Z","lat":35.67225349,"lon":139.72185976,"fromFix":512,"toFix":513,"passThrough":false}"#)
    #expect(
      lines.contains(
        #"{"event":"enter","region":"shibuya-station","at":"2018-11-29T05:10:31.595025Z","crossedAt":"2018-11-29T05:10:31.595025Z","lat":35.65977921,"lon":139.70195445,"fromFix":2031,"toFix":2032,"passThrough":true}"#
      ))
  }

  @Test func badRegionFileNamesLineAndColumn() throws {
    let folder = try TemporaryFolder()
    let regions = try folder.file("regions.csv", containing: "id,lat,lon,radius\nhome,37.7,-122.4,100\nwork,37.8,-122.4,-5\n")
    let result = try CommandRunner.run(["crossings", "--regions", regions, "Fixtures/demo/tokyo-track.csv"])
    #expect(result.status == 65)
    #expect(result.stderr == "\(regions):3:18: error: region \"work\": radius -5.0 is not positive: expected metres in (0, 10000000.0]\n")
  }

  @Test func fixesOutOfOrderNameTheLine() throws {
    let folder = try TemporaryFolder()
    let track = try folder.file("track.csv", containing: "time,lat,lon\n10,35.0,139.0\n# a comment\n5,35.0,139.0\n")
    let result = try CommandRunner.run(["crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", track])
    #expect(result.status == 65)
    #expect(
      result.stderr
        == "\(track):4:1: error: fix 1 at 1970-01-01T00:00:05Z is earlier than fix 0 at 1970-01-01T00:00:10Z: fixes must arrive in time order\n"
    )
    // Times a fraction of a millisecond apart are told apart.
    let close = try folder.file(
      "close.csv", containing: "time,lat,lon\n2024-05-01T07:00:10.0004Z,35.0,139.0\n2024-05-01T07:00:10.0001Z,35.0,139.0\n")
    let closeResult = try CommandRunner.run(["crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", close])
    #expect(closeResult.status == 65)
    #expect(
      closeResult.stderr
        == "\(close):3:1: error: fix 1 at 2024-05-01T07:00:10.000100Z is earlier than fix 0 at 2024-05-01T07:00:10.000400Z: fixes must arrive in time order\n"
    )
  }

  @Test func missingTrackExits66() throws {
    let result = try CommandRunner.run(["crossings", "--regions", "Fixtures/demo/tokyo-regions.csv", "no-such-track.csv"])
    #expect(result.status == 66)
    #expect(result.stderr == "no-such-track.csv: error: no such file\n")
  }

  @Test func generateIsDeterministicAndRefusesToOverwrite() throws {
    let folder = try TemporaryFolder()
    let a = try CommandRunner.run(["generate", "track", "--count", "500", "--seed", "7", "--format", "gpx"])
    let b = try CommandRunner.run(["generate", "track", "--count", "500", "--seed", "7", "--format", "gpx"])
    #expect(a.status == 0)
    #expect(a.stdout == b.stdout)
    #expect(a.stdout.components(separatedBy: "<trkpt ").count == 501)
    let c = try CommandRunner.run(["generate", "track", "--count", "500", "--seed", "8", "--format", "gpx"])
    #expect(c.stdout != a.stdout)

    let file = folder.path("regions.geojson")
    let made = try CommandRunner.run([
      "generate", "regions", "--count", "50", "--polygons", "0.3", "--format", "geojson", "--track-count", "2000", "-o", file,
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let again = try CommandRunner.run(["generate", "regions", "--count", "50", "--format", "geojson", "-o", file])
    #expect(again.status == 73)
    #expect(again.stderr == "\(file): error: already exists; refusing to overwrite it (use --force)\n")
    let geojson = try String(contentsOfFile: file, encoding: .utf8)
    let parsed = try JSONSerialization.jsonObject(with: Data(geojson.utf8)) as? [String: Any]
    #expect((parsed?["features"] as? [Any])?.count == 50)
  }

  @Test func generatedPolygonsHaveTheVertexCountsAskedFor() throws {
    let made = try CommandRunner.run([
      "generate", "regions", "--count", "40", "--polygons", "1", "--vertices", "30,34", "--format", "geojson",
      "--track-count", "2000",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let parsed = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any]
    let features = try #require(parsed?["features"] as? [[String: Any]])
    #expect(features.count == 40)
    for feature in features {
      let geometry = feature["geometry"] as? [String: Any]
      let ring = (geometry?["coordinates"] as? [[[Double]]])?.first
      // A closed ring repeats its first position.
      #expect(ring.map { (31...35).contains($0.count) } == true, "\(ring?.count ?? -1) positions")
    }
    for bad in ["2,5", "9,8", "5", "5,100001"] {
      let refused = try CommandRunner.run(["generate", "regions", "--polygons", "1", "--format", "geojson", "--vertices", bad])
      #expect(refused.status == 64, "\(bad)")
      #expect(refused.stderr.contains("--vertices"), "\(refused.stderr)")
    }
  }

  /// `--outline coast` draws boundaries smooth at every scale: valid polygons (GEOS, as `regions
  /// check` reads them) with the vertex counts asked for, the same for the same seed, and far less
  /// jagged from one vertex to the next than the default star, whose vertices each lie at their own
  /// random distance.
  @Test func coastOutlinesAreValidAndSmootherThanStars() throws {
    let folder = try TemporaryFolder()
    func generate(_ outline: String, to name: String) throws -> (path: String, rings: [[[Double]]]) {
      let path = folder.path(name)
      let made = try CommandRunner.run([
        "generate", "regions", "--count", "30", "--polygons", "1", "--vertices", "200,400", "--radii", "1000,5000",
        "--outline", outline, "--track-count", "2000", "--seed", "12", "-o", path,
      ])
      #expect(made.status == 0, "\(made.stderr)")
      let parsed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
      let features = try #require(parsed?["features"] as? [[String: Any]])
      let rings = features.compactMap { (($0["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first }
      #expect(rings.count == 30)
      return (path, rings)
    }
    /// The mean change of distance from the ring's vertex centroid between neighbouring vertices,
    /// over the mean distance.
    func jaggedness(_ ring: [[Double]]) -> Double {
      let points = ring.dropLast()
      let cx = points.map { $0[0] }.reduce(0, +) / Double(points.count)
      let cy = points.map { $0[1] }.reduce(0, +) / Double(points.count)
      let squash = cos(cy * .pi / 180)
      let d = points.map { (($0[0] - cx) * squash * ($0[0] - cx) * squash + ($0[1] - cy) * ($0[1] - cy)).squareRoot() }
      let steps = d.indices.map { abs(d[$0] - d[($0 + 1) % d.count]) }
      return steps.reduce(0, +) / d.reduce(0, +)
    }
    let coast = try generate("coast", to: "coast.geojson")
    let star = try generate("star", to: "star.geojson")
    for ring in coast.rings { #expect((201...401).contains(ring.count), "\(ring.count) positions") }
    let checked = try CommandRunner.run(["regions", "check", coast.path])
    #expect(checked.status == 0 && checked.stdout.contains("all valid"), "\(checked.stdout)\(checked.stderr)")
    let again = try generate("coast", to: "again.geojson")
    #expect(try Data(contentsOf: URL(fileURLWithPath: again.path)) == Data(contentsOf: URL(fileURLWithPath: coast.path)))
    let coastJagged = coast.rings.map(jaggedness).reduce(0, +) / 30
    let starJagged = star.rings.map(jaggedness).reduce(0, +) / 30
    #expect(coastJagged < starJagged / 4, "coast \(coastJagged), star \(starJagged)")
    let refused = try CommandRunner.run([
      "generate", "regions", "--polygons", "1", "--format", "geojson", "--outline", "round", "--track-count", "2000",
    ])
    #expect(refused.status == 64 && refused.stderr.contains("--outline"), "\(refused.stderr)")
  }
}
