import Geodesy

/// The cell candidates a detector keeps, the exact circle and polygon crossing solvers, and the
/// crossings found handed on in time order.
extension CrossingDetector {
  /// The candidates of a cell: one of the cells entered last, or the set's (built from the index
  /// if no detector over the set has entered it yet).
  mutating func cellCandidates(_ key: UInt64) -> CellCandidates {
    if recentGeneration != regions.index.generation {
      recentCells.removeAll(keepingCapacity: true)
      recentGeneration = regions.index.generation
    }
    for k in recentCells.indices.reversed() where recentCells[k].key == key {
      let cell = recentCells.remove(at: k)
      recentCells.append(cell)
      return cell
    }
    let shared = regions.cells
    let cell = shared.cell(key) { CellCandidates(key: key, regions: regions.index, scratch: &slotBuffer) }
    if recentCells.count >= Self.recentCapacity { recentCells.removeFirst() }
    recentCells.append(cell)
    return cell
  }

  /// Makes `cell` the current cell, with states from ``insideBySlot``; `p` is the Earth-centred
  /// position of the last fix.
  mutating func enter(_ cell: CellCandidates, at p: SIMD3<Double>) {
    cache.enter(cell, generation: regions.index.generation, insideBySlot: insideBySlot)
    previousCartesian = p
    previousCartesianIsValid = true
  }

  @inline(__always)
  func chordLength(_ p: SIMD3<Double>, _ circle: CircleGeometry) -> Double {
    let d = p - circle.centerCartesian
    return (d * d).sum().squareRoot()
  }

  /// Records the crossings of a circle on a segment whose start state is `wasInside`; `p0` and `p1`
  /// are the Earth-centred coordinates of its ends, `length` a bound on its length, `end` the
  /// chord and state at `p1` when the caller has them from the chord test.
  mutating func solveCircle(
    _ circle: CircleGeometry, slot: Int, identifier: RegionIdentifier, path: PathSegment, frame: CartesianFrame,
    wasInside: Bool, p0: SIMD3<Double>, p1: SIMD3<Double>, length: Double, end: (chord: Double, inside: Bool)? = nil
  ) {
    var solver = CircleCrossingSolver(circle: circle, path: path, frame: frame)
    solver.interpolate(from: p0, to: p1)
    var start = solver.evaluation(p0, point: path.point(at: 0))
    // The recorded state is authoritative (the start may sit in the micrometre band).
    if start.inside != wasInside {
      start.inside = wasInside
      start.margin = 0
    }
    let finish =
      end.map { solver.evaluation(p1, chord: $0.chord, inside: $0.inside) }
      ?? solver.evaluation(p1, point: path.point(at: 1))
    if start.inside != finish.inside && length <= CircleCrossingSolver.maximumPieceLength {
      // The usual case: one crossing on a short step.
      let u = solver.crossing(start: start, end: finish)
      pending.append(
        PendingCrossing(
          time: path.time(at: u), coordinate: path.point(at: u), slot: slot, identifier: identifier,
          enter: !start.inside, passThrough: false))
      return
    }
    roots.clearKeepingCapacity()
    solver.crossings(start: start, end: finish, length: length, into: &roots)
    let passThrough = start.inside == finish.inside
    for root in roots {
      pending.append(
        PendingCrossing(
          time: path.time(at: root.u), coordinate: path.point(at: root.u), slot: slot, identifier: identifier,
          enter: root.enter, passThrough: passThrough))
    }
  }

  /// Records a polygon's crossings on the segment and returns its state at the end.
  mutating func solvePolygon(_ polygon: PolygonGeometry, slot: Int, path: PathSegment, wasInside: Bool) -> Bool
  {
    let identifier = regions.index.identifier(slot: slot)
    let planar = polygon.planar
    let x0 = planar.x(longitude: path.longitude0)
    // The segment ends exactly at the fix (its x continued from x0, not wrapped), so that a fix on
    // the boundary is not a unit in the last place off it.
    let xEnd = planar.x(longitude: path.end.longitude)
    let x1 = abs(xEnd - (x0 + path.deltaLongitude)) < 1 ? xEnd : x0 + path.deltaLongitude
    let y0 = path.latitude0
    let y1 = path.end.latitude
    let isInside = polygon.contains(x: planar.x(longitude: path.end.longitude), y: path.end.latitude)
    var state = wasInside
    var crossingsHere = 0
    let firstPending = pending.count
    for turn in 0..<3 {
      // The polygon's own turn, then one more and one fewer (no array to allocate).
      let shift = turn == 0 ? 0.0 : turn == 1 ? 360 : -360
      if shift > 0 && x1 >= planar.middleX - 180 { continue }
      if shift < 0 && x1 <= planar.middleX + 180 { continue }
      polygon.boundaryParameters(x0: x0 + shift, y0: y0, x1: x1 + shift, y1: y1, into: &parameters)
      // The state just after each boundary parameter (at the midpoint to the next one) decides
      // which parameters are crossings.
      for (i, u) in parameters.enumerated() {
        let nextU = i + 1 < parameters.count ? parameters[i + 1] : 1.0
        let midU = (u + nextU) / 2
        let midState =
          u == 1.0
          ? isInside
          : polygon.contains(x: planar.x(longitude: path.point(at: midU).longitude), y: y0 + midU * (y1 - y0))
        if midState != state {
          pending.append(
            PendingCrossing(
              time: path.time(at: u), coordinate: path.point(at: u), slot: slot, identifier: identifier,
              enter: midState, passThrough: false))
          crossingsHere += 1
          state = midState
        }
      }
    }
    // The end state is authoritative; a final mismatch (a crossing exactly at the end fix) closes here.
    if state != isInside {
      pending.append(
        PendingCrossing(
          time: path.time1, coordinate: path.point(at: 1), slot: slot, identifier: identifier, enter: isInside,
          passThrough: false))
      crossingsHere += 1
    }
    if crossingsHere >= 2 && wasInside == isInside {
      for i in firstPending..<pending.count { pending[i].passThrough = true }
    }
    return isInside
  }

  // MARK: - Cache maintenance

  /// Enters the cell of the first fix, setting every candidate's state without reporting crossings.
  mutating func rebuildCache(at fix: LocationFix, evaluateStates: Bool) {
    let key = GridCell.key(
      latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, level: regions.index.gridLevel)
    let cell = cellCandidates(key)
    let p = cell.cartesian(fix.coordinate)
    if evaluateStates {
      slotBuffer.removeAll(keepingCapacity: true)
      regions.index.appendSlots(nearLatitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, into: &slotBuffer)
      for i in 0..<slotBuffer.count {
        let slot = Int(slotBuffer[i])
        insideBySlot[slot] = regions.index.slot(slot, contains: fix.coordinate, cartesian: p)
      }
    }
    enter(cell, at: p)
  }

  /// Copies the cache's states back to the per-slot array and invalidates the cache.
  mutating func writeBack() {
    guard let cell = cache.cell else { return }
    if cache.generation == regions.index.generation {
      for k in 0..<cell.slots.count { insideBySlot[cell.slots[k]] = cache.inside[k] }
      cache.writePolygonStates(cell, into: &insideBySlot, scratch: &slotBuffer)
    }
    cache.cell = nil
  }

  /// The most elements a scratch array is sorted by insertion (``Array/insertionSort(by:)``).
  static let shortSort = 32

  /// Sorts `hits` by polygon, then parameter.
  @inline(__always)
  static func sortByPolygon(_ hits: inout [PolygonHit]) {
    let order = { (a: PolygonHit, b: PolygonHit) in a.polygon != b.polygon ? a.polygon < b.polygon : a.u < b.u }
    if hits.count <= shortSort { hits.insertionSort(by: order) } else { hits.sort(by: order) }
  }

  /// Sorts this segment's crossings and appends them as ``RegionCrossing`` values.
  mutating func flush(into crossings: inout [RegionCrossing], fromFix: Int) {
    if pending.count > 1 {
      // One region's crossings are recorded in the order of the path, and the sort is stable:
      // two at the same time (a rounding step apart) keep their order, so enter and exit alternate.
      // Sorted last first, as they are taken from the end below.
      let precedes = { (a: PendingCrossing, b: PendingCrossing) in
        a.time != b.time ? a.time < b.time : a.identifier.rawValue < b.identifier.rawValue
      }
      if pending.count <= Self.shortSort {
        // The reverse of the stable ascending order: each crossing goes before every earlier one
        // it does not precede.
        pending.insertionSort { a, b in !precedes(a, b) }
      } else {
        pending.sort(by: precedes)
        pending.reverse()
      }
    }
    // Each pending crossing moved out of the scratch array, its identifier into the record:
    // no copy of the identifier to retain here and release when the array is emptied.
    while let p = pending.popLast() {
      crossings.append(
        RegionCrossing(
          region: p.identifier, direction: p.enter ? .enter : .exit, time: p.time, coordinate: p.coordinate,
          fromFix: fromFix, toFix: fromFix + 1, isPassThrough: p.passThrough, slot: Int32(p.slot)))
    }
  }
}
