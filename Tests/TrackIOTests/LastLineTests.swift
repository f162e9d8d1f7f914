import Testing
import TrackIO
import _GeoWakeTestSupport

/// The last-line checks compare the final, unterminated line with the line before it, which the
/// line reader keeps across its chunk refills: wherever the chunk boundary falls, the verdict is
/// the one a whole-file reading gives.
@Suite("Last line of a CSV track")
struct LastLineTests {
  /// A track of `count` lines whose last line has no line end, its longitude with `lastDigits`
  /// digits after the point against 4 on the lines before.
  static func track(lines count: Int, padding: Int, lastDigits: Int) -> String {
    var text = "time,lat,lon,note\n"
    for i in 0..<count {
      text += "\(1_700_000_000 + i),35.6123,139.7123,\(String(repeating: "x", count: (i * 7919 + padding) % 97))\n"
    }
    let longitude = lastDigits == 0 ? "139" : "139." + String(repeating: "7", count: lastDigits)
    return text + "\(1_700_000_000 + count),35.6123,\(longitude),x"
  }

  @Test(arguments: [0, 1, 17, 40, 63, 64, 65, 90, 127])
  func theLineBeforeIsKeptAcrossAChunkBoundary(padding: Int) throws {
    let folder = try TemporaryFolder()
    // Long enough that the reader refills more than once; the padding moves the boundaries.
    let count = 30_000 + padding * 13
    for (digits, warned) in [(4, false), (5, false), (3, true), (0, true)] {
      let path = try folder.file("t\(digits).csv", containing: Self.track(lines: count, padding: padding, lastDigits: digits))
      var reader = try FixCSVReader(path: path)
      let fixes = try reader.readAll()
      #expect(fixes.count == count + 1)
      let warnings = reader.takeWarnings()
      #expect(warnings.isEmpty != warned, "digits \(digits): \(warnings)")
      if warned { #expect(warnings.first?.line == count + 2) }
    }
  }

  @Test func aCommentOrBlankLineBeforeTheLastIsNotCompared() throws {
    let folder = try TemporaryFolder()
    for between in ["# note\n", "\n"] {
      let path = try folder.file("c.csv", containing: "time,lat,lon\n1,35.6123,139.7123\n\(between)2,35.6,139.7")
      var reader = try FixCSVReader(path: path)
      #expect(try reader.readAll().count == 2)
      #expect(reader.takeWarnings().isEmpty)
    }
  }

  @Test func aNumberCutShortIsAnErrorAfterAChunkBoundary() throws {
    let folder = try TemporaryFolder()
    let text = Self.track(lines: 40_000, padding: 3, lastDigits: 4).dropLast(10) + "139.,x"
    let path = try folder.file("cut.csv", containing: String(text))
    var reader = try FixCSVReader(path: path)
    #expect(throws: TrackIOError.self) { _ = try reader.readAll() }
  }
}
