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
  private let subStart: [Int32]
  private let subEdges: [Int32]
  /// The sub-cells a point or a segment is in (``Runs``), as the filing found them.
  private let runs: Runs

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

  /// Whether the segment between two points of the cell or its neighbours (``local(latitude:longitude:)``)
  /// may meet the edge whose line is `side` (``sides``): false only when both ends lie beyond the
  /// rounding bound on one side of the line, where the exact test finds no contact either.
  @inline(__always)
  static func mayMeet(_ side: SIMD4<Float>, _ p0: (u: Float, v: Float), _ p1: (u: Float, v: Float)) -> Bool {
    !(clearance(side, p0, p1) > 0)
  }

  /// The side value of a point (``local(latitude:longitude:)``) against the line `side`
  /// (``sides``), in single precision as its bound assumes: a·u + (b·v + c).
  @inline(__always)
  static func sideValue(_ side: SIMD4<Float>, _ p: (u: Float, v: Float)) -> Float {
    side.x * p.u + (side.y * p.v + side.z)
  }

  /// How far beyond the bound both ends of the segment lie on one side of the edge's line `side`,
  /// in side-value units: positive exactly when ``mayMeet(_:_:_:)`` dismisses the edge. (The
  /// differences are exact in sign: x − y > 0 exactly when x > y in IEEE arithmetic, with
  /// gradual underflow.)
  @inline(__always)
  static func clearance(_ side: SIMD4<Float>, _ p0: (u: Float, v: Float), _ p1: (u: Float, v: Float)) -> Float {
    let s0 = Self.sideValue(side, p0)
    let s1 = Self.sideValue(side, p1)
    // Without Swift's NaN-aware min and max (the values are finite): minss and maxss.
    let low = s0 < s1 ? s0 : s1
    let high = s0 < s1 ? s1 : s0
    // Both above the bound: low − bound > 0; both below its negative: −high − bound > 0.
    let above = low - side.w
    let below = -high - side.w
    return above > below ? above : below
  }

  /// Whether the segment from (lat0, lon0) in sub-cell `from` to (lat1, lon1) in sub-cell `to`,
  /// both in the cell, may meet an edge: false when both ends are in one sub-cell or in two
  /// side by side and the side test dismisses every edge they list. The common case, a step that
  /// meets nothing, without a call or a write.
  @inline(__always)
  func mayMeetAny(
    from: (row: Int, column: Int), to: (row: Int, column: Int), lat0: Double, lon0: Double, lat1: Double,
    lon1: Double
  ) -> Bool {
    // Sub-cell indices are at most ``largestGrid`` apart: no overflow. |r| + |c| ≤ 1 exactly
    // when r² + c² ≤ 1.
    let rows = from.row &- to.row
    let columns = from.column &- to.column
    guard rows &* rows &+ columns &* columns <= 1 else { return true }
    let a = from.row &* self.columns &+ from.column
    let b = to.row &* self.columns &+ to.column
    let p0 = local(latitude: lat0, longitude: lon0)
    let p1 = local(latitude: lat1, longitude: lon1)
    // Sub-cell indices are within the grid (``subCell(latitude:longitude:)`` clamps them).
    return sides.withUnsafeBufferPointer { sides in
      subEdges.withUnsafeBufferPointer { list in
        subStart.withUnsafeBufferPointer { start in
          for k in Int(start[b])..<Int(start[b &+ 1]) where Self.mayMeet(sides[Int(list[k])], p0, p1) {
            return true
          }
          guard a != b else { return false }
          for k in Int(start[a])..<Int(start[a &+ 1]) where Self.mayMeet(sides[Int(list[k])], p0, p1) {
            return true
          }
          return false
        }
      }
    }
  }

  /// Where ``walk(_:from:after:within:kept:)`` stopped.
  enum WalkStop: Equatable {
    /// At a fix out of order, not finite or outside the cell, or at the end of the fixes.
    case left
    /// At a step whose ends are in one sub-cell or two side by side, and the first `count` places
    /// of `kept` hold every edge of their lists that the side test keeps (an edge both lists hold,
    /// twice): the only edges the step may meet.
    case kept(count: Int)
    /// At a step whose ends are farther apart: its edges are gathered along its line
    /// (``forEachEdge(from:to:lat0:lon0:lat1:lon1:scratch:_:)``).
    case longStep
  }

  /// Moves each edge of the first `count` of `edges` (the edges a walk kept,
  /// ``WalkStop/kept(count:)``, an edge of both sub-cells' lists twice) to the front once, in no
  /// particular order, and returns their number: among a few, each compared with those already
  /// moved; among more, sorted first.
  @inline(__always)
  static func keepDistinct(_ edges: inout [Int32], count: Int) -> Int {
    // One edge, the usual: nothing to move.
    if count <= 1 { return count }
    if count > 8 { edges[0..<count].sort() }
    var distinct = 0
    for i in 0..<count {
      let e = edges[i]
      var seen = false
      if count > 8 {
        seen = distinct > 0 && edges[distinct - 1] == e
      } else {
        var k = 0
        while !seen && k < distinct {
          seen = edges[k] == e
          k += 1
        }
      }
      if !seen {
        if distinct != i { edges[distinct] = e }
        distinct += 1
      }
    }
    return distinct
  }

  /// Walks `fixes` from `start` (`last`, the fix before it, in the cell) while the steps between
  /// them are in time order, end in `box` (the cell's) and meet no edge: the steady state of a
  /// device in a cell whose regions are all polygons, each with its shift (no
  /// ``hasWidePolygons``), in one tight loop.
  ///
  /// A step is dismissed as ``mayMeetAny(from:to:lat0:lon0:lat1:lon1:)`` dismisses it: both ends
  /// in one sub-cell, or in two side by side, and every edge they list on one side of the step.
  /// Each fix's sub-cell and side-test coordinates are computed once.
  ///
  /// - Parameter kept: Room for ``keptCapacity`` edges: each edge tested is written at the next
  ///   free place, which it keeps only when the side test keeps the edge (no branch per edge).
  /// - Returns: The first fix not walked, and why the walk stopped there: a step that may meet an
  ///   edge is in order and in `box`, and must be settled.
  func walk(
    _ fixes: UnsafeBufferPointer<LocationFix>, from start: Int, after last: LocationFix, within box: GeoBox,
    kept: UnsafeMutablePointer<Int32>
  ) -> (next: Int, stop: WalkStop) {
    var beforeTime = last.time
    var a = subCell(latitude: last.coordinate.latitude, longitude: last.coordinate.longitude)
    var flatA = a.row &* columns &+ a.column
    var p0 = local(latitude: last.coordinate.latitude, longitude: last.coordinate.longitude)
    let columns = self.columns
    return sides.withUnsafeBufferPointer { sides in
      subEdges.withUnsafeBufferPointer { list in
        subStart.withUnsafeBufferPointer { subStart in
          var j = start
          while j < fixes.count {
            let time = fixes[j].time
            let latitude = fixes[j].coordinate.latitude
            let longitude = fixes[j].coordinate.longitude
            // After a finite time, `time >= beforeTime` leaves out NaN and −∞.
            guard time >= beforeTime, time < .infinity, latitude >= box.south, latitude < box.north,
              longitude >= box.west, longitude < box.east
            else { return (j, .left) }
            let b = subCell(latitude: latitude, longitude: longitude)
            let flatB = b.row &* columns &+ b.column
            let p1 = local(latitude: latitude, longitude: longitude)
            // Every edge of both sub-cells' lists (the last fix's list only when its sub-cell
            // differs) written to `kept`, counted only when the side test keeps it: most steps
            // meet nothing, and a branch on each edge's side test was mispredicted one time in
            // four. Sub-cell indices are within the grid (``subCell(latitude:longitude:)`` clamps
            // them).
            let same = flatA == flatB
            if !same {
              // |r| + |c| ≤ 1 exactly when r² + c² ≤ 1; indices are at most ``largestGrid`` apart.
              // A longer step is settled without looking at the lists.
              let rows = b.row &- a.row
              let columns = b.column &- a.column
              guard rows &* rows &+ columns &* columns <= 1 else { return (j, .longStep) }
            }
            var count = 0
            for k in Int(subStart[flatB])..<Int(subStart[flatB &+ 1]) {
              let e = list[k]
              kept[count] = e
              count &+= Self.clearance(sides[Int(e)], p0, p1) > 0 ? 0 : 1
            }
            for k in (same ? 0 : Int(subStart[flatA]))..<(same ? 0 : Int(subStart[flatA &+ 1])) {
              let e = list[k]
              kept[count] = e
              count &+= Self.clearance(sides[Int(e)], p0, p1) > 0 ? 0 : 1
            }
            guard count == 0 else { return (j, .kept(count: count)) }
            a = b
            flatA = flatB
            p0 = p1
            beforeTime = time
            j &+= 1
          }
          return (j, .left)
        }
      }
    }
  }

  /// Calls `body` with every edge the segment from (lat0, lon0) to (lat1, lon1) (longitudes of
  /// the cell; either end may lie outside it) may meet within the cell: each edge of the sub-cells
  /// the segment meets (``Runs``) that the side test keeps, each once.
  @inline(__always)
  func forEachEdge(
    lat0: Double, lon0: Double, lat1: Double, lon1: Double, scratch: inout [Int32], _ body: (Int) -> Void
  ) {
    forEachEdge(
      from: subCell(latitude: lat0, longitude: lon0), to: subCell(latitude: lat1, longitude: lon1), lat0: lat0,
      lon0: lon0, lat1: lat1, lon1: lon1, scratch: &scratch, body)
  }

  /// ``forEachEdge(lat0:lon0:lat1:lon1:scratch:_:)`` with the sub-cells of the two ends
  /// (``subCell(latitude:longitude:)``) already known. Ends in one sub-cell, or in two side by
  /// side, are the usual step: their one or two lists are read in place, an edge of the second
  /// list that the first also holds skipped.
  @inline(__always)
  func forEachEdge(
    from: (row: Int, column: Int), to: (row: Int, column: Int), lat0: Double, lon0: Double, lat1: Double,
    lon1: Double, scratch: inout [Int32], _ body: (Int) -> Void
  ) {
    let rows = from.row &- to.row
    let columns = from.column &- to.column
    let p0 = local(latitude: lat0, longitude: lon0)
    let p1 = local(latitude: lat1, longitude: lon1)
    if rows &* rows &+ columns &* columns <= 1 {
      let a = from.row &* self.columns &+ from.column
      let b = to.row &* self.columns &+ to.column
      // Sub-cell indices are within the grid (``subCell(latitude:longitude:)`` clamps them).
      sides.withUnsafeBufferPointer { sides in
        subEdges.withUnsafeBufferPointer { list in
          subStart.withUnsafeBufferPointer { start in
            let listed = Int(start[b])..<Int(start[b &+ 1])
            for k in listed {
              let e = Int(list[k])
              if Self.mayMeet(sides[e], p0, p1) { body(e) }
            }
            guard a != b else { return }
            for k in Int(start[a])..<Int(start[a &+ 1]) {
              let e = Int(list[k])
              if Self.mayMeet(sides[e], p0, p1) && !listed.contains(where: { Int(list[$0]) == e }) {
                body(e)
              }
            }
          }
        }
      }
      return
    }
    // A longer step: the edges of the sub-cells its line meets (about as many as the rows and
    // columns it spans, not their product), each once.
    scratch.removeAll(keepingCapacity: true)
    sides.withUnsafeBufferPointer { sides in
      subEdges.withUnsafeBufferPointer { list in
        subStart.withUnsafeBufferPointer { start in
          runs.forEachRun(
            x0: lon0, y0: lat0, east: lon1 - lon0, north: lat1 - lat0, rows: runs.rows(lat0, lat1)
          ) { first, last in
            // The run's sub-cells are consecutive, and so are their lists.
            for k in Int(start[first])..<Int(start[last &+ 1]) {
              let e = list[k]
              if Self.mayMeet(sides[Int(e)], p0, p1) { scratch.append(e) }
            }
          }
        }
      }
    }
    Self.forEachDistinct(in: &scratch, body)
  }

  /// Calls `body` with each edge of `edges` once, in the order of their first places: among a
  /// few, each compared with those before it; among more, through a table of twice their number
  /// (open addressing, in the array past them, removed after), not by sorting them.
  @inline(__always)
  static func forEachDistinct(in edges: inout [Int32], _ body: (Int) -> Void) {
    let count = edges.count
    if count <= 8 {
      for i in 0..<count where !edges[0..<i].contains(edges[i]) { body(Int(edges[i])) }
      return
    }
    // A power of two at least twice the count: probes stay short.
    let size = 1 << (Int.bitWidth - (2 * count - 1).leadingZeroBitCount)
    edges.append(contentsOf: repeatElement(-1, count: size))
    edges.withUnsafeMutableBufferPointer { buffer in
      // Non-empty (count > 8).
      let table = buffer.baseAddress! + count
      let mask = size - 1
      for i in 0..<count {
        let e = buffer[i]
        // An odd multiplier permutes the low bits: edges whose numbers differ only there (a
        // step's edges are numbered close together) start at distinct places.
        var h = Int(truncatingIfNeeded: UInt32(bitPattern: e) &* 0x9E37_79B9) & mask
        while table[h] != -1 && table[h] != e { h = (h &+ 1) & mask }
        if table[h] == -1 {
          table[h] = e
          body(Int(e))
        }
      }
    }
    edges.removeLast(size)
  }

  /// How the segment (lon0, lat0) → (lon1, lat1) of the cell (longitudes of the cell; the edge's
  /// polygon shift is added here) meets edge `e`: `nil` when it may touch it other than by a
  /// proper crossing (an orientation is exactly zero), `-1` when it misses it, else the parameter
  /// u ∈ [0, 1] of the proper crossing.
  ///
  /// The orientations are exact, so a proper crossing is exactly an edge whose ends lie strictly
  /// on both sides of the segment while the segment's ends lie strictly on both sides of the
  /// edge; each changes the even-odd containment once. The segment's ends against the edge's line
  /// come from the side test (``sides``) where it is beyond its bound, which decides their signs
  /// (the side value is the orientation's negative), and from ``PlanarOrientation`` otherwise;
  /// the edge's ends against the segment's line from ``PlanarOrientation``. Both ends strictly on
  /// one side of the other's line is a miss.
  @inline(__always)
  func crossing(_ e: Int, lon0: Double, lat0 py0: Double, lon1: Double, lat1 py1: Double) -> Double? {
    let edge = edges[e]
    let shift = self.shift[Int(edge.polygon)]
    let px0 = lon0 + shift
    let px1 = lon1 + shift
    let (ax, ay, bx, by) = (edge.x0, edge.y0, edge.x1, edge.y1)
    let side = sides[e]
    let p0 = local(latitude: py0, longitude: lon0)
    let p1 = local(latitude: py1, longitude: lon1)
    let s0 = Self.sideValue(side, p0)
    let s1 = Self.sideValue(side, p1)
    let c = s0 > side.w ? -1 : s0 < -side.w ? 1 : PlanarOrientation.sign(ax, ay, bx, by, px0, py0)
    let d = s1 > side.w ? -1 : s1 < -side.w ? 1 : PlanarOrientation.sign(ax, ay, bx, by, px1, py1)
    if c == d && c != 0 { return -1 }
    let a = PlanarOrientation.sign(px0, py0, px1, py1, ax, ay)
    let b = PlanarOrientation.sign(px0, py0, px1, py1, bx, by)
    if a == b && a != 0 { return -1 }
    if a == 0 || b == 0 || c == 0 || d == 0 {
      // Contact is possible only where the two boxes meet.
      if max(ax, bx) < min(px0, px1) || min(ax, bx) > max(px0, px1) || max(ay, by) < min(py0, py1)
        || min(ay, by) > max(py0, py1)
      {
        return -1
      }
      return nil
    }
    let ex = bx - ax
    let ey = by - ay
    let dx = px1 - px0
    let dy = py1 - py0
    let u = ((ax - px0) * ey - (ay - py0) * ex) / (dx * ey - dy * ex)
    return min(1, max(0, u))
  }
}
