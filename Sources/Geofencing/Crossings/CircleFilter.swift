import CDetectorKernels

/// Eight circles of a cell in single precision and struct-of-arrays form: the first, vectorised
/// look at every circle of the cell at a fix, which settles almost all of them without a branch
/// per circle and leaves the rest to the exact chord test.
///
/// Coordinates are Earth-centred and relative to the cell's ``CellCandidates/origin``. The
/// thresholds carry a slack ε (``CircleFilter/slack(extent:)``) that covers every rounding of the
/// single-precision arithmetic, so that what the filter calls clear is clear in exact arithmetic:
/// `innerSquared` is (inner chord − ε)² (−1 when that is not positive: never clear inside), `inner`
/// and `outer` are the chord thresholds moved inwards and outwards by ε. An unused lane holds a
/// circle infinitely far away: outside and clear at every fix.
struct FilterBlock {
  var x: SIMD8<Float>
  var y: SIMD8<Float>
  var z: SIMD8<Float>
  var innerSquared: SIMD8<Float>
  var inner: SIMD8<Float>
  var outer: SIMD8<Float>

  static let unused = FilterBlock(
    x: SIMD8(repeating: 1e18), y: SIMD8(repeating: 1e18), z: SIMD8(repeating: 1e18),
    innerSquared: SIMD8(repeating: -1), inner: SIMD8(repeating: -1), outer: .zero)
}

/// The filter of a cell's circles (see ``FilterBlock``).
///
/// **Error bound.** Let C bound the absolute value of every coordinate the filter sees (centres
/// and fixes relative to the origin) and of every threshold, and u = 2⁻²⁴ the unit roundoff of
/// `Float`. Rounding a point and a centre to `Float` moves each by at most √3·u·C; the differences
/// (at most 2C) are rounded by at most u·2C each, √3·2u·C in all; the sum of three squares carries
/// a relative error below 5u, so at most 2.5u·d ≤ 5u·C on the chord d; the square root adds u·d ≤
/// 2u·C. The computed chord is therefore within 14u·C of the exact chord between the exact points,
/// and rounding a threshold to `Float` moves it by at most u·C. The slack ε = 2⁻¹⁸·C = 64u·C
/// covers both with room to spare, so a lane the filter finds clear inside is inside the exact
/// inner threshold, one clear outside is beyond the exact outer threshold plus the step, and its
/// margin (chord distance to the band, ε taken off) is a lower bound of the exact margin.
/// `CircleFilterTests` checks the bound against double precision at the extremes of C. A cell
/// whose points come through its ``LocalTaylorMap`` adds twice that map's error bound to ε.
enum CircleFilter {
  /// ε for a cell whose coordinates and thresholds are bounded by `extent` metres.
  static func slack(extent: Double) -> Double { extent * 0x1p-18 }

  /// The blocks for `circles` (in order: circle k is lane k % 8 of block k / 8), relative to
  /// `origin`, with slack `epsilon`.
  static func blocks(_ circles: [CellCandidates.Circle], origin: SIMD3<Double>, epsilon: Double) -> [FilterBlock] {
    var blocks = [FilterBlock](repeating: .unused, count: (circles.count + 7) / 8)
    guard !blocks.isEmpty else { return blocks }
    // Lanes written as plain floats: through `SIMD8`'s subscript each goes through memory.
    blocks.withUnsafeMutableBufferPointer { blocks in
      let floats = UnsafeMutableRawPointer(blocks.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Float.self)
      for (k, circle) in circles.enumerated() {
        let lane = floats + (k >> 3) * 48 + (k & 7)
        let c = circle.center - origin
        let inner = circle.inner - epsilon
        lane[0] = Float(c.x)
        lane[8] = Float(c.y)
        lane[16] = Float(c.z)
        lane[24] = inner > 0 ? Float(inner * inner) : -1
        lane[32] = Float(inner)
        lane[40] = Float(circle.outer + epsilon)
      }
    }
    return blocks
  }

  /// A bound C on the absolute coordinates and thresholds the filter of a cell can see: the
  /// centres and thresholds of its circles (a centre's largest coordinate plus its outer
  /// threshold) and the coordinates of the fixes, at most `reach` metres.
  static func extent(_ circles: [CellCandidates.Circle], origin: SIMD3<Double>, reach: Double) -> Double {
    var extent = reach
    for circle in circles {
      let c = circle.center - origin
      extent = max(extent, max(abs(c.x), abs(c.y), abs(c.z)) + circle.outer)
    }
    return extent
  }

  /// The most blocks ``run(_:inside:from:at:step:)`` tests at once: 64 circles, one bit each.
  static let blocksPerRun = 8

  /// Tests the circles of blocks `first ..< first + 8` (fewer at the end) of a cell at a point `q`
  /// (relative to the cell's origin) at the end of a segment of length at most `step`, the states
  /// at its start being `inside`.
  ///
  /// A circle is clear when it was inside and `q` is clear inside (then, on a step no longer than
  /// ``CircleCrossingSolver/maximumPieceLength``, the path stayed inside: the chord is
  /// quasi-convex along it), or was outside and `q` is beyond the outer threshold by more than
  /// `step` (no point of the path came near).
  ///
  /// The loop is `geowake_circle_filter` (CDetectorKernels), written with clang's vector extensions:
  /// through Swift's `SIMD8`, selects and reductions are lane loops that the optimiser
  /// re-vectorises only in part (measured: about 60 instructions per block instead of about 25).
  /// It returns its findings instead of writing them, so that it only reads memory.
  /// - Returns: A lower bound of every tested circle's margin at `q` (0 when one is in its band;
  ///   +∞ for no circle), and the circles not cleared: bit i for circle `8 * first + i`.
  @inline(__always)
  static func run(
    _ blocks: UnsafeBufferPointer<FilterBlock>, inside: UnsafeBufferPointer<SIMDMask<SIMD8<Int32>>>, from first: Int,
    at q: SIMD3<Float>, step: Double
  ) -> (margin: Double, uncleared: UInt64) {
    let count = min(blocksPerRun, blocks.count &- first)
    guard count > 0, let blockBase = blocks.baseAddress, let insideBase = inside.baseAddress else {
      return (.infinity, 0)
    }
    let result = geowake_circle_filter(
      UnsafeRawPointer(blockBase + first).assumingMemoryBound(to: Float.self),
      UnsafeRawPointer(insideBase + first).assumingMemoryBound(to: Int32.self), count, q.x, q.y, q.z, Float(step),
      step <= CircleCrossingSolver.maximumPieceLength ? 1 : 0)
    return (max(0, Double(result.least)), result.uncleared)
  }
}
