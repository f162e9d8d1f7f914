import Foundation
import Geodesy
import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("JSON Lines fixes")
struct FixJSONLinesReaderTests {
  /// The Tokyo track as JSON Lines reads as the same fixes as its CSV.
  @Test func sameFixesAsTheCSV() throws {
    var csv = try FixCSVReader(path: FixtureFiles.url("demo/tokyo-track.csv").path)
    let fixes = try csv.readAll()
    let lines = fixes.map { f in
      "{\"time\": \(f.time), \"lat\": \(f.coordinate.latitude), \"lon\": \(f.coordinate.longitude), \"cell\": \"440-10-1\"}"
    }
    let folder = try TemporaryFolder()
    let path = try folder.file("track.jsonl", containing: lines.joined(separator: "\n") + "\n\n")
    var reader = try TrackFileReader(path: path)
    var read: [LocationFix] = []
    while let fix = try reader.next() { read.append(fix) }
    #expect(read == fixes)
  }

  @Test func isoTimesAndAccuracy() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("t.txt", containing: "  {\"time\":\"2024-05-01T09:00:00.5+02:00\",\"lat\":1,\"lon\":2,\"accuracy\":4.5}\n")
    #expect(try TrackFileReader.format(path: path) == .jsonLines)
    var reader = try FixJSONLinesReader(path: path)
    let fix = try #require(try reader.next())
    #expect(fix.time == 1_714_546_800.5 && fix.horizontalAccuracy == 4.5)
    #expect(try reader.next() == nil)
  }

  @Test(arguments: [
    ("{\"time\":1,\"lat\":1,\"lon\":2}\n{\"time\":2,\"lat\":\"x\",\"lon\":2}\n", "2:17: error: \"lat\" is a string: expected degrees in -90...90"),
    ("{\"time\":1,\"lat\":91,\"lon\":2}\n", "1:17: error: latitude 91.0 is out of range: expected a finite value in -90...90"),
    ("{\"lat\":1,\"lon\":2}\n", "1:1: error: no \"time\": expected seconds since 1970 or an ISO 8601 string"),
    ("{\"time\":\"noon\",\"lat\":1,\"lon\":2}\n", "1:9: error: time \"noon\" is not an ISO 8601 date-time such as 2024-05-01T07:00:00Z"),
    ("{\"time\":1,\"lat\":1,\"lon\":2\n", "1:26: error: found the end of the line inside an object: expected ',' or '}'"),
    ("{\"time\":1,\"lat\":1,\"lon\":2,\"accuracy\":0}\n", "1:38: error: \"accuracy\" is not a positive number of metres"),
  ])
  func badLinesAreLocated(_ text: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("bad.jsonl", containing: text)
    do {
      var reader = try FixJSONLinesReader(path: path)
      while try reader.next() != nil {}
      Issue.record("accepted bad input")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
  }
}
