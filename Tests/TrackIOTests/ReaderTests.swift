import Foundation
import Geodesy
import Geofencing
import Testing
import TrackIO
import _GeoWakeTestSupport


@Suite("CSV readers")
struct ReaderTests {
  @Test func readsFixesWithBothTimeFormats() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("input.csv", containing: 
      "\u{FEFF}# comment\nlat,lon,time,accuracy\r\n37.5,-122.25,1714546800,5\n37.5,-122.25,2024-05-01T07:00:01.25Z,\n"
        + "37.5,-122.25,2024-05-01T09:00:02+02:00,8.5\n\n")
    var reader = try FixCSVReader(path: path)
    let fixes = try reader.readAll()
    #expect(fixes.map(\.time) == [1_714_546_800, 1_714_546_801.25, 1_714_546_802])
    #expect(fixes.map(\.horizontalAccuracy) == [5, nil, 8.5])
    #expect(fixes[0].coordinate == (try Coordinate(latitude: 37.5, longitude: -122.25)))
  }

  @Test(arguments: [
    ("time,lat,lon\n1,91,0\n", "2:3: error: latitude 91.0 is out of range: expected a finite value in -90...90"),
    ("time,lat,lon\n1,1,abc\n", "2:5: error: longitude \"abc\" is not a number: expected degrees"),
    ("time,lat,lon\nyesterday,1,2\n", "2:1: error: time \"yesterday\" is neither seconds since 1970 nor an ISO 8601 date-time (nor a drive log's yyyy.MM.dd_HH.mm.ss)"),
    ("time,lat,lon\n1,2\n", "2:1: error: 2 fields: expected 3, as in the header"),
    ("when,lat,lon\n1,2,3\n", "1:1: error: header has no time column (found when,lat,lon): expected time,lat,lon[,accuracy]"),
    ("time,lat,lon,accuracy\n1,2,3,-4\n", "2:7: error: accuracy \"-4\" is not a positive number of metres"),
    ("time,lat,lon\n2024-02-30T00:00:00Z,1,2\n", "2:1: error: time \"2024-02-30T00:00:00Z\" is neither seconds since 1970 nor an ISO 8601 date-time (nor a drive log's yyyy.MM.dd_HH.mm.ss)"),
  ])
  func badFixesAreLocated(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("input.csv", containing: text)
    do {
      var reader = try FixCSVReader(path: path)
      _ = try reader.readAll()
      Issue.record("accepted bad input")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
  }

  /// An accuracy written as NaN or NA (any case) is unknown; anything else that is not a positive
  /// number is an error naming it.
  @Test func unknownAccuracyIsNaNOrNAInAnyCase() throws {
    let folder = try TemporaryFolder()
    for (text, expected) in [("nan", true), ("NaN", true), ("NA", true), ("na", true), ("nA", true)] {
      let path = try folder.file("u.csv", containing: "time,lat,lon,accuracy\n1714546800,37.5,-122.25,\(text)\n")
      var reader = try FixCSVReader(path: path)
      #expect(try reader.readAll().first?.horizontalAccuracy == nil, "\(text) \(expected)")
    }
    for text in ["n", "nana", "nam", "xa", "a", "nanx"] {
      let path = try folder.file("u.csv", containing: "time,lat,lon,accuracy\n1714546800,37.5,-122.25,\(text)\n")
      var reader = try FixCSVReader(path: path)
      #expect(throws: TrackIOError.self, "\(text)") { try reader.readAll() }
    }
  }

  @Test func readsRegions() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("input.csv", containing: "id,lat,lon,radius,note\n\"Home, sweet\",37.7,-122.4,100,x\nwork,37.8,-122.41,250.5,\n")
    let regions = try RegionCSVReader.read(path: path)
    #expect(regions.map(\.identifier.rawValue) == ["Home, sweet", "work"])
    guard case .circle(let c) = regions[1] else { Issue.record("not a circle"); return }
    #expect(c.radius == 250.5)
  }

  @Test func parsesNumbersExactly() throws {
    // Numbers from the track generator and tricky ones must equal Swift's own correctly rounded parse.
    var rng = SeededGenerator(seed: 5)
    let samples = ["0.1", "-122.4194155", "37.7749295", "1e-7", "179.99999999999999", "0.30000000000000004", "+5", "-0"]
      + (0..<2000).map { _ in String(format: "%.7f", rng.uniform(-180...180)) }
    // Accuracies take any positive number, large ones too.
    let accuracies = ["123456789012345678", "1e300", "0.1", "4.9406564584124654e-324"]
    let folder = try TemporaryFolder()
    let rows = samples.enumerated().map { "0,0,\($1),\(accuracies[$0 % accuracies.count])" }
    let path = try folder.file("input.csv", containing: "time,lat,lon,accuracy\n" + rows.joined(separator: "\n") + "\n")
    var reader = try FixCSVReader(path: path)
    for (k, sample) in samples.enumerated() {
      let fix = try #require(try reader.next())
      #expect(fix.coordinate.longitude == Coordinate.normalizedLongitude(Double(sample) ?? .nan), "\(sample)")
      #expect(fix.horizontalAccuracy == Double(accuracies[k % accuracies.count]))
    }
  }
}
