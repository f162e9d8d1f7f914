import Foundation
import Geodesy
import SeededRandom
import Testing
@testable import TrackIO
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

/// The plain-line path of the JSON Lines reader (the scanner alone) changes speed, never results:
/// whenever it reads a line, the general path (the JSON tree) reads it to the same fix and device
/// without an error; lines it leaves alone are the general path's to read or report.
@Suite("JSON Lines plain lines")
struct JSONLinesPlainLineTests {
  static func both(_ text: String, assumeUTC: Bool = false, named: Bool = false, unnamed: Int = 0)
    -> (plain: (LocationFix, String?)?, general: Result<(LocationFix, String?), TrackIOError>)
  {
    var bytes = Array(text.utf8)
    return bytes.withUnsafeMutableBufferPointer { b in
      let line = UnsafeBufferPointer(b)
      let plain = FixJSONLinesReader.plainLine(line, assumeUTC: assumeUTC, named: named, unnamed: unnamed)
      var state = FixJSONLinesReader.LineState()
      do throws(TrackIOError) {
        let fix = try FixJSONLinesReader.generalLine(line, number: 1, assumeUTC: assumeUTC, named: named, unnamed: unnamed, state: &state)
        return (plain.map { ($0.fix, $0.device) }, .success((fix, state.device)))
      } catch {
        return (plain.map { ($0.fix, $0.device) }, .failure(error))
      }
    }
  }

  static let lines: [String] = [
    #"{"time":"2024-05-01T07:00:00Z","lat":37.7836518,"lon":-122.4276949,"accuracy":5.4}"#,
    #"  { "time" : 1714546800 , "lat" : -33.86 , "lon" : 151.21 }  "#,
    #"{"lat":1,"lon":2,"time":1714546800123,"accuracy":null,"speed":3.2,"extra":{"a":[1,2,{"b":null}]}}"#,
    #"{"device":"bus 7","time":"2024-05-01T07:00:00.250+02:00","lat":1,"lon":2}"#,
    #"{"device":42,"time":1e9,"lat":1e-3,"lon":-0.0}"#,
    #"{"time":"2024-05-01T07:00:00","lat":1,"lon":2}"#,
    #"{"time":"2024-05-01 07:00:00Z","lat":1,"lon":2}"#,
    #"{"time":1,"time":"x","lat":1,"lon":2,"lat":"y"}"#,
    #"{"time":"2024-05-01T07:00:00Z","lat":91,"lon":2}"#,
    #"{"time":"2024-05-01T07:00:00Z","lat":1,"lon":200}"#,
    #"{"time":"2024-05-01T07:00:00Z","lat":1,"lon":2,"accuracy":0}"#,
    #"{"time":"2024-05-01T07:00:00Z","lat":1,"lon":2,"accuracy":"5"}"#,
    #"{"time":"2024-05-01T07:00:00Z","lat":"1","lon":2}"#,
    #"{"t\u0069me":"2024-05-01T07:00:00Z","lat":1,"lon":2}"#,
    #"{"time":"2024-05-01T07:00:00\u005a","lat":1,"lon":2}"#,
    #"{"device":"","time":1,"lat":1,"lon":2}"#,
    #"{"device":"b\"s","time":1,"lat":1,"lon":2}"#,
    #"{"device":true,"time":1,"lat":1,"lon":2}"#,
    #"{"time":1,"lat":1,"lon":2} x"#,
    #"{"time":1,"lat":1,"lon":2,}"#,
    #"{"time":1,"lat":01,"lon":2}"#,
    #"{"time":1,"lat":1.,"lon":2}"#,
    #"{"time":1,"lat":1,"lon":2"#,
    #"{}"#, #"[1,2]"#, #""x""#, #"{"time":null,"lat":1,"lon":2}"#, #"{"lat":1,"lon":2}"#,
    #"{"time":1,"lat":12345678901234567890.5,"lon":2.00000000000000000000000001}"#,
  ]

  @Test func everyPlainReadingIsTheGeneralOne() {
    var plainCount = 0
    for line in Self.lines {
      for (assumeUTC, named, unnamed) in [(false, false, 0), (true, false, 0), (false, true, 0), (false, false, 3)] {
        let (plain, general) = Self.both(line, assumeUTC: assumeUTC, named: named, unnamed: unnamed)
        guard let plain else { continue }
        plainCount += 1
        guard case .success(let g) = general else {
          Issue.record("plain read \(line) (assumeUTC \(assumeUTC), named \(named), unnamed \(unnamed)); general: \(general)")
          continue
        }
        #expect(plain.0 == g.0 && plain.1 == g.1, "\(line)")
        #expect(plain.0.time.bitPattern == g.0.time.bitPattern)
      }
    }
    // The common shapes take the plain path.
    #expect(plainCount >= 12)
    #expect(Self.both(Self.lines[0]).plain != nil && Self.both(Self.lines[2]).plain != nil && Self.both(Self.lines[3]).plain != nil)
  }

  /// Generated lines with random keys, orders, spacing, types and damage: the same.
  @Test func generatedLinesReadTheSame() {
    var rng = SeededGenerator(seed: 17)
    func pick<T>(_ a: [T]) -> T { a[Int(rng.next(below: UInt64(a.count)))] }
    for _ in 0..<20_000 {
      var members: [String] = []
      let times = [#""2024-05-01T07:00:00Z""#, #""2024-05-01T07:00:00.5+09:00""#, #""2024-05-01T07:00:00""#, "1714546800", "1714546800123", #""noon""#, "null", "[1]"]
      if rng.next(below: 10) > 0 { members.append(#""time":"# + pick(times)) }
      if rng.next(below: 10) > 0 { members.append(#""lat":"# + pick(["37.5", "-89.99", "91", "\"1\"", "1e1", "-0"])) }
      if rng.next(below: 10) > 0 { members.append(#""lon":"# + pick(["-122.25", "179.9", "180.5", "null", "2E-2"])) }
      if rng.next(below: 3) == 0 { members.append(#""accuracy":"# + pick(["5", "0", "-1", "null", "\"x\"", "3.25"])) }
      if rng.next(below: 4) == 0 { members.append(#""device":"# + pick(["\"a\"", "7", "\"\"", "false", "\"x\\ty\""])) }
      if rng.next(below: 3) == 0 { members.append(#""speed":"# + pick(["1", "{\"k\":[null,true]}", "\"s\""])) }
      if rng.next(below: 8) == 0, let first = members.first { members.append(first) }
      members.shuffle(using: &rng)
      var line = "{" + members.joined(separator: pick([",", ", ", " ,"])) + "}"
      if rng.next(below: 20) == 0 { line.removeLast() }
      if rng.next(below: 20) == 0 { line += " x" }
      let (plain, general) = Self.both(line, assumeUTC: rng.next(below: 2) == 0, named: false, unnamed: 0)
      guard let plain else { continue }
      guard case .success(let g) = general else {
        Issue.record("plain read \(line); general: \(general)")
        continue
      }
      #expect(plain.0 == g.0 && plain.1 == g.1, "\(line)")
    }
  }
}
