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

  mutating func process(buffer fixes: UnsafeBufferPointer<LocationFix>, into crossings: inout [RegionCrossing])
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
}
