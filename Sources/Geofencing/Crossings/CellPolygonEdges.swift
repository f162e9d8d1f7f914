/// The edges of the polygons whose boundary passes through one grid cell, restricted to the edges
/// that meet the cell, each a compact record of its ends and metric, filed in a grid of sub-cells:
/// what a fix in the cell needs to know how far it is from every polygon boundary and which edges
/// the path from the previous fix may have crossed, looking at a few edges instead of all of them.
///
/// Coordinates are each polygon's own projected ones (``PlanarPolygons``): a longitude of the cell
/// plus the polygon's whole turns there (``shift``), so a fix's projected x is computed exactly as
/// ``PolygonGeometry/contains(x:y:)`` computes it and the two always agree. A polygon wider than
/// 180° of longitude has no single shift over a cell; it is listed with a NaN shift and no edges,
/// and the detector solves it in general.
///
/// **Distances** are in the cell's step norm √((M·Δφ)² + (p·Δλ)²) with M and p the cell's largest
/// meridional and parallel radii (``CellCandidates/stepBound(deltaLatitude:deltaLongitude:)``),
/// the norm of the quiet ellipse. The path between two fixes of the cell stays in the cell (both
/// are convex in latitude and longitude), and the boundary's points in the cell all lie on the
/// listed edges, so a fix farther than the step from every listed edge cannot have crossed one,
/// and a quiet ellipse no larger than the least distance holds no boundary point.
///
/// **Sub-cells.** Each sub-cell lists the edges that come within a halo of it (``halo``, half a
/// sub-cell side: the closed rectangle grown by the halo and by a billionth of its size, so that
/// the rounding of a fix's sub-cell index never leaves an edge out; at least 10⁻¹² degrees, ten
/// times the rounding of a longitude shifted by whole turns), and records a clearance from the
/// nearest other sub-cell that lists any. A fix's distance to the boundary is then at least the
/// least of its distances to its sub-cell's edges and its distance to the sub-cell's border plus
/// the halo and the clearance (a path to an edge elsewhere leaves the sub-cell first, and an
/// unlisted edge is farther than the halo from it, by the clearance more when the sub-cells
/// around list nothing). A step no longer than the halo that ends in the sub-cell can only cross
/// listed edges, so one pass over them gives both the fix's margin and the segment's crossings.
final class CellPolygonEdges: Sendable {
  /// One edge: its ends in its polygon's projected coordinates (degrees), its vector in metres of
  /// the step norm, 1 / its squared length (0 for a point), its polygon's shift and its polygon
  /// (an index into ``shift``).
  struct Edge: Sendable {
    var x0: Double
    var y0: Double
    var x1: Double
    var y1: Double
    var east: Double
    var north: Double
    var inverseLengthSquared: Double
    var shift: Double
    var polygon: Int32
  }

  /// What a distance needs of one edge, in the cell's own longitudes: its first end's longitude
  /// less its polygon's shift, its first end's latitude, its vector in metres of the step norm and
  /// 1 / its squared length (0 for a point). 40 bytes, read in the order the sub-cells list them.
  struct Near: Sendable {
    var longitude: Double
    var latitude: Double
    var east: Double
    var north: Double
    var inverseLengthSquared: Double
  }

  /// Whole turns (degrees, a multiple of 360) that take a longitude of the cell to polygon k's
  /// projected x; NaN for a polygon wider than ``widestShifted``.
  let shift: [Double]
  /// Whether some polygon has a NaN shift.
  let hasWidePolygons: Bool
  let edges: [Edge]
  /// ``edges``' distance records, in the same order.
  private let near: [Near]
  /// How far (metres, step norm) around its rectangle a sub-cell lists edges: every edge with a
  /// point within `halo` of the sub-cell is in its list, so a segment no longer than `halo` that
  /// ends in the sub-cell can only cross edges of its list.
  let halo: Double
  private let metresPerDegreeLatitude: Double
  private let metresPerDegreeLongitude: Double

  /// The sub-cell grid: `rows` × `columns` over the cell's box, sub-cell (i, j) at i · columns + j
  /// listing `subEdges[subStart[s] ..< subStart[s + 1]]` (ascending) with clearance `clearance[s]`.
  private let south: Double
  private let west: Double
  private let rowHeight: Double
  private let columnWidth: Double
  private let rowScale: Double
  private let columnScale: Double
  let rows: Int
  let columns: Int
  private let subStart: [Int32]
  private let subEdges: [Int32]
  private let clearance: [Double]

  /// The widest polygon (degrees of longitude) whose turns are the same all over a cell it meets:
  /// its points lie within 90° of its middle, and the turns change only 180° from the middle.
  static let widestShifted = 180.0
  /// At most this many sub-cells a side.
  static let largestGrid = 32
  /// How far clearances look for the nearest sub-cell with edges, in rings of sub-cells.
  static let clearanceRings = 4
  /// The halo in sub-cell sides (the smaller side, in metres).
  static let haloSides = 0.5

  /// The edges of `polygons` (each with the cell's west edge in its projected coordinates) that
  /// meet the cell `box`, filed in sub-cells, in the step norm of M and p per degree.
  init(
    _ polygons: [(geometry: PolygonGeometry, west: Double)], box: GeoBox, metresPerDegreeLatitude: Double,
    metresPerDegreeLongitude: Double
  ) {
    self.metresPerDegreeLatitude = metresPerDegreeLatitude
    self.metresPerDegreeLongitude = metresPerDegreeLongitude
    var shift: [Double] = []
    var edges: [Edge] = []
    var scratch: [Int32] = []
    for (k, (geometry, west)) in polygons.enumerated() {
      let planar = geometry.planar
      if planar.box.east - planar.box.west > Self.widestShifted {
        shift.append(.nan)
        continue
      }
      let turns = planar.turns(longitude: box.west)
      shift.append(turns)
      geometry.edgesMeeting(west: west, south: box.south, east: west + (box.east - box.west), north: box.north, into: &scratch)
      for index in scratch {
        let e = geometry.edge(Int(index))
        let east = (e.z - e.x) * metresPerDegreeLongitude
        let north = (e.w - e.y) * metresPerDegreeLatitude
        let squared = east * east + north * north
        edges.append(
          Edge(
            x0: e.x, y0: e.y, x1: e.z, y1: e.w, east: east, north: north,
            inverseLengthSquared: squared > 0 ? 1 / squared : 0, shift: turns, polygon: Int32(k)))
      }
    }
    self.shift = shift
    hasWidePolygons = shift.contains { $0.isNaN }
    self.edges = edges
    near = edges.map { e in
      Near(
        longitude: e.x0 - e.shift, latitude: e.y0, east: e.east, north: e.north,
        inverseLengthSquared: e.inverseLengthSquared)
    }
    // About one sub-cell per edge, near-square in metres.
    let height = box.north - box.south
    let width = box.east - box.west
    let aspect = (width * metresPerDegreeLongitude) / (height * metresPerDegreeLatitude)
    let target = Double(max(1, edges.count))
    rows = edges.isEmpty ? 1 : min(Self.largestGrid, max(1, Int((target / aspect).squareRoot().rounded(.up))))
    columns = edges.isEmpty ? 1 : min(Self.largestGrid, max(1, Int((target * aspect).squareRoot().rounded(.up))))
    south = box.south
    west = box.west
    rowHeight = height / Double(rows)
    columnWidth = width / Double(columns)
    rowScale = Double(rows) / height
    columnScale = Double(columns) / width
    let side = min(rowHeight * metresPerDegreeLatitude, columnWidth * metresPerDegreeLongitude)
    halo = side * Self.haloSides
    (subStart, subEdges) = Self.file(
      edges, rows: rows, columns: columns, south: south, west: west, rowHeight: rowHeight, columnWidth: columnWidth,
      rowScale: rowScale, columnScale: columnScale, haloY: halo / metresPerDegreeLatitude,
      haloX: halo / metresPerDegreeLongitude)
    clearance = Self.clearances(subStart, rows: rows, columns: columns, side: side)
  }

  /// The number of edges.
  var count: Int { edges.count }

  /// The sub-cell of a point of the cell (latitude, longitude), clamped to the grid.
  @inline(__always)
  func subCell(latitude: Double, longitude: Double) -> (row: Int, column: Int) {
    Self.subCell(
      latitude: latitude, longitude: longitude, south: south, west: west, rowScale: rowScale, columnScale: columnScale,
      rows: rows, columns: columns)
  }

  @inline(__always)
  private static func subCell(
    latitude: Double, longitude: Double, south: Double, west: Double, rowScale: Double, columnScale: Double, rows: Int,
    columns: Int
  ) -> (row: Int, column: Int) {
    let r = (latitude - south) * rowScale
    let c = (longitude - west) * columnScale
    let row = r > 0 ? min(rows - 1, Int(r)) : 0
    let column = c > 0 ? min(columns - 1, Int(c)) : 0
    return (row, column)
  }

  /// Every edge filed in each sub-cell its segment may come within the halo of: the sub-cells of
  /// its box grown by the halo (`haloY`, `haloX` degrees: a point within the halo in the step norm
  /// is within those in latitude and longitude) and twice the sub-cells' own growth for rounding
  /// (far beyond the rounding of an index), each confirmed by the conservative test against the
  /// sub-cell grown by the halo and that growth; then ordered by sub-cell, edges ascending.
  private static func file(
    _ edges: [Edge], rows: Int, columns: Int, south: Double, west: Double, rowHeight: Double, columnWidth: Double,
    rowScale: Double, columnScale: Double, haloY: Double, haloX: Double
  ) -> (start: [Int32], list: [Int32]) {
    let roundingY = max(rowHeight * 1e-9, 1e-12)
    let roundingX = max(columnWidth * 1e-9, 1e-12)
    let growY = roundingY + haloY
    let growX = roundingX + haloX
    var pairs: [(cell: Int32, edge: Int32)] = []
    pairs.reserveCapacity(edges.count * 3)
    var start = [Int32](repeating: 0, count: rows * columns + 1)
    for (e, edge) in edges.enumerated() {
      let segment = SIMD4(edge.x0 - edge.shift, edge.y0, edge.x1 - edge.shift, edge.y1)
      let first = subCell(
        latitude: min(segment.y, segment.w) - growY - roundingY, longitude: min(segment.x, segment.z) - growX - roundingX,
        south: south, west: west, rowScale: rowScale, columnScale: columnScale, rows: rows, columns: columns)
      let last = subCell(
        latitude: max(segment.y, segment.w) + growY + roundingY, longitude: max(segment.x, segment.z) + growX + roundingX,
        south: south, west: west, rowScale: rowScale, columnScale: columnScale, rows: rows, columns: columns)
      // One row or one column of sub-cells: an edge within it runs through every one of them
      // (one that leaves the cell may be listed in a sub-cell it misses, which costs only time).
      let line = first.row == last.row || first.column == last.column
      for row in first.row...last.row {
        let s = south + Double(row) * rowHeight
        for column in first.column...last.column {
          let w = west + Double(column) * columnWidth
          guard
            line
              || PolygonGeometry.segment(segment, meets: w - growX, s - growY, w + columnWidth + growX, s + rowHeight + growY)
          else { continue }
          let cell = row * columns + column
          pairs.append((Int32(cell), Int32(e)))
          start[cell + 1] += 1
        }
      }
    }
    for cell in 0..<rows * columns { start[cell + 1] += start[cell] }
    var fill = start
    var list = [Int32](repeating: 0, count: pairs.count)
    for pair in pairs {
      list[Int(fill[Int(pair.cell)])] = pair.edge
      fill[Int(pair.cell)] += 1
    }
    return (start, list)
  }

  /// Per sub-cell, (r − 1) sub-cell sides, r the ring of the nearest other sub-cell with edges
  /// (at most ``clearanceRings`` + 1).
  private static func clearances(_ start: [Int32], rows: Int, columns: Int, side: Double) -> [Double] {
    var clearance = [Double](repeating: 0, count: rows * columns)
    for row in 0..<rows {
      for column in 0..<columns {
        var ring = 1
        search: while ring <= clearanceRings {
          for r in max(0, row - ring)...min(rows - 1, row + ring) {
            for c in max(0, column - ring)...min(columns - 1, column + ring)
            where max(abs(r - row), abs(c - column)) == ring && start[r * columns + c + 1] > start[r * columns + c] {
              break search
            }
          }
          ring += 1
        }
        // Nothing within the rings searched: the rings' width is still a bound.
        clearance[row * columns + column] = Double(ring - 1) * side * (1 - 1e-9)
      }
    }
    return clearance
  }

  /// A lower bound (metres, step norm) of the distance from the point (latitude, longitude) of
  /// sub-cell (row, column) to every edge, safe against rounding (``safeDistance(_:)``): the least
  /// of its distances to the sub-cell's edges and of the distance to the sub-cell's border plus the
  /// halo and the clearance (an edge it does not list is farther than the halo from the sub-cell,
  /// and farther still by the clearance).
  ///
  /// Calls `candidate` with every listed edge whose distance may be `step` or less: when `step` is
  /// at most ``halo``, every edge a segment of that length ending at the point can cross.
  @inline(__always)
  func margin(
    row: Int, column: Int, latitude: Double, longitude: Double, step: Double, _ candidate: (Int) -> Void
  ) -> Double {
    let s = row * columns + column
    let rectangleSouth = south + Double(row) * rowHeight
    let rectangleWest = west + Double(column) * columnWidth
    let border = min(
      min(latitude - rectangleSouth, rectangleSouth + rowHeight - latitude) * metresPerDegreeLatitude,
      min(longitude - rectangleWest, rectangleWest + columnWidth - longitude) * metresPerDegreeLongitude)
    let reach = max(0, border) + halo + clearance[s]
    var squared = reach * reach
    // safeDistance(√d²) ≤ step exactly when d² ≤ this (with room for the rounding of the square).
    let within = (step + 1e-6) / (1 - 1e-9) * (1 + 1e-12)
    let withinSquared = within * within
    let (mLat, mLon) = (metresPerDegreeLatitude, metresPerDegreeLongitude)
    near.withUnsafeBufferPointer { near in
      subEdges.withUnsafeBufferPointer { list in
        for k in Int(subStart[s])..<Int(subStart[s + 1]) {
          let index = Int(list[k])
          let e = near[index]
          let ax = (longitude - e.longitude) * mLon
          let ay = (latitude - e.latitude) * mLat
          let t = min(1, max(0, (ax * e.east + ay * e.north) * e.inverseLengthSquared))
          let px = ax - t * e.east
          let py = ay - t * e.north
          let d = px * px + py * py
          squared = min(squared, d)
          if d <= withinSquared { candidate(index) }
        }
      }
    }
    return Self.safeDistance(squared.squareRoot())
  }

  /// ``margin(row:column:latitude:longitude:step:_:)`` without candidates.
  @inline(__always)
  func margin(row: Int, column: Int, latitude: Double, longitude: Double) -> Double {
    margin(row: row, column: column, latitude: latitude, longitude: longitude, step: -.infinity) { _ in }
  }

  /// A distance made safe against its rounding: never more than the exact distance. The terms are
  /// differences of coordinates below 540° and products by at most 112 km a degree, each wrong by
  /// under 10⁻⁸ m; an edge's longitude less its polygon's shift is off by at most half a unit in
  /// the last place of 540° (6 nm); sub-cell borders are 10⁻¹² degrees (0.1 µm) off at most.
  @inline(__always)
  static func safeDistance(_ d: Double) -> Double {
    d * (1 - 1e-9) - 1e-6
  }

  /// Calls `body` with every edge that may meet the path from sub-cell `from` to sub-cell `to`
  /// (every sub-cell of the rectangle they span), each once.
  @inline(__always)
  func forEachEdge(
    from: (row: Int, column: Int), to: (row: Int, column: Int), scratch: inout [Int32], _ body: (Int) -> Void
  ) {
    if from == to {
      let s = from.row * columns + from.column
      for k in Int(subStart[s])..<Int(subStart[s + 1]) { body(Int(subEdges[k])) }
      return
    }
    let rowRange = min(from.row, to.row)...max(from.row, to.row)
    let columnRange = min(from.column, to.column)...max(from.column, to.column)
    if rowRange.count * columnRange.count > 16 {
      for e in 0..<count { body(e) }
      return
    }
    scratch.removeAll(keepingCapacity: true)
    for row in rowRange {
      for column in columnRange {
        let s = row * columns + column
        scratch.append(contentsOf: subEdges[Int(subStart[s])..<Int(subStart[s + 1])])
      }
    }
    scratch.sort()
    for (i, e) in scratch.enumerated() where i == 0 || scratch[i - 1] != e { body(Int(e)) }
  }

  /// How the segment (lon0, lat0) → (lon1, lat1) of the cell (longitudes of the cell; the edge's
  /// polygon shift is added here) meets edge `e`: `nil` when it may touch it other than by a
  /// proper crossing (an orientation is exactly zero), `-1` when it misses it, else the parameter
  /// u ∈ [0, 1] of the proper crossing.
  ///
  /// The orientations are exact (``PlanarOrientation``), so a proper crossing is exactly an edge
  /// whose ends lie strictly on both sides of the segment while the segment's ends lie strictly on
  /// both sides of the edge; each changes the even-odd containment once.
  @inline(__always)
  func crossing(_ e: Int, lon0: Double, lat0 py0: Double, lon1: Double, lat1 py1: Double) -> Double? {
    let edge = edges[e]
    let px0 = lon0 + edge.shift
    let px1 = lon1 + edge.shift
    let (ax, ay, bx, by) = (edge.x0, edge.y0, edge.x1, edge.y1)
    if max(ax, bx) < min(px0, px1) || min(ax, bx) > max(px0, px1) || max(ay, by) < min(py0, py1)
      || min(ay, by) > max(py0, py1)
    {
      return -1
    }
    let a = PlanarOrientation.sign(px0, py0, px1, py1, ax, ay)
    let b = PlanarOrientation.sign(px0, py0, px1, py1, bx, by)
    let c = PlanarOrientation.sign(ax, ay, bx, by, px0, py0)
    let d = PlanarOrientation.sign(ax, ay, bx, by, px1, py1)
    if a == 0 || b == 0 || c == 0 || d == 0 { return nil }
    guard a != b && c != d else { return -1 }
    let ex = bx - ax
    let ey = by - ay
    let dx = px1 - px0
    let dy = py1 - py0
    let u = ((ax - px0) * ey - (ay - py0) * ex) / (dx * ey - dy * ex)
    return min(1, max(0, u))
  }
}
