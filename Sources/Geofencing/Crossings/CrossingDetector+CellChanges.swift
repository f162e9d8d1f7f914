import Geodesy

/// A step into another grid cell: to a neighbour (the cells the step passes through looked at on
/// the way) or anywhere (every region near the step's path).
extension CrossingDetector {
  // MARK: - Cell changes

  mutating func transition(from last: LocationFix, to fix: LocationFix) {
    let path = PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
    let key = GridCell.key(
      latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, level: regions.index.gridLevel)
    let next = cellCandidates(key)
    let p1 = next.cartesian(fix.coordinate)
    let old = cache.generation == regions.index.generation ? cache.cell : nil
    if let old, old.sharesEdge(with: key) {
      transitionToNeighbour(from: old, to: next, path: path, last: last, fix: fix, p1: p1, via: [])
      previousCartesian = p1
      previousCartesianIsValid = true
    } else if let old, let via = cornerCells(from: old, to: next, last: last.coordinate, fix: fix.coordinate) {
      transitionToNeighbour(from: old, to: next, path: path, last: last, fix: fix, p1: p1, via: via)
      previousCartesian = p1
      previousCartesianIsValid = true
    } else {
      writeBack()
      transitionAnywhere(path: path, last: last, fix: fix, p1: p1)
      enter(next, at: p1)
    }
  }

  /// The segment stays within the union of two cells sharing an edge (a rectangle, and the path is
  /// straight in latitude and longitude), so every region it can meet is a candidate of one of them.
  /// Or the cells share a corner and the segment passes through `via`, cells without circles
  /// between them (``cornerCells(from:to:last:fix:)``): every circle it can meet is still a
  /// candidate of `old` or `next`, and the polygons of `via` are settled with theirs.
  ///
  /// Everything happens in the two cells' own arrays, merged by slot (both ascending): no per-slot
  /// array of the whole index is read for a circle the two cells share, so a move costs a pass
  /// over two short lists, not cache misses across the index. Then `next` becomes the cache's cell.
  mutating func transitionToNeighbour(
    from old: CellCandidates, to next: CellCandidates, path: PathSegment, last: LocationFix, fix: LocationFix,
    p1: SIMD3<Double>, via: [CellCandidates]
  ) {
    // The path's latitudes are within the two cells': their radius bounds hold for it (no libm
    // sines, as the path's own bound would take).
    let length = PathSegment.lengthBound(
      meridional: max(old.meridionalRadius, next.meridionalRadius),
      parallel: max(old.parallelRadius, next.parallelRadius),
      dPhi: path.deltaLatitude * (Double.pi / 180), dLambda: path.deltaLongitude * (Double.pi / 180))
    let p0 = previousCartesianIsValid ? previousCartesian : old.cartesian(last.coordinate)
    settleCircles(of: old, path: path, p0: p0, p1: p1, length: length, end: fix.coordinate)
    cache.writePolygonStates(old, into: &insideBySlot, scratch: &slotBuffer)
    mergeCircles(from: old, into: next, path: path, p0: p0, p1: p1, length: length, end: fix.coordinate)
    cache.begin(next, generation: regions.index.generation)
    settlePolygons(from: old, to: next, via: via, path: path, last: last.coordinate, fix: fix.coordinate)
    cache.setPolygonStates(next, from: insideBySlot)
  }

  /// The old cell's circles settled at the new fix, in place: the filter (in the old cell's
  /// coordinates, which reach its neighbours) clears the usual circle; the rest are settled exactly.
  @inline(__always)
  mutating func settleCircles(
    of old: CellCandidates, path: PathSegment, p0: SIMD3<Double>, p1: SIMD3<Double>, length: Double, end: Coordinate
  ) {
    var first = 0
    while first < old.filter.count {
      var left = Self.look(at: p1, in: old, from: first, step: length, states: cache.insideMasks).uncleared
      while left != 0 {
        let k = first &* 8 &+ left.trailingZeroBitCount
        left &= left &- 1
        cache.inside[k] = settle(
          old.geometry(k), slot: Int(old.slots[k]), identifier: old.identifiers[k], path: path,
          wasInside: cache.inside[k], margin0: old.circles[k].classify(p0).margin, p0: p0, p1: p1, length: length,
          end: end)
      }
      first &+= CircleFilter.blocksPerRun
    }
  }

  /// The new cell's circles, merged with the old cell's by slot (both ascending): a circle the two
  /// share keeps its settled state, one of the old cell only has its state kept by slot for when
  /// it is met again, and one of the new cell only is settled when the step may have met it. The
  /// states end in the cache's spare array, for ``CandidateCache/begin(_:generation:)``.
  @inline(__always)
  mutating func mergeCircles(
    from old: CellCandidates, into next: CellCandidates, path: PathSegment, p0: SIMD3<Double>, p1: SIMD3<Double>,
    length: Double, end: Coordinate
  ) {
    let oldSlots = old.slots
    let m = next.slots.count
    cache.spareInside.reset(to: false, count: m)
    settleLater.clearKeepingCapacity()
    var i = 0
    oldSlots.withUnsafeBufferPointer { oldSlots in
      next.slots.withUnsafeBufferPointer { slots in
        next.circles.withUnsafeBufferPointer { circles in
          cache.inside.withUnsafeBufferPointer { oldInside in
            cache.spareInside.withUnsafeMutableBufferPointer { inside in
              do {
                for j in 0..<m {
                  let slot = slots[j]
                  // Circles of the old cell only: the fix is in `next`, which their boxes miss, so
                  // they are outside there; their settled state is kept for when they are met again.
                  while i < oldSlots.count && oldSlots[i] < slot {
                    insideBySlot[oldSlots[i]] = oldInside[i]
                    i += 1
                  }
                  if i < oldSlots.count && oldSlots[i] == slot {
                    inside[j] = oldInside[i]
                    i += 1
                    continue
                  }
                  // Not a candidate of the old cell: its box misses that cell, so the previous
                  // fix was outside. Beyond the outer threshold plus the step at the new fix, no point
                  // of the path came near: outside throughout (no square root for the usual circle).
                  let w = p1 - circles[j].center
                  let reach = circles[j].outer + length
                  if (w * w).sum() > reach * reach { continue }
                  let v = p0 - circles[j].center
                  let d0 = (v * v).sum().squareRoot()
                  let margin0 = max(circles[j].inner - d0, d0 - circles[j].outer, 0)
                  let (state, margin1) = circles[j].classify(p1)
                  if state != false || margin0 + margin1 <= length { settleLater.append(Int32(j)) }
                }
              }
            }
          }
        }
      }
    }
    for j32 in settleLater {
      let j = Int(j32)
      cache.spareInside[j] = settle(
        next.geometry(j), slot: Int(next.slots[j]), identifier: next.identifiers[j], path: path, wasInside: false,
        margin0: next.circles[j].classify(p0).margin, p0: p0,
        p1: p1, length: length, end: end)
    }
    while i < oldSlots.count {
      insideBySlot[oldSlots[i]] = cache.inside[i]
      i += 1
    }
  }

  /// The polygons on a segment from `old` into its neighbour `next` (from `last` to `fix`), or into
  /// the cell across a corner of `old` through the cells `via`, states in ``insideBySlot``.
  ///
  /// The segment stays in these cells, so only a polygon whose boundary passes through one of
  /// them can have been crossed, and only at an edge that one of them files where the segment
  /// passes: each such edge is tested exactly, as within a cell
  /// (``CellPolygonEdges/crossing(_:lon0:lat0:lon1:lat1:)``), and the hits recorded
  /// (``recordMoveHits(path:)``). Any other polygon touching these cells has one state all over
  /// each of them, so the state it had at `last` (the state `old` recorded, outside in a cell its
  /// box misses) until `next`, which records its own.
  mutating func settlePolygons(
    from old: CellCandidates, to next: CellCandidates, via: [CellCandidates], path: PathSegment, last: Coordinate,
    fix: Coordinate
  ) {
    guard
      !old.polygonSlots.isEmpty || !old.coveringPolygons.isEmpty || !next.polygonSlots.isEmpty
        || !next.coveringPolygons.isEmpty || via.contains(where: { !$0.polygonSlots.isEmpty })
    else { return }
    for polygon in old.coveringPolygons { insideBySlot[polygon.slot] = polygon.inside }
    // The polygons the segment may cross: those with an edge the segment may meet in one of the
    // cells. The segment's part in a cell lies in the sub-cells it meets there
    // (``CellPolygonEdges/forEachEdge(lat0:lon0:lat1:lon1:scratch:_:)``), as long as its
    // longitudes do not wrap; otherwise, or when a cell cannot tell, every boundary polygon of
    // the cells is a candidate.
    moveHits.clearKeepingCapacity()
    /// Adds how the segment meets each edge of `cell` it may meet (``MoveHit``); false when the
    /// cell cannot tell.
    func collect(_ cell: CellCandidates) -> Bool {
      let edges = cell.polygonEdges
      guard !edges.hasWidePolygons, abs(fix.longitude - last.longitude) <= 180 else { return false }
      edges.forEachEdge(
        lat0: last.latitude, lon0: last.longitude, lat1: fix.latitude, lon1: fix.longitude, scratch: &slotBuffer
      ) { e in
        let u = edges.crossing(e, lon0: last.longitude, lat0: last.latitude, lon1: fix.longitude, lat1: fix.latitude)
        guard u.map({ $0 >= 0 }) ?? true else { return }
        let edge = edges.edges[e]
        moveHits.append(
          MoveHit(
            slot: cell.polygonSlots[Int(edge.polygon)], u: u ?? .infinity,
            edge: SIMD4(edge.x0, edge.y0, edge.x1, edge.y1)))
      }
      return true
    }
    let all = !collect(old) || !collect(next) || via.contains { !collect($0) }
    if all {
      // Every boundary polygon of the cells, in slot order, each once.
      let box = path.box
      slotBuffer.removeAll(keepingCapacity: true)
      for cell in [old, next] + via { slotBuffer.append(contentsOf: cell.polygonSlots) }
      slotBuffer.sort()
      for (k, slot32) in slotBuffer.enumerated() where k == 0 || slotBuffer[k - 1] != slot32 {
        let slot = Int(slot32)
        // A box the segment misses: outside at both ends, nothing crossed.
        guard regions.index.boxes[slot].intersects(box), let polygon = regions.index.polygons[slot] else { continue }
        insideBySlot[slot] = solvePolygon(polygon, slot: slot, path: path, wasInside: insideBySlot[slot])
      }
    } else if !moveHits.isEmpty {
      recordMoveHits(path: path)
    }
    // Outside every polygon whose box misses `next`, where the fix is. Only a polygon the device
    // was inside can change: it touches `old`, where the last fix was, so those are the few in
    // the set, not every polygon of `old`.
    slotBuffer.clearKeepingCapacity()
    insideBySlot.forEach { slot in
      if regions.index.polygons[Int(slot)] != nil && !regions.index.boxes[Int(slot)].intersects(next.box) {
        slotBuffer.append(slot)
      }
    }
    for slot in slotBuffer { insideBySlot[slot] = false }
    for polygon in next.coveringPolygons { insideBySlot[polygon.slot] = polygon.inside }
  }


  /// The cells a segment from `last` in `old` to `fix` in `next` passes through between them when
  /// the two share only a corner (rows and columns one apart, not across the antimeridian): the
  /// corner cell on the side of the corner the segment passes, both when it passes within 10⁻⁹
  /// degrees of it, prepared as a fix in them would prepare them (a cell the device passes
  /// through, and the same whatever other detectors over the set have prepared, so that the
  /// crossings depend on this device's fixes alone). `nil` (the move is settled as any other)
  /// when the cells do not share a corner or a corner cell has circles, which neither `old` nor
  /// `next` would settle.
  mutating func cornerCells(
    from old: CellCandidates, to next: CellCandidates, last: Coordinate, fix: Coordinate
  ) -> [CellCandidates]? {
    let level = old.key >> 56
    guard next.key >> 56 == level else { return nil }
    let (row0, column0) = (Int((old.key >> 28) & 0xFFF_FFFF), Int(old.key & 0xFFF_FFFF))
    let (row1, column1) = (Int((next.key >> 28) & 0xFFF_FFFF), Int(next.key & 0xFFF_FFFF))
    guard abs(row1 - row0) == 1, abs(column1 - column0) == 1 else { return nil }
    // The corner: the west edge of the eastern column, the south edge of the northern row.
    let cornerX = column1 > column0 ? next.box.west : old.box.west
    let cornerY = row1 > row0 ? next.box.south : old.box.south
    // The segment's latitude where it crosses the corner's meridian (straight in latitude and
    // longitude; the ends are in columns one apart, so its longitudes differ).
    let crossing = last.latitude + (cornerX - last.longitude) * (fix.latitude - last.latitude)
      / (fix.longitude - last.longitude)
    // Below the corner: still in the lower row when it changes column; above, in the upper.
    let lowerRow = min(row0, row1)
    let inLower = (row: lowerRow, column: row0 == lowerRow ? column1 : column0)
    let inUpper = (row: lowerRow + 1, column: row0 == lowerRow ? column0 : column1)
    var cells: [(row: Int, column: Int)] = []
    if crossing < cornerY + 1e-9 { cells.append(inLower) }
    if crossing > cornerY - 1e-9 { cells.append(inUpper) }
    var via: [CellCandidates] = []
    for cell in cells {
      let key = GridCell.key(level: Int(level), row: cell.row, column: cell.column)
      let candidates = cellCandidates(key)
      guard candidates.slots.isEmpty else { return nil }
      via.append(candidates)
    }
    return via
  }

  /// Records the crossings of ``moveHits`` on a move to another cell along `path`, states in
  /// ``insideBySlot``: an edge several of the cells list counts once (they test it alike: a
  /// polygon has the same shift in adjacent cells it meets, as it spans at most 180° of longitude),
  /// then each polygon's hits are recorded as a step's within a cell are
  /// (``recordHits(_:_:slot:wasInside:segment:)``).
  mutating func recordMoveHits(path: PathSegment) {
    if moveHits.count > 1 {
      let order = { (a: MoveHit, b: MoveHit) in a.slot != b.slot ? a.slot < b.slot : a.u < b.u }
      if moveHits.count <= Self.shortSort { moveHits.insertionSort(by: order) } else { moveHits.sort(by: order) }
    }
    polygonHits.clearKeepingCapacity()
    for (i, hit) in moveHits.enumerated() {
      // The same edge from the other cell: among the hits of its polygon at its parameter.
      var k = i - 1
      var seen = false
      while !seen && k >= 0 && moveHits[k].slot == hit.slot && moveHits[k].u == hit.u {
        seen = moveHits[k].edge == hit.edge
        k -= 1
      }
      if !seen { polygonHits.append(PolygonHit(polygon: hit.slot, u: hit.u)) }
    }
    var first = 0
    while first < polygonHits.count {
      let slot = Int(polygonHits[first].polygon)
      var end = first + 1
      while end < polygonHits.count && Int(polygonHits[end].polygon) == slot { end += 1 }
      insideBySlot[slot] = recordHits(first, end, slot: slot, wasInside: insideBySlot[slot], segment: path)
      first = end
    }
  }

  /// Any other move: ask the index for every region whose box touches the segment's box.
  mutating func transitionAnywhere(path: PathSegment, last: LocationFix, fix: LocationFix, p1: SIMD3<Double>) {
    let frame = CartesianFrame.global
    let p0 = previousCartesianIsValid ? previousCartesian : frame.cartesian(last.coordinate)
    let length = path.lengthBound(from: 0, to: 1)
    slotBuffer.removeAll(keepingCapacity: true)
    regions.index.appendSlots(touching: path.box, into: &slotBuffer)
    // A slot may come more than once (a region filed in several cells the box covers).
    slotBuffer.sort()
    for i in 0..<slotBuffer.count where i == 0 || slotBuffer[i] != slotBuffer[i - 1] {
      let slot = Int(slotBuffer[i])
      let wasInside = insideBySlot[slot]
      if let circle = regions.index.circle(slot) {
        let margin0 = circle.margin(chord: chordLength(p0, circle))
        insideBySlot[slot] = settle(
          circle, slot: slot, identifier: regions.index.identifier(slot: slot), path: path, wasInside: wasInside,
          margin0: margin0, p0: p0, p1: p1, length: length, end: fix.coordinate)
      } else if let polygon = regions.index.polygons[slot] {
        insideBySlot[slot] = solvePolygon(polygon, slot: slot, path: path, wasInside: wasInside)
      }
    }
  }

  /// A circle's state at the segment's end, recording crossings when the state changed or the
  /// margins at both ends leave room for the path to have touched the boundary.
  @inline(__always)
  mutating func settle(
    _ circle: CircleGeometry, slot: Int, identifier: RegionIdentifier, path: PathSegment,
    wasInside: Bool, margin0: Double, p0: SIMD3<Double>, p1: SIMD3<Double>, length: Double, end: Coordinate
  ) -> Bool {
    let (state, margin1) = CellCandidates.Circle(circle).classify(p1)
    let isInside = state ?? circle.exactlyContains(end)
    if isInside != wasInside || margin0 + margin1 <= length {
      solveCircle(
        circle, slot: slot, identifier: identifier, path: path, frame: .global, wasInside: wasInside, p0: p0,
        p1: p1, length: length)
    }
    return isInside
  }
}
