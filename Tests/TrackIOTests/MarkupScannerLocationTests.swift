import Foundation
import SeededRandom
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// Lines and columns located by the scanner (counted eight bytes at a time) against a byte-by-byte
/// count, at offsets taken forwards and backwards, in text of every line length.
@Suite("Markup scanner locations")
struct MarkupScannerLocationTests {
  @Test(arguments: [UInt64(1), 2, 3])
  func locationsMatchAByteCount(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var text: [UInt8] = []
    while text.count < 200_000 {
      // Runs of short and long lines, newlines next to each other, bytes that differ from '\n' by one bit.
      let length = Int(rng.next(below: rng.next(below: 2) == 0 ? 12 : 300))
      for _ in 0..<length { text.append([0x0B, 0x08, 0x8A, 0x2A, 0x61, 0x3C, 0x20][Int(rng.next(below: 7))]) }
      text.append(0x0A)
    }
    let folder = try TemporaryFolder()
    let path = folder.path("t.xml")
    try Data(text).write(to: URL(fileURLWithPath: path))
    let scanner = try MarkupScanner(path: path)
    try scanner.prefetch(text.count)
    #expect(scanner.bytes.count == text.count)
    var offset = 0
    for step in 0..<4_000 {
      offset = step % 10 == 9 ? max(0, offset - Int(rng.next(below: 500))) : min(text.count, offset + Int(rng.next(below: 120)))
      var line = 1
      var lastNewline = -1
      for k in 0..<offset where text[k] == 0x0A {
        line += 1
        lastNewline = k
      }
      let located = scanner.location(of: offset)
      #expect(located.line == line && located.column == offset - lastNewline, "offset \(offset)")
    }
  }
}
