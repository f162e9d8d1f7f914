import Geodesy

/// One step inside the device's grid cell: which regions are due for a look, and the circle
/// filter and polygon edges that settle the step without solving most of them.
extension CrossingDetector {
  // MARK: - Steady state: the device stays in its cell

  @inline(__always)
  mutating func advanceWithinCell(_ cell: CellCandidates, from last: LocationFix, to fix: LocationFix) {
    if !cell.polygonSlots.isEmpty {
      let edges = cell.polygonEdges
      let subCells = (
        edges.subCell(latitude: last.coordinate.latitude, longitude: last.coordinate.longitude),
        edges.subCell(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude)
      )
      if mayCrossPolygons(
        cell, latitude0: last.coordinate.latitude, longitude0: last.coordinate.longitude, latitude1: fix.coordinate.latitude,
        longitude1: fix.coordinate.longitude, subCells: subCells)
      {
        settlePolygons(cell, from: last, to: fix, subCells: subCells)
      }
    }
    if cache.isQuiet(cell, latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude) {
      previousCartesianIsValid = false
    } else {
      look(cell, from: last, to: fix)
    }
  }

  /// Settles the circles of `cell` on the segment from `last` to `fix`, both in the cell, and
  /// sets the quiet ellipse around `fix` from their least margin (the polygons are settled at
  /// every fix: ``mayCrossPolygons(_:latitude0:longitude0:latitude1:longitude1:subCells:)``).
  @inline(__always)
  mutating func look(_ cell: CellCandidates, from last: LocationFix, to fix: LocationFix) {
    if cell.circles.isEmpty {
      // Polygons only: nothing for the circle filter to do, quiet until the cell changes.
      cache.looked(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, margin: .infinity)
      previousCartesianIsValid = false
      return
    }
    let step = cell.stepBound(from: last.coordinate, to: fix.coordinate)
    scan(cell, from: last, to: fix, step: step)
  }

  /// Whether the step from (`latitude0`, `longitude0`) to (`latitude1`, `longitude1`), both in
  /// `cell`, may have crossed the boundary of a polygon through it, so that it must be settled
  /// (``settlePolygons(_:from:to:subCells:)``): the segment stays in the sub-cells its ends span,
  /// so only the edges they list can have been crossed, and the side test dismisses most of those
  /// at once (``CellPolygonEdges/mayMeetAny(from:to:lat0:lon0:lat1:lon1:)``). When it dismisses
  /// every one and no polygon is too wide for the cell's shifted coordinates, nothing was crossed.
  /// Reads coordinates, not fixes: the common step, which crosses nothing, copies no fix.
  ///
  /// `subCells`: the sub-cells of the two ends (``CellPolygonEdges/subCell(latitude:longitude:)``).
  @inline(__always)
  func mayCrossPolygons(
    _ cell: CellCandidates, latitude0: Double, longitude0: Double, latitude1: Double, longitude1: Double,
    subCells: (from: (row: Int, column: Int), to: (row: Int, column: Int))
  ) -> Bool {
    let edges = cell.polygonEdges
    return edges.hasWidePolygons
      || edges.mayMeetAny(
        from: subCells.from, to: subCells.to, lat0: latitude0, lon0: longitude0, lat1: latitude1, lon1: longitude1)
  }

  /// The step from `last` to `fix` when an edge may have been met
  /// (``mayCrossPolygons(_:latitude0:longitude0:latitude1:longitude1:subCells:)``): every edge the
  /// side test keeps is tested exactly for a proper crossing
  /// (``CellPolygonEdges/crossing(_:lon0:lat0:lon1:lat1:)``),
  /// each of which changes its polygon's state; a polygon whose edge the segment may touch other
  /// than by a proper crossing is solved in general (``solvePolygon(_:slot:path:wasInside:)``), as
  /// is a polygon too wide for the cell's shifted coordinates.
  ///
  /// `subCells`: the sub-cells of the two ends (``CellPolygonEdges/subCell(latitude:longitude:)``).
  @inline(never)
  mutating func settlePolygons(
    _ cell: CellCandidates, from last: LocationFix, to fix: LocationFix,
    subCells: (from: (row: Int, column: Int), to: (row: Int, column: Int))
  ) {
    let edges = cell.polygonEdges
    var path: PathSegment?
    if edges.hasWidePolygons {
      let segment = PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
      path = segment
      for k in 0..<cell.polygonSlots.count where edges.shift[k].isNaN {
        let slot = Int(cell.polygonSlots[k])
        guard let polygon = regions.index.polygons[slot] else { continue }
        cache.polygonInside[k] = solvePolygon(polygon, slot: slot, path: segment, wasInside: cache.polygonInside[k])
      }
    }
    collectPolygonHits(cell, from: last, to: fix, subCells: subCells)
    recordPolygonHits(cell, from: last, to: fix, path: path)
  }

  /// Sets ``polygonHits`` to how the step from `last` to `fix` (both in `cell`) meets the edges of
  /// the cell's polygons: each proper crossing with its parameter, each possible touch with
  /// infinity (``CellPolygonEdges/crossing(_:lon0:lat0:lon1:lat1:)``).
  @inline(__always)
  mutating func collectPolygonHits(
    _ cell: CellCandidates, from last: LocationFix, to fix: LocationFix,
    subCells: (from: (row: Int, column: Int), to: (row: Int, column: Int))
  ) {
    let edges = cell.polygonEdges
    let latitude = fix.coordinate.latitude
    let longitude = fix.coordinate.longitude
    polygonHits.clearKeepingCapacity()
    let (lon0, lat0) = (last.coordinate.longitude, last.coordinate.latitude)
    edges.forEachEdge(
      from: subCells.from, to: subCells.to, lat0: lat0, lon0: lon0, lat1: latitude, lon1: longitude,
      scratch: &slotBuffer
    ) { e in
      Self.appendHit(edges, e, lon0: lon0, lat0: lat0, lon1: longitude, lat1: latitude, to: &polygonHits)
    }
  }

  /// Appends to `hits` how the step (lon0, lat0) → (lon1, lat1) meets edge `e` of `edges`
  /// (``CellPolygonEdges/crossing(_:lon0:lat0:lon1:lat1:)``): nothing for a miss.
  @inline(__always)
  static func appendHit(
    _ edges: CellPolygonEdges, _ e: Int, lon0: Double, lat0: Double, lon1: Double, lat1: Double,
    to hits: inout [PolygonHit]
  ) {
    switch edges.crossing(e, lon0: lon0, lat0: lat0, lon1: lon1, lat1: lat1) {
    case nil: hits.append(PolygonHit(polygon: edges.edges[e].polygon, u: .infinity))
    case let u? where u >= 0: hits.append(PolygonHit(polygon: edges.edges[e].polygon, u: u))
    default: break
    }
  }

  /// Sets ``polygonHits`` as ``collectPolygonHits(_:from:to:subCells:)`` does, from the edges the
  /// walk kept for the step (the first `count` of ``keptEdges``, an edge of both sub-cells' lists
  /// perhaps twice, ``CellPolygonEdges/WalkStop/kept(count:)``): each tested once.
  @inline(__always)
  mutating func collectKeptHits(_ cell: CellCandidates, count: Int, from last: LocationFix, to fix: LocationFix)
  {
    let edges = cell.polygonEdges
    let (lon0, lat0) = (last.coordinate.longitude, last.coordinate.latitude)
    let (lon1, lat1) = (fix.coordinate.longitude, fix.coordinate.latitude)
    polygonHits.clearKeepingCapacity()
    let distinct = CellPolygonEdges.keepDistinct(&keptEdges, count: count)
    for i in 0..<distinct {
      Self.appendHit(edges, Int(keptEdges[i]), lon0: lon0, lat0: lat0, lon1: lon1, lat1: lat1, to: &polygonHits)
    }
  }

  /// Records the crossings of ``polygonHits`` on the step from `last` to `fix` in `cell`
  /// (``collectPolygonHits(_:from:to:subCells:)``) as pending crossings, and sets the polygons'
  /// states (``recordHits(_:_:slot:wasInside:segment:)``). `path`: the step's segment when
  /// already made.
  mutating func recordPolygonHits(
    _ cell: CellCandidates, from last: LocationFix, to fix: LocationFix, path: PathSegment?
  ) {
    guard !polygonHits.isEmpty else { return }
    if polygonHits.count > 1 {
      Self.sortByPolygon(&polygonHits)
    }
    let segment = path ?? PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
    var first = 0
    while first < polygonHits.count {
      let k = Int(polygonHits[first].polygon)
      var end = first + 1
      while end < polygonHits.count && Int(polygonHits[end].polygon) == k { end += 1 }
      let slot = Int(cell.polygonSlots[k])
      cache.polygonInside[k] = recordHits(first, end, slot: slot, wasInside: cache.polygonInside[k], segment: segment)
      first = end
    }
  }

  /// Records the crossings of one polygon (in region slot `slot`) that `polygonHits[first ..< end]`
  /// (sorted by parameter) found on `segment` as pending crossings, and returns its state after
  /// them, from `wasInside` before: one proper crossing, or several at distinct parameters, change
  /// the state at each; a possible touch (sorted last) or two crossings at one parameter are
  /// solved in general (``solvePolygon(_:slot:path:wasInside:)``).
  mutating func recordHits(
    _ first: Int, _ end: Int, slot: Int, wasInside: Bool, segment: PathSegment
  ) -> Bool {
    let general =
      polygonHits[end - 1].u == .infinity || (first + 1..<end).contains { polygonHits[$0].u == polygonHits[$0 - 1].u }
    if general {
      guard let polygon = regions.index.polygons[slot] else { return wasInside }
      return solvePolygon(polygon, slot: slot, path: segment, wasInside: wasInside)
    }
    if end == first + 1 {
      // One crossing, the usual: the identifier goes into the record without a second copy.
      let u = polygonHits[first].u
      pending.append(
        PendingCrossing(
          time: segment.time(at: u), coordinate: segment.point(at: u), slot: slot,
          identifier: regions.index.identifier(slot: slot), enter: !wasInside, passThrough: false))
      return !wasInside
    }
    let identifier = regions.index.identifier(slot: slot)
    let passThrough = (end - first) % 2 == 0
    var state = wasInside
    for h in first..<end {
      state.toggle()
      let u = polygonHits[h].u
      pending.append(
        PendingCrossing(
          time: segment.time(at: u), coordinate: segment.point(at: u), slot: slot, identifier: identifier,
          enter: state, passThrough: passThrough))
    }
    return state
  }

  /// Looks at every circle of the cell at `fix` (the filter, then the exact test for the few it
  /// leaves), records crossings on the segment of length at most `step` that ends there, and sets
  /// the quiet ellipse around `fix`.
  mutating func scan(
    _ cell: CellCandidates, from last: LocationFix, to fix: LocationFix, step: Double
  ) {
    // The filter's point through the cell's quadratic map when it has one; the exact
    // Earth-centred coordinates only if a circle needs the exact test.
    let exact: SIMD3<Double>?
    let d: SIMD3<Double>
    // The fix's offset in radians, for the third-order term if a circle needs the exact test.
    var uv = (u: 0.0, v: 0.0)
    if cell.filterUsesMap {
      exact = nil
      uv = cell.map.radians(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude)
      d = cell.map.offset(u: uv.u, v: uv.v)
    } else {
      let p = cell.cartesian(fix.coordinate)
      exact = p
      d = p - cell.origin
    }
    let q = SIMD3<Float>(Float(d.x), Float(d.y), Float(d.z))
    var p = exact
    var p0: SIMD3<Double>?
    var path: PathSegment?
    var least = Double.infinity
    var first = 0
    repeat {
      // ``look(at:in:from:step:states:)`` written out: through a shared helper (static, or a
      // mutating method) the compiler keeps a call and an array retain per look, 2.5 % of the
      // instructions at 100k circles.
      let (margin, uncleared) = cell.filter.withUnsafeBufferPointer { blocks in
        cache.insideMasks.withUnsafeBufferPointer { states in
          CircleFilter.run(blocks, inside: states, from: first, at: q, step: step)
        }
      }
      least = min(least, margin)
      var left = uncleared
      while left != 0 {
        let k = first &* 8 &+ left.trailingZeroBitCount
        left &= left &- 1
        // The exact coordinates of both ends, once per look.
        // ``CellCandidates/cartesian(_:)``, with the filter's second-order offset reused.
        let p1 =
          p
          ?? (cell.filterUsesMap && cell.cartesianUsesMap
            ? cell.origin + (d + cell.map.cubicTerm(u: uv.u, v: uv.v)) : cell.cartesian(fix.coordinate))
        p = p1
        let start = p0 ?? (previousCartesianIsValid ? previousCartesian : cell.cartesian(last.coordinate))
        p0 = start
        settleFlagged(k, in: cell, from: last, to: fix, step: step, p0: start, p1: p1, path: &path)
      }
      first &+= CircleFilter.blocksPerRun
    } while first < cell.filter.count
    cache.looked(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, margin: least)
    if let p {
      previousCartesian = p
      previousCartesianIsValid = true
    } else {
      previousCartesianIsValid = false
    }
  }

  /// The exact test of circle `k` of the cell, which the filter did not clear at the end of the
  /// segment from `last` to `fix` (Earth-centred `p0`, `p1`), recording its crossings on it.
  @inline(__always)
  mutating func settleFlagged(
    _ k: Int, in cell: CellCandidates, from last: LocationFix, to fix: LocationFix, step: Double,
    p0: SIMD3<Double>, p1 p: SIMD3<Double>, path: inout PathSegment?
  ) {
    let slot = Int(cell.slots[k])
    let record = cell.circles[k]
    let wasInside = cache.inside[k]
    let isInside: Bool
    let chord = record.chord(to: p)
    // The end's chord and state for the solver, when the chord decided it.
    var end: (chord: Double, inside: Bool)?
    if let state = record.classify(chord: chord).inside {
      isInside = state
      end = (chord, state)
      if state == wasInside && step <= CircleCrossingSolver.maximumPieceLength {
        // Same state at both ends of a short step: inside throughout when inside (the chord is
        // quasi-convex along it), and a pass-through only if the path comes within the band —
        // the path lies within √(L² − c²)/2 of the straight segment between the fixes.
        if wasInside { return }
        let v = p - p0
        let w = p0 - record.center
        let vv = (v * v).sum()
        let t = vv > 0 ? min(1, max(0, -(w * v).sum() / vv)) : 0
        let nearest = w + t * v
        let deviation = max(0, step * step - vv).squareRoot() / 2 + 1e-9
        if (nearest * nearest).sum().squareRoot() - deviation > record.outer { return }
      }
    } else {
      // In the micrometre band: decide exactly, and solve the segment whatever the result.
      isInside = cell.geometry(k).exactlyContains(fix.coordinate)
    }
    if isInside != wasInside { cache.setInside(k, isInside) }
    let circle = cell.geometry(k)
    let segment = path ?? PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
    path = segment
    solveCircle(
      circle, slot: slot, identifier: cell.identifiers[k], path: segment, frame: cell.frame, wasInside: wasInside,
      p0: p0, p1: p, length: step, end: end)
  }

  /// Runs `cell`'s ``CircleFilter`` on blocks `first ..< first + 8` at the point with
  /// Earth-centred coordinates `p`, at the end of a segment of length at most `step` from where
  /// the circles' states were `states`. Returns a lower bound of those circles' margins at `p`,
  /// and the circles it left (bit i: circle `8 * first + i`).
  @inline(__always)
  static func look(
    at p: SIMD3<Double>, in cell: CellCandidates, from first: Int, step: Double, states: [SIMDMask<SIMD8<Int32>>]
  ) -> (margin: Double, uncleared: UInt64) {
    let d = p - cell.origin
    let q = SIMD3<Float>(Float(d.x), Float(d.y), Float(d.z))
    return cell.filter.withUnsafeBufferPointer { blocks in
      states.withUnsafeBufferPointer { states in
        CircleFilter.run(blocks, inside: states, from: first, at: q, step: step)
      }
    }
  }
}
