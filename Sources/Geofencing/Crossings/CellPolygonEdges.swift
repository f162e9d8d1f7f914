import CDetectorKernels
import Geodesy

/// The edges of the polygons whose boundary passes through one grid cell, restricted to the edges
/// that meet the cell, filed in a grid of sub-cells: what a segment between two fixes needs to know
/// which polygon boundaries it may have crossed, looking at the few edges that pass through the
/// sub-cells it spans instead of all of them.
///
/// Coordinates are each polygon's own projected ones (``PlanarPolygons``): a longitude of the cell
/// plus the polygon's whole turns there (``shift``), so a fix's projected x is computed exactly as
/// ``PolygonGeometry/contains(x:y:)`` computes it and the two always agree. A polygon wider than
/// 180° of longitude has no single shift over a cell; it is listed with a NaN shift and no edges,
/// and the detector solves it in general.
///
/// **Sub-cells.** Each sub-cell lists every edge that meets its closed rectangle grown by a
/// billionth of its size (at least 10⁻¹² degrees, ten times the rounding of a longitude shifted by
/// whole turns), so that the rounding of a point's sub-cell index never leaves an edge out. The
/// path between two fixes is straight in latitude and longitude (the documented path model): ends
/// in one sub-cell or two side by side keep it in them; a longer step meets the sub-cells the same
/// computation that filed the edges finds for it (``Runs``). Either way it can cross only the
/// edges those sub-cells list.
///
/// **Rejection.** Most listed edges are dismissed by the side of their line each end of the
/// segment lies on, in single precision with a bound on its rounding (``sides``): both ends
/// farther than the bound on one side means no contact at all, which the exact test
/// (``crossing(_:lon0:lat0:lon1:lat1:)``) would also find. Only the rest are tested exactly.
final class CellPolygonEdges: Sendable {
  /// One edge for the exact test: its ends in its polygon's projected coordinates (degrees) and its
  /// polygon (an index into ``shift``).
  struct Edge: Sendable {
    var x0: Double
    var y0: Double
    var x1: Double
    var y1: Double
    var polygon: Int32
  }

  /// Each edge's line for the side test, (a, b, c, bound) in single precision, 16 bytes: the side
  /// value of a point of the cell or a neighbour is s = a·u + b·v + c, with u = longitude − west
  /// and v = latitude − south of the cell (``local(latitude:longitude:)``), computed in single
  /// precision. It differs from the exact S = (X − x₀)·(y₁ − y₀) − (y − y₀)·(x₁ − x₀), with X the
  /// longitude plus the shift rounded as the exact test rounds it, by at most `bound`
  /// (``sideBound(north:east:c:width:height:west:shift:)``): so s > bound means S > 0 and
  /// s < −bound means S < 0.
  let sides: [SIMD4<Float>]

  /// Whole turns (degrees, a multiple of 360) that take a longitude of the cell to polygon k's
  /// projected x; NaN for a polygon wider than ``widestShifted``.
  let shift: [Double]
  /// Whether some polygon has a NaN shift.
  let hasWidePolygons: Bool
  let edges: [Edge]

  /// The sub-cell grid: `rows` × `columns` over the cell's box, sub-cell (i, j) at i · columns + j
  /// listing `subEdges[subStart[s] ..< subStart[s + 1]]` (ascending); its geometry is ``runs``.
  let rows: Int
  let columns: Int
  let subStart: [Int32]
  let subEdges: [Int32]
  /// The sub-cells a point or a segment is in (``Runs``), as the filing found them.
  let runs: Runs

  /// The widest polygon (degrees of longitude) whose turns are the same all over a cell it meets:
  /// its points lie within 90° of its middle, and the turns change only 180° from the middle.
  static let widestShifted = 180.0
  /// At most this many sub-cells a side: a cell of many edges (large polygons of many vertices)
  /// still has only a few in each sub-cell. (The 200 coastline-shaped districts of
  /// `Benchmarks/compare-peers` put up to 185,000 edges in a cell: at 128 a side, about 21 in each
  /// sub-cell a boundary crosses, all tested at every fix there; at 512, about 4.)
  static let largestGrid = 512

  /// The edges of `polygons` (each with the cell's west edge in its projected coordinates) that
  /// meet the cell `box`, filed in sub-cells about square in metres of M and p per degree.
  init(
    _ polygons: [(geometry: PolygonGeometry, west: Double)], box: GeoBox, metresPerDegreeLatitude: Double,
    metresPerDegreeLongitude: Double
  ) {
    let height = box.north - box.south
    let width = box.east - box.west
    south = box.south
    west = box.west
    var shift: [Double] = []
    shift.reserveCapacity(polygons.count)
    // Room for every edge of every polygon, written in place. (At least one: a capacity of 0
    // would write the count into the one shared empty-array storage, and the loop below, which
    // also records every polygon's shift, always runs.)
    let room = max(1, polygons.reduce(0) { $0 + $1.geometry.planar.vertexCount })
    // One polygon's edges meeting the cell, before they become records.
    let polygonEdges = UnsafeMutablePointer<SIMD4<Double>>.allocate(
      capacity: max(1, polygons.reduce(0) { max($0, $1.geometry.planar.vertexCount) }))
    defer { polygonEdges.deallocate() }
    // The side-test lines, copied to an array of their number at the end.
    let sideBuffer = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: room)
    defer { sideBuffer.deallocate() }
    var edges = [Edge](unsafeUninitializedCapacity: room) { storage, initialized in
      var count = 0
      for (k, (geometry, west)) in polygons.enumerated() {
        let planar = geometry.planar
        if planar.box.east - planar.box.west > Self.widestShifted {
          shift.append(.nan)
          continue
        }
        let turns = planar.turns(longitude: box.west)
        shift.append(turns)
        let meeting = geometry.edgesMeeting(
          west: west, south: box.south, east: west + width, north: box.north, into: polygonEdges)
        for i in 0..<meeting {
          let e = polygonEdges[i]
          let east = e.z - e.x
          let north = e.w - e.y
          // The line's constant at the cell's south-west corner.
          let c = ((box.west + turns) - e.x) * north - (box.south - e.y) * east
          let bound = Self.sideBound(
            north: north, east: east, c: c, width: width, height: height, west: box.west, shift: turns)
          (sideBuffer + count).initialize(to: SIMD4(Float(north), Float(-east), Float(c), bound))
          storage.initializeElement(at: count, to: Edge(x0: e.x, y0: e.y, x1: e.z, y1: e.w, polygon: Int32(k)))
          count &+= 1
        }
      }
      initialized = count
    }
    self.shift = shift
    hasWidePolygons = shift.contains { $0.isNaN }
    if edges.isEmpty {
      // No capacity kept. (Not `unsafeUninitializedCapacity` of 0: it writes the count into the
      // one shared empty-array storage.)
      edges = []
    } else if edges.capacity > 2 * edges.count + 1024 {
      // Large polygons meeting the cell with few edges: cut back to the size. (`Array(edges)`
      // would keep the same storage.)
      edges = [Edge](unsafeUninitializedCapacity: edges.count) { storage, initialized in
        initialized = storage.initialize(fromContentsOf: edges)
      }
    }
    self.edges = edges
    sides = edges.isEmpty ? [] : Array(UnsafeBufferPointer(start: sideBuffer, count: edges.count))
    // About four sub-cells per edge, near-square in metres.
    let aspect = (width * metresPerDegreeLongitude) / (height * metresPerDegreeLatitude)
    let target = 4 * Double(max(1, edges.count))
    rows = edges.isEmpty ? 1 : min(Self.largestGrid, max(1, Int((target / aspect).squareRoot().rounded(.up))))
    columns = edges.isEmpty ? 1 : min(Self.largestGrid, max(1, Int((target * aspect).squareRoot().rounded(.up))))
    runs = Runs(
      rows: rows, columns: columns, south: box.south, west: box.west, rowHeight: height / Double(rows),
      columnWidth: width / Double(columns))
    let filed = Self.file(edges, shift: shift, rows: rows, columns: columns, runs: runs)
    (subStart, subEdges) = (filed.start, filed.list)
    keptCapacity = 2 * filed.longest + 1
  }

  /// Room for the edges one step of ``walk(_:from:after:within:kept:)`` may keep: every edge of
  /// two sub-cells' lists.
  let keptCapacity: Int

  /// The cell's south-west corner: the origin of ``sides``.
  let south: Double
  let west: Double

  /// A point's coordinates for the side test (``sides``): degrees east of the cell's west edge and
  /// north of its south edge, in single precision.
  @inline(__always)
  func local(latitude: Double, longitude: Double) -> (u: Float, v: Float) {
    (Float(longitude - west), Float(latitude - south))
  }

  /// The bound on the side test's rounding for an edge going `east` and `north` (degrees, as
  /// rounded from its ends) whose line has constant `c` at the cell's south-west corner (`west`,
  /// computed in double precision with the polygon's `shift`), for points of a cell `width` ×
  /// `height` or of its neighbours (|u| ≤ 2 width, |v| ≤ 2 height).
  ///
  /// With a = |north|, b = |east|, ε = 2⁻²⁴ (single precision) and ε₅₃ = 2⁻⁵³, and
  /// M = a·2 width + b·2 height + |c|:
  /// - u, v and the three coefficients each carry one single rounding of a value at most a few
  ///   double roundings off (relative error ≤ 1.01 ε): ≤ 2.03 ε·M in all;
  /// - the evaluation a·u + (b·v + c) rounds two products and two sums: ≤ 3.1 ε·M;
  /// - c in double precision is off by at most 8 ε₅₃ of its products' sizes,
  ///   |west + shift − x₀|·a + |south − y₀|·b ≤ (width + b)·a + (height + a)·b ≤ M + 2ab, as the
  ///   edge meets the cell;
  /// - the exact test's x is the longitude plus the shift rounded, off by ε₅₃·|longitude + shift|
  ///   (times a), as is west + shift in c.
  ///
  /// So 8 ε·(M + 2ab) + 4 ε₅₃·(|west| + |shift| + 2 width)·a bounds it all; it is rounded up to
  /// single precision, and is at least the least normal single, which covers products and sums
  /// that underflow (each off by at most 2⁻¹⁵⁰).
  static func sideBound(
    north: Double, east: Double, c: Double, width: Double, height: Double, west: Double, shift: Double
  ) -> Float {
    let a = abs(north)
    let b = abs(east)
    let m = a * 2 * width + b * 2 * height + abs(c)
    let bound = 8 * 0x1p-24 * (m + 2 * a * b) + 4 * 0x1p-53 * (abs(west) + abs(shift) + 2 * width) * a
    return max(Float(bound * (1 + 0x1p-20)).nextUp, Float.leastNormalMagnitude)
  }

  /// The number of edges.
  var count: Int { edges.count }

  /// The sub-cell of a point (latitude, longitude of the cell), clamped to the grid: a point
  /// outside the cell gets the sub-cell nearest to it in each axis.
  @inline(__always)
  func subCell(latitude: Double, longitude: Double) -> (row: Int, column: Int) {
    (
      Self.index(latitude - runs.south, scale: runs.rowScale, last: runs.rowLimit),
      Self.index(longitude - runs.west, scale: runs.columnScale, last: runs.columnLimit)
    )
  }

  /// The row (or column) `offset` degrees from the grid's south (or west) edge falls in, `scale`
  /// rows a degree: clamped as a double to 0 ... `last` (a point outside the cell, or rounding at
  /// its border), then converted without Swift's range check, which the clamp makes moot.
  @inline(__always)
  private static func index(_ offset: Double, scale: Double, last: Double) -> Int {
    geowake_grid_index(offset, scale, last)
  }

  /// The sub-cell grid's geometry for finding the sub-cells a segment meets: the rows it spans,
  /// and in each the columns whose rectangles, grown by a billionth of their size (at least 10⁻¹²
  /// degrees) and by as much again for the rounding of this computation, the segment clipped to the
  /// row's grown band meets. Used to file an edge and to gather the edges a long step may meet:
  /// both compute the same, so an edge and a step that meet at a point of the cell share the
  /// sub-cell of that point. A point's own sub-cell (``subCell(latitude:longitude:)``) is found
  /// with the same scales.
  struct Runs {
    let south: Double
    let west: Double
    let rowHeight: Double
    let growX: Double
    let growY: Double
    let rowScale: Double
    let columnScale: Double
    let rowLimit: Double
    let columnLimit: Double
    let columns: Int

    init(rows: Int, columns: Int, south: Double, west: Double, rowHeight: Double, columnWidth: Double) {
      // The sub-cells' own growth (the rounding of an index), and as much again for the rounding
      // of the clipping below: far beyond either.
      growY = 2 * max(rowHeight * 1e-9, 1e-12)
      growX = 2 * max(columnWidth * 1e-9, 1e-12)
      rowScale = 1 / rowHeight
      columnScale = 1 / columnWidth
      rowLimit = Double(rows - 1)
      columnLimit = Double(columns - 1)
      self.south = south
      self.west = west
      self.rowHeight = rowHeight
      self.columns = columns
    }

    /// The first and last rows the segment between latitudes y0 and y1 meets (clamped to the grid).
    @inline(__always)
    func rows(_ y0: Double, _ y1: Double) -> (first: Int, last: Int) {
      // One select each (minsd, maxsd): a tuple's was a branch, mispredicted for half the edges.
      let lowY = y0 < y1 ? y0 : y1
      let highY = y0 < y1 ? y1 : y0
      return (
        CellPolygonEdges.index(lowY - growY - south, scale: rowScale, last: rowLimit),
        CellPolygonEdges.index(highY + growY - south, scale: rowScale, last: rowLimit)
      )
    }

    /// Calls `body` with each row of `rows` and the first and last sub-cells (row · columns +
    /// column) of it that the segment from (x0, y0) to (x0 + east, y0 + north) (longitudes of the
    /// cell) meets.
    @inline(__always)
    func forEachRun(
      x0: Double, y0: Double, east: Double, north: Double, rows: (first: Int, last: Int),
      _ body: (_ first: Int, _ last: Int) -> Void
    ) {
      // The whole segment's longitudes, for a segment within one row.
      let x1 = x0 + east
      let segmentWest = x0 < x1 ? x0 : x1
      let segmentEast = x0 < x1 ? x1 : x0
      let clips = rows.first != rows.last && north != 0
      // Degrees of longitude per degree of latitude along the segment.
      let slope = clips ? east / north : 0
      var row = rows.first
      while row <= rows.last {
        var westX = segmentWest
        var eastX = segmentEast
        if clips {
          // The part of the segment within the row's grown band: its line's longitudes at the
          // band's edges, clamped to the segment's (a segment ending in the band's rounding
          // keeps the row: listing costs only time). Without branches: min and max.
          let bandSouth = south + Double(row) * rowHeight - growY
          let bandNorth = south + Double(row &+ 1) * rowHeight + growY
          let xs = x0 + (bandSouth - y0) * slope
          let xn = x0 + (bandNorth - y0) * slope
          let low = xs < xn ? xs : xn
          let high = xs < xn ? xn : xs
          let a = low > segmentWest ? low : segmentWest
          let b = high < segmentEast ? high : segmentEast
          westX = a < b ? a : b
          eastX = a < b ? b : a
        }
        let firstColumn = CellPolygonEdges.index(westX - growX - west, scale: columnScale, last: columnLimit)
        let lastColumn = CellPolygonEdges.index(eastX + growX - west, scale: columnScale, last: columnLimit)
        body(row &* columns &+ firstColumn, row &* columns &+ lastColumn)
        row &+= 1
      }
    }
  }

  /// Every edge filed in each sub-cell whose rectangle, grown by a billionth of its size (at least
  /// 10⁻¹² degrees) and by as much again for the rounding of this computation, it meets: per row
  /// of sub-cells, the edge clipped to the row's grown band of latitudes spans an interval of
  /// longitudes, and the columns whose grown rectangles meet that interval list it. Then ordered by
  /// sub-cell, edges ascending; `longest`, the most edges a sub-cell lists.
  ///
  /// Built for size: the rows of an edge are a few and their columns one or two, and the
  /// vectorised, unrolled loops of a speed build spend more on setting themselves up than they
  /// save (callgrind, the benchmark track at 10,000 polygons: 67.5 M instructions for speed,
  /// 63.6 M for size, the sub-cells' sums built for speed in both).
  @_optimize(size) @inline(never)
  private static func file(_ edges: [Edge], shift: [Double], rows: Int, columns: Int, runs: Runs) -> (
    start: [Int32], list: [Int32], longest: Int
  ) {
    let cells = rows * columns
    // (sub-cell, edge) pairs, packed sub-cell · 2³² + edge, in a buffer grown by hand: the filing
    // loop then has no uniqueness or bounds checks, and the sub-cell counts neither.
    var capacity = max(64, edges.count * 8)
    var pairs = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    defer { pairs.deallocate() }
    var count = 0
    var longest = 0
    var start = [Int32](repeating: 0, count: cells + 1)
    start.withUnsafeMutableBufferPointer { start in
      edges.withUnsafeBufferPointer { edges in
        var e = 0
        while e < edges.count {
          let edge = edges[e]
          let edgeRows = runs.rows(edge.y0, edge.y1)
          // At most this many pairs from this edge, and one written past them: make room at once.
          let most = (edgeRows.last &- edgeRows.first &+ 1) &* columns &+ 1
          if count &+ most > capacity {
            let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: max(2 * capacity, count + most))
            grown.moveInitialize(from: pairs, count: count)
            pairs.deallocate()
            pairs = grown
            capacity = max(2 * capacity, count + most)
          }
          let packedEdge = UInt64(truncatingIfNeeded: e)
          // In the cell's longitudes (rounded: the filing's growth is far beyond that).
          runs.forEachRun(
            x0: edge.x0 - shift[Int(edge.polygon)], y0: edge.y0, east: edge.x1 - edge.x0, north: edge.y1 - edge.y0,
            rows: edgeRows
          ) { first, last in
            // A run is one sub-cell or two, mostly: both written without a branch (the second
            // counted only when it is in the run; `start` has a place past the last sub-cell), the
            // rest in a loop. A loop over every run mispredicted its end one time in three.
            let second = last > first ? 1 : 0
            pairs[count] = UInt64(truncatingIfNeeded: first) &<< 32 | packedEdge
            pairs[count &+ 1] = UInt64(truncatingIfNeeded: first &+ 1) &<< 32 | packedEdge
            start[first] &+= 1
            start[first &+ 1] &+= Int32(truncatingIfNeeded: second)
            count &+= 1 &+ second
            var cell = first &+ 2
            while cell <= last {
              pairs[count] = UInt64(truncatingIfNeeded: cell) &<< 32 | packedEdge
              count &+= 1
              start[cell] &+= 1
              cell &+= 1
            }
          }
          e &+= 1
        }
      }
      longest = Int(Self.sumUp(UnsafeMutableBufferPointer(rebasing: start[0..<cells])))
      start[cells] = Int32(truncatingIfNeeded: count)
    }
    // No edge: the empty array. (`unsafeUninitializedCapacity` with a capacity of 0 writes the
    // count into the one shared empty-array storage, a data race between cells built at once.)
    guard count > 0 else { return (start, [], longest) }
    // Each sub-cell's list filled from its end, the pairs taken last first: its edges come out
    // ascending, and `start[cell]` ends at the list's first place (no second array of places).
    let list = [Int32](unsafeUninitializedCapacity: count) { list, initialized in
      start.withUnsafeMutableBufferPointer { start in
        var k = count
        while k > 0 {
          k &-= 1
          let pair = pairs[k]
          let cell = Int(truncatingIfNeeded: pair &>> 32)
          start[cell] &-= 1
          list[Int(start[cell])] = Int32(truncatingIfNeeded: pair)
        }
      }
      initialized = count
    }
    return (start, list, longest)
  }

  /// Replaces each of `counts` (a sub-cell's edges) by its sum with every count before it (the
  /// sub-cell's end in the lists), and returns the largest count (0 for none). In a function of
  /// its own, built for speed: the largest is found in vector lanes, which
  /// ``file(_:shift:rows:columns:runs:)``, built for size, would not do.
  @inline(never)
  private static func sumUp(_ counts: UnsafeMutableBufferPointer<Int32>) -> Int32 {
    var largest: Int32 = 0
    for count in counts { largest = max(largest, count) }
    var sum: Int32 = 0
    for k in counts.indices {
      sum &+= counts[k]
      counts[k] = sum
    }
    return largest
  }
}
