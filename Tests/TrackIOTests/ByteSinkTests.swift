import Foundation
import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("ByteSink")
struct ByteSinkTests {
  static func names(_ folder: TemporaryFolder) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
  }

  @Test func aFileAppearsOnlyAtTheCommit() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("out.txt")
    let sink = try ByteSink(path: path)
    try sink.write(String(repeating: "x", count: 3 << 20))
    #expect(!FileManager.default.fileExists(atPath: path))
    try sink.commit()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 3 << 20)
    #expect(try Self.names(folder) == ["out.txt"])
  }

  @Test func aSinkReleasedBeforeItsCommitLeavesNothing() throws {
    let folder = try TemporaryFolder()
    let kept = try folder.file("kept.txt", containing: "kept\n")
    do {
      let fresh = try ByteSink(path: folder.path("new.txt"))
      let replacing = try ByteSink(path: kept, overwrite: true)
      try fresh.write(String(repeating: "y", count: 2 << 20))
      try replacing.write("half")
    }
    #expect(try Self.names(folder) == ["kept.txt"])
    #expect(try String(contentsOfFile: kept, encoding: .utf8) == "kept\n")
  }

  /// A file that was not there at the start and appears during the run is never replaced.
  @Test func aFileThatAppearsMeanwhileIsKept() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("race.txt")
    let sink = try ByteSink(path: path)
    try sink.write("ours\n")
    _ = try folder.file("race.txt", containing: "theirs\n")
    #expect(throws: TrackIOError.self) { try sink.commit() }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
    #expect(try Self.names(folder) == ["race.txt"])
  }
}

/// Timestamps written straight into the sink, padded to a column, are the text the table
/// columns pad (``TimestampText/iso8601(_:fractionDigits:)`` then `column`), byte for byte.
@Suite struct ByteSinkTimestampColumnTests {
  @Test func paddedTimestampsMatchTheTextColumns() throws {
    var random = SeededGenerator(seed: 3)
    var times: [Double] = [0, -1, -0.0005, 1_714_546_800, 1_714_546_799.9996, 253_402_300_799.999, 253_402_300_800, -62_135_596_800]
    for _ in 0..<2_000 { times.append(random.uniform(-3e10...3e11)) }
    for digits in [0, 3, 6] {
      for width in [10, 24, 26, 32] {
        let sink = ByteSink.inMemory()
        var expected = ""
        for t in times {
          try sink.writeTimestamp(t, fractionDigits: digits, column: width)
          expected += TimestampText.iso8601(t, fractionDigits: digits).column(width)
        }
        #expect(String(decoding: sink.takeBytes(), as: UTF8.self) == expected, "\(digits) digits, width \(width)")
      }
    }
  }
}
