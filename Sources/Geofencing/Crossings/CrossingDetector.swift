public import Geodesy

/// Turns a stream of timestamped fixes into raw boundary crossings for every region of a
/// ``RegionIndex``: which region, enter or exit, when and where the path crossed (interpolated),
/// and between which fixes — including *pass-throughs*, where the path between two fixes crosses a
/// region with neither fix inside.
///
/// ```swift
/// var detector = CrossingDetector(regions: index)
/// var crossings: [RegionCrossing] = []
/// for fix in fixes { try detector.process(fix, into: &crossings) }
/// ```
///
/// **Path model.** Between consecutive fixes the device moves linearly in latitude and longitude
/// and in time (``PathSegment``). The first fix sets the initial state of every region without
/// reporting crossings. For each region, enter and exit strictly alternate.
///
/// **Streaming.** Memory is bounded by the index and the regions near the device, never by the
/// track's length. In the steady state no allocation happens per fix for circles (the
/// `CrossingDetector` benchmarks count mallocs); a fix in a grid cell that a polygon's boundary
/// crosses costs a side test against the few edges that pass through its sub-cell of the cell, and
/// only an edge the step may meet gets the exact intersection test.
///
/// **Order.** Crossings of one segment are appended in time order (ties by identifier, then in the
/// order of the path), so the same fixes and regions always give the same output.
///
/// **Sharing.** Detectors made from one ``RegionSet`` share its index and the cells prepared from
/// it; a detector's own state is the regions near the device and the few it is inside.
public struct CrossingDetector: Sendable {
  /// The regions: shared with every detector and monitor made from the same ``RegionSet`` until
  /// this detector's ``insert(_:)`` or ``remove(_:)`` changes them.
  public private(set) var regions: RegionSet
  /// Number of fixes processed.
  public internal(set) var fixCount = 0

  /// The slots the device is inside (authoritative outside the cache's cell): per-device state
  /// sized by the regions the device is in, not by the set.
  var insideBySlot = SlotSet()
  var previous: LocationFix?
  /// Earth-centred coordinates of `previous`, when known.
  var previousCartesian = SIMD3<Double>()
  var previousCartesianIsValid = false
  var cache = CandidateCache()
  // Scratch buffers reused across fixes.
  var pending: [PendingCrossing] = []
  var roots: [(u: Double, enter: Bool)] = []
  var parameters: [Double] = []
  var slotBuffer: [Int32] = []
  /// The edges a walk keeps for the step it stops at (``CellPolygonEdges/walk(_:from:after:within:kept:)``).
  var keptEdges: [Int32] = []
  var polygonHits: [PolygonHit] = []
  /// How a segment that moves to another cell meets the polygon edges near it.
  var moveHits: [MoveHit] = []
  /// The cells entered last (most recent last), looked at before the set's shared cells.
  var recentCells: [CellCandidates] = []
  /// Circles a move to a neighbouring cell settles after its pass over the cells' arrays.
  var settleLater: [Int32] = []
  var recentGeneration = -1
  /// The number of cells in ``recentCells``: a device going back and forth between neighbours
  /// finds them without the shared cache's lock.
  static let recentCapacity = 4

  /// A proper crossing of polygon `polygon` (of the cell, or a region slot on a move to a
  /// neighbouring cell) at parameter `u` of the segment; infinity when the segment may touch one
  /// of its edges.
  struct PolygonHit: Sendable {
    var polygon: Int32
    var u: Double
  }

  /// How a segment moving to another cell meets an edge of polygon slot `slot` (whose ends
  /// are `edge`, in its projected coordinates): a proper crossing at parameter `u`, or infinity
  /// when it may touch the edge.
  struct MoveHit: Sendable {
    var slot: Int32
    var u: Double
    var edge: SIMD4<Double>
  }

  struct PendingCrossing: Sendable {
    var time: Double
    var coordinate: Coordinate
    var slot: Int
    /// The region's identifier, from the cell when it is a circle of the cell: reading it from
    /// the index at flush time was a cache miss per crossing.
    var identifier: RegionIdentifier
    var enter: Bool
    var passThrough: Bool
  }

  /// Creates a detector over a shared set of regions; the detector's own state is sized by the
  /// regions near the device, not by the set.
  public init(regions: RegionSet) {
    self.regions = regions
    slotBuffer.reserveCapacity(64)
    pending.reserveCapacity(16)
  }

  /// Creates a detector over `regions`, in a set of its own (a ``RegionSet`` shares one index
  /// among detectors).
  public init(regions: RegionIndex) {
    self.init(regions: RegionSet(regions))
  }

  /// Whether the device is inside the region after the last fix (`nil` for an unknown identifier).
  public func isInside(_ identifier: RegionIdentifier) -> Bool? {
    guard let slot = regions.index.slot(of: identifier) else { return nil }
    return isInside(slot: slot)
  }

  /// Whether the device is inside the region in `slot` of ``regions`` after the last fix.
  func isInside(slot: Int32) -> Bool {
    if let cell = cache.cell, cache.generation == regions.index.generation {
      if let k = cell.slots.firstIndex(of: slot) { return cache.inside[k] }
      if let k = cell.polygonSlots.firstIndex(of: slot) { return cache.polygonInside[k] }
    }
    return insideBySlot[slot]
  }

  /// The regions the device is inside after the last fix, in the set's slot order (registration
  /// order): found from the few the device is in, not by asking every region.
  public var insideRegions: [RegionIdentifier] {
    insideSlots().map { regions.identifier(slot: $0) }
  }

  /// The slots of every region the device is inside after the last fix, ascending.
  func insideSlots() -> [Int32] {
    var inside = insideBySlot
    if let cell = cache.cell, cache.generation == regions.index.generation {
      for k in 0..<cell.slots.count { inside[cell.slots[k]] = cache.inside[k] }
      for k in 0..<cell.polygonSlots.count { inside[cell.polygonSlots[k]] = cache.polygonInside[k] }
    }
    return inside.sorted
  }

  /// Adds or replaces a region while the stream runs. Its state is taken at the last fix; no
  /// crossing is reported for it until the path next crosses its boundary.
  /// - Returns: The region replaced, if any.
  @discardableResult
  public mutating func insert(_ region: Region) -> Region? {
    writeBack()
    if let old = regions.slot(of: region.identifier) { insideBySlot[old] = false }
    let replaced = regions.insert(region)
    if let slot = regions.slot(of: region.identifier) {
      if let fix = previous {
        let p = Ellipsoid.wgs84.cartesian(fix.coordinate)
        insideBySlot[slot] = regions.index.slot(Int(slot), contains: fix.coordinate, cartesian: p)
      } else {
        insideBySlot[slot] = false
      }
    }
    return replaced
  }

  /// Removes a region; no exit is reported for it.
  @discardableResult
  public mutating func remove(_ identifier: RegionIdentifier) -> Region? {
    writeBack()
    guard let slot = regions.slot(of: identifier) else { return nil }
    insideBySlot[slot] = false
    return regions.remove(identifier)
  }

  /// Forgets the track: the next fix sets every region's state without reporting crossings.
  public mutating func reset() {
    insideBySlot.removeAll()
    previous = nil
    previousCartesianIsValid = false
    cache.cell = nil
  }

  /// Processes every fix of a sequence in order.
  ///
  /// For contiguous collections (`Array`, `ContiguousArray`, buffers) a tight loop handles the
  /// common case — the device stays in its grid cell and no region is due for a look — without
  /// leaving the loop; the result is identical to processing the fixes one by one.
  /// - Throws: ``CrossingDetectorError`` for the first unusable fix; the fixes before it are
  ///   processed, the rest are not.
  public mutating func process(_ fixes: some Sequence<LocationFix>, into crossings: inout [RegionCrossing])
    throws(CrossingDetectorError)
  {
    var failure: CrossingDetectorError?
    let handled: Void? = fixes.withContiguousStorageIfAvailable { buffer in
      do throws(CrossingDetectorError) { try process(buffer: buffer, into: &crossings) } catch { failure = error }
    }
    if let failure { throw failure }
    if handled != nil { return }
    for fix in fixes { try process(fix, into: &crossings) }
  }

  private mutating func process(buffer fixes: UnsafeBufferPointer<LocationFix>, into crossings: inout [RegionCrossing])
    throws(CrossingDetectorError)
  {
    var i = 0
    while i < fixes.count {
      if let last = previous, let cell = cache.cell, cache.generation == regions.index.generation {
        let next = runWithinCell(cell, fixes, from: i, after: last, into: &crossings)
        if next > i {
          i = next
          continue
        }
      }
      try process(fixes[i], into: &crossings)
      i += 1
    }
  }

  /// The steady state without leaving the loop: processes fixes from `start` while they are in
  /// time order and inside `cell`, looking at the regions when they fall due. Returns the index of
  /// the first fix it did not process.
  private mutating func runWithinCell(
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
  private mutating func runCircles(
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
  private mutating func lookUnlessQuiet(
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
  private mutating func walkPolygons(
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
  private mutating func settleWalkedStep(
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

  /// Processes the next fix, appending the crossings on the path from the previous fix to it.
  /// - Throws: ``CrossingDetectorError`` when the fix's time is not finite or is earlier than the
  ///   previous fix's; the detector is unchanged.
  public mutating func process(_ fix: LocationFix, into crossings: inout [RegionCrossing]) throws(CrossingDetectorError)
  {
    guard fix.time.isFinite else {
      throw CrossingDetectorError(fixIndex: fixCount, time: fix.time, reason: .timeNotFinite)
    }
    guard let last = previous else {
      fixCount = 1
      previous = fix
      previousCartesianIsValid = false
      if !regions.isEmpty { rebuildCache(at: fix, evaluateStates: true) }
      return
    }
    guard fix.time >= last.time else {
      throw CrossingDetectorError(fixIndex: fixCount, time: fix.time, reason: .outOfOrder(previousTime: last.time))
    }
    let index = fixCount
    fixCount += 1
    // The cell borrowed from the cache, which holds it: staying in it replaces nothing, and
    // binding it (`if let cell = cache.cell`) would retain and release it at every fix.
    var advanced = false
    if let cell = cache.cellReference, cache.generation == regions.index.generation {
      advanced = cell._withUnsafeGuaranteedRef { cell in
        guard cell.contains(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude) else { return false }
        advanceWithinCell(cell, from: last, to: fix)
        return true
      }
    }
    if advanced {
      // Settled in the cell.
    } else if !regions.isEmpty {
      transition(from: last, to: fix)
    } else {
      previousCartesianIsValid = false
    }
    if !pending.isEmpty { flush(into: &crossings, fromFix: index - 1) }
    previous = fix
  }

  // MARK: - Steady state: the device stays in its cell

  @inline(__always)
  private mutating func advanceWithinCell(_ cell: CellCandidates, from last: LocationFix, to fix: LocationFix) {
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
  private mutating func look(_ cell: CellCandidates, from last: LocationFix, to fix: LocationFix) {
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
  private func mayCrossPolygons(
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
  private mutating func settlePolygons(
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
  private mutating func collectPolygonHits(
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
  private static func appendHit(
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
  private mutating func collectKeptHits(_ cell: CellCandidates, count: Int, from last: LocationFix, to fix: LocationFix)
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
  private mutating func recordPolygonHits(
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
  private mutating func recordHits(
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
  private mutating func scan(
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
  private mutating func settleFlagged(
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

  // MARK: - Cell changes

  private mutating func transition(from last: LocationFix, to fix: LocationFix) {
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
  private mutating func transitionToNeighbour(
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
    // The old cell's circles settled at the new fix, in place: the filter (in the old cell's
    // coordinates, which reach its neighbours) clears the usual circle; the rest are settled exactly.
    var first = 0
    while first < old.filter.count {
      var left = Self.look(at: p1, in: old, from: first, step: length, states: cache.insideMasks).uncleared
      while left != 0 {
        let k = first &* 8 &+ left.trailingZeroBitCount
        left &= left &- 1
        cache.inside[k] = settle(
          old.geometry(k), slot: Int(old.slots[k]), identifier: old.identifiers[k], path: path,
          wasInside: cache.inside[k], margin0: old.circles[k].classify(p0).margin, p0: p0, p1: p1, length: length,
          end: fix.coordinate)
      }
      first &+= CircleFilter.blocksPerRun
    }
    cache.writePolygonStates(old, into: &insideBySlot, scratch: &slotBuffer)
    // The new cell's circles, merged with the old cell's by slot.
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
        p1: p1, length: length, end: fix.coordinate)
    }
    while i < oldSlots.count {
      insideBySlot[oldSlots[i]] = cache.inside[i]
      i += 1
    }
    cache.begin(next, generation: regions.index.generation)
    settlePolygons(from: old, to: next, via: via, path: path, last: last.coordinate, fix: fix.coordinate)
    cache.setPolygonStates(next, from: insideBySlot)
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
  private mutating func settlePolygons(
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
  private mutating func cornerCells(
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
  private mutating func recordMoveHits(path: PathSegment) {
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
  private mutating func transitionAnywhere(path: PathSegment, last: LocationFix, fix: LocationFix, p1: SIMD3<Double>) {
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
  private mutating func settle(
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
  private mutating func enter(_ cell: CellCandidates, at p: SIMD3<Double>) {
    cache.enter(cell, generation: regions.index.generation, insideBySlot: insideBySlot)
    previousCartesian = p
    previousCartesianIsValid = true
  }

  @inline(__always)
  private func chordLength(_ p: SIMD3<Double>, _ circle: CircleGeometry) -> Double {
    let d = p - circle.centerCartesian
    return (d * d).sum().squareRoot()
  }

  /// Records the crossings of a circle on a segment whose start state is `wasInside`; `p0` and `p1`
  /// are the Earth-centred coordinates of its ends, `length` a bound on its length, `end` the
  /// chord and state at `p1` when the caller has them from the chord test.
  private mutating func solveCircle(
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
  private mutating func solvePolygon(_ polygon: PolygonGeometry, slot: Int, path: PathSegment, wasInside: Bool) -> Bool
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
  private mutating func rebuildCache(at fix: LocationFix, evaluateStates: Bool) {
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
  private mutating func writeBack() {
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
  private mutating func flush(into crossings: inout [RegionCrossing], fromFix: Int) {
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


