import Geodesy

/// The dense paths: runs of fixes that stay in one grid cell, handled without leaving a loop — circles
/// alone (``runCircles``), or circles and polygons together, the polygons walked sub-cell by sub-cell.
extension CrossingDetector {
  /// The steady state without leaving the loop: processes fixes from `start` while they are in
  /// time order and inside `cell`, looking at the regions when they fall due. Returns the index of
  /// the first fix it did not process.
  mutating func runWithinCell(
    _ cell: CellCandidates, _ fixes: UnsafeBufferPointer<LocationFix>, from start: Int, after last: LocationFix,
    into crossings: inout [RegionCrossing]
  ) -> Int {
    let walks = !cell.polygonSlots.isEmpty
    let hasCircles = !cell.circles.isEmpty
    if !walks && hasCircles { return runCircles(cell, fixes, from: start, after: last, into: &crossings) }
    let edges = cell.polygonEdges
    if walks && !hasCircles && !edges.hasWidePolygons {
      return walkPolygons(cell, fixes, from: start, after: last, into: &crossings)
    }
    var j = start
    var beforeTime = last.time
    // Set when a fix passed without a look: the previous fix's coordinates are then not known.
    var moved = false
    let firstIndex = fixCount
    // The sub-cell and coordinates of the fix before, for the walk: each fix's sub-cell is
    // computed once, and the fix itself is read again only for a step that may cross.
    var before = walks ? edges.subCell(latitude: last.coordinate.latitude, longitude: last.coordinate.longitude) : (0, 0)
    var beforeLatitude = last.coordinate.latitude
    var beforeLongitude = last.coordinate.longitude
    while j < fixes.count {
      // Fields, not the whole fix: a copy of the 40-byte struct went through the stack, and
      // reading part of it back stalled on store forwarding in portable builds (measured: 20
      // circles, 91 M fixes/s with the copy).
      let time = fixes[j].time
      let latitude = fixes[j].coordinate.latitude
      let longitude = fixes[j].coordinate.longitude
      guard time >= beforeTime, time.isFinite, cell.contains(latitude: latitude, longitude: longitude) else { break }
      if walks {
        let here = edges.subCell(latitude: latitude, longitude: longitude)
        if mayCrossPolygons(
          cell, latitude0: beforeLatitude, longitude0: beforeLongitude, latitude1: latitude, longitude1: longitude,
          subCells: (before, here))
        {
          settlePolygons(cell, from: j == start ? last : fixes[j - 1], to: fixes[j], subCells: (before, here))
        }
        before = here
        beforeLatitude = latitude
        beforeLongitude = longitude
      }
      if hasCircles {
        _ = lookUnlessQuiet(cell, fixes, at: j, from: start, after: last, latitude: latitude, longitude: longitude, moved: &moved)
      }
      if !pending.isEmpty { flush(into: &crossings, fromFix: firstIndex + (j - start) - 1) }
      beforeTime = time
      j += 1
    }
    if !hasCircles && j > start {
      cache.looked(
        latitude: fixes[j - 1].coordinate.latitude, longitude: fixes[j - 1].coordinate.longitude, margin: .infinity)
      previousCartesianIsValid = false
    }
    if moved { previousCartesianIsValid = false }
    if j > start {
      previous = fixes[j - 1]
      fixCount += j - start
    }
    return j
  }

  /// ``runWithinCell(_:_:from:after:into:)`` in a cell whose regions are all circles: the quiet
  /// test at every fix, a look at the circles where it fails, and the crossings a look found
  /// written out there (only a look makes them here). Without the polygon walk's branches at every
  /// fix, the dense circle rows keep their speed (20 circles: 4.4 instructions a fix fewer than
  /// the loop that also walks polygons, callgrind on compare-peers' runner).
  mutating func runCircles(
    _ cell: CellCandidates, _ fixes: UnsafeBufferPointer<LocationFix>, from start: Int, after last: LocationFix,
    into crossings: inout [RegionCrossing]
  ) -> Int {
    var j = start
    var beforeTime = last.time
    // Set when a fix passed without a look: the previous fix's coordinates are then not known.
    var moved = false
    let firstIndex = fixCount
    while j < fixes.count {
      // Fields, not the whole fix (see runWithinCell).
      let time = fixes[j].time
      let latitude = fixes[j].coordinate.latitude
      let longitude = fixes[j].coordinate.longitude
      guard time >= beforeTime, time.isFinite, cell.contains(latitude: latitude, longitude: longitude) else { break }
      if lookUnlessQuiet(cell, fixes, at: j, from: start, after: last, latitude: latitude, longitude: longitude, moved: &moved),
        !pending.isEmpty
      {
        flush(into: &crossings, fromFix: firstIndex + (j - start) - 1)
      }
      beforeTime = time
      j += 1
    }
    if moved { previousCartesianIsValid = false }
    if j > start {
      previous = fixes[j - 1]
      fixCount += j - start
    }
    return j
  }

  /// The circles at fix `j` (in `cell`, from a run that began at `start` after `last`): nothing
  /// when it is in the quiet ellipse (`moved` then says the previous fix's coordinates are not
  /// known), else a look from the fix before. Returns whether it looked.
  @inline(__always)
  mutating func lookUnlessQuiet(
    _ cell: CellCandidates, _ fixes: UnsafeBufferPointer<LocationFix>, at j: Int, from start: Int, after last: LocationFix,
    latitude: Double, longitude: Double, moved: inout Bool
  ) -> Bool {
    if cache.isQuiet(cell, latitude: latitude, longitude: longitude) {
      moved = true
      return false
    }
    if moved { previousCartesianIsValid = false }
    moved = false
    look(cell, from: j == start ? last : fixes[j - 1], to: fixes[j])
    return true
  }

  /// ``runWithinCell(_:_:from:after:into:)`` in a cell whose regions are all polygons, each with
  /// its shift: the cell's edges walk the fixes (``CellPolygonEdges/walk(_:from:after:within:)``)
  /// up to a step that may cross, which is settled, and on from the fix after it.
  mutating func walkPolygons(
    _ cell: CellCandidates, _ fixes: UnsafeBufferPointer<LocationFix>, from start: Int, after last: LocationFix,
    into crossings: inout [RegionCrossing]
  ) -> Int {
    let edges = cell.polygonEdges
    let firstIndex = fixCount
    var j = start
    var before = last
    if keptEdges.count < edges.keptCapacity {
      keptEdges = [Int32](repeating: 0, count: max(edges.keptCapacity, 2 * keptEdges.count))
    }
    while true {
      let (next, stop) = keptEdges.withUnsafeMutableBufferPointer { kept in
        // Non-empty: `keptCapacity` is at least 1.
        edges.walk(fixes, from: j, after: before, within: cell.box, kept: kept.baseAddress!)
      }
      j = next
      if stop == .left { break }
      let fix = fixes[j]
      let from = j == start ? last : fixes[j - 1]
      if case .kept(let count) = stop {
        collectKeptHits(cell, count: count, from: from, to: fix)
      } else {
        let subCells = (
          edges.subCell(latitude: from.coordinate.latitude, longitude: from.coordinate.longitude),
          edges.subCell(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude)
        )
        collectPolygonHits(cell, from: from, to: fix, subCells: subCells)
      }
      settleWalkedStep(cell, from: from, to: fix, fromFix: firstIndex + (j - start) - 1, into: &crossings)
      before = fix
      j += 1
    }
    if j > start {
      // Nothing for the circle filter to look at: quiet until the cell changes.
      cache.looked(
        latitude: fixes[j - 1].coordinate.latitude, longitude: fixes[j - 1].coordinate.longitude, margin: .infinity)
      previousCartesianIsValid = false
      previous = fixes[j - 1]
      fixCount += j - start
    }
    return j
  }

  /// The step from `last` to `fix` (fixes `fromFix` and `fromFix` + 1) at which the cell's edges
  /// stopped their walk (``walkPolygons(_:_:from:after:into:)``), its ``polygonHits`` collected:
  /// its crossings appended to `crossings`. One proper crossing, the usual, goes straight into a
  /// record; anything else is recorded in general (``recordPolygonHits(_:from:to:path:)``) and
  /// flushed.
  @inline(never)
  mutating func settleWalkedStep(
    _ cell: CellCandidates, from last: LocationFix, to fix: LocationFix, fromFix: Int,
    into crossings: inout [RegionCrossing]
  ) {
    guard !polygonHits.isEmpty else { return }
    if polygonHits.count == 1 && polygonHits[0].u != .infinity && pending.isEmpty {
      let k = Int(polygonHits[0].polygon)
      let slot = Int(cell.polygonSlots[k])
      let wasInside = cache.polygonInside[k]
      let u = polygonHits[0].u
      let segment = PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
      crossings.append(
        RegionCrossing(
          region: regions.index.identifier(slot: slot), direction: wasInside ? .exit : .enter,
          time: segment.time(at: u), coordinate: segment.point(at: u), fromFix: fromFix, toFix: fromFix + 1,
          isPassThrough: false, slot: Int32(slot)))
      cache.polygonInside[k] = !wasInside
      return
    }
    recordPolygonHits(cell, from: last, to: fix, path: nil)
    if !pending.isEmpty { flush(into: &crossings, fromFix: fromFix) }
  }
}
