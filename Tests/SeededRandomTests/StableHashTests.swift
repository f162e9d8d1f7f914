import SeededRandom
import Testing

@Suite("Stable hash")
struct StableHashTests {
  /// FNV-1a's published 64-bit test vectors, and words as their eight little-endian bytes.
  @Test func matchesFNV1aVectors() {
    var empty = StableHash()
    empty.combine("")
    #expect(empty.value == 0xcbf2_9ce4_8422_2325)
    var a = StableHash()
    a.combine("a")
    #expect(a.value == 0xaf63_dc4c_8601_ec8c)
    var foobar = StableHash()
    foobar.combine("foobar")
    #expect(foobar.value == 0x8594_4171_f739_67e8)
    var word = StableHash()
    word.combine(0x0807_0605_0403_0201 as UInt64)
    var bytes = StableHash()
    bytes.combine([1, 2, 3, 4, 5, 6, 7, 8] as [UInt8])
    #expect(word.value == bytes.value && word.finalized == SeededGenerator.hash(bytes.value))
  }
}
