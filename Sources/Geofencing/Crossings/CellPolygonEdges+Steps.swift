import Geodesy

/// What a step between two fixes asks of a cell's polygon edges: the side test that dismisses most
/// edges (``mayMeet(_:_:_:)``), the walk of a run of fixes through the sub-cells
/// (``walk(_:from:after:within:kept:)``), the edges a longer step may meet
/// (``forEachEdge(lat0:lon0:lat1:lon1:scratch:_:)``) and the exact crossing test
/// (``crossing(_:lon0:lat0:lon1:lat1:)``). How the edges are filed is in CellPolygonEdges.swift.
extension CellPolygonEdges {
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
