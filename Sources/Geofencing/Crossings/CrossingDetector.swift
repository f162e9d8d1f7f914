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
/// track's length. In the steady state no allocation happens per fix.
///
/// **Order.** Crossings of one segment are appended in time order (ties by identifier, then enter
/// before exit), so the same fixes and regions always give the same output.
///
/// - Important: Not `Sendable` when the index holds polygons; confine to one task.
public struct CrossingDetector {
  /// The regions, owned by the detector so that state follows inserts and removes.
  public private(set) var regions: RegionIndex
  /// Number of fixes processed.
  public private(set) var fixCount = 0

  /// Containment state by slot (authoritative outside the cache's cell).
  var insideBySlot: [Bool] = []
  var previous: LocationFix?
  var previousCartesian: SIMD3<Double>?
  var cache = CandidateCache()
  /// Deduplication stamps for segment queries.
  var visited: [UInt32] = []
  var stamp: UInt32 = 0
  /// Scratch buffers reused across fixes.
  var pending: [PendingCrossing] = []
  var roots: [(u: Double, enter: Bool)] = []
  var parameters: [Double] = []

  struct PendingCrossing {
    var time: Double
    var coordinate: Coordinate
    var slot: Int
    var enter: Bool
    var passThrough: Bool
  }

  /// Creates a detector over `regions`.
  public init(regions: RegionIndex) {
    self.regions = regions
    insideBySlot = Array(repeating: false, count: regions.slotCapacity)
    visited = Array(repeating: 0, count: regions.slotCapacity)
  }

  /// Whether the device is inside the region after the last fix (`nil` for an unknown identifier).
  public func isInside(_ identifier: RegionIdentifier) -> Bool? {
    guard let slot = regions.slotByIdentifier[identifier] else { return nil }
    if let k = cache.slots.firstIndex(of: slot), cache.generation == regions.generation { return cache.inside[k] }
    if let k = cache.polygonSlots.firstIndex(of: slot), cache.generation == regions.generation {
      return cache.polygonInside[k]
    }
    return insideBySlot[Int(slot)]
  }

  /// Adds or replaces a region while the stream runs. Its state is taken at the last fix; no
  /// crossing is reported for it until the path next crosses its boundary.
  /// - Returns: The region replaced, if any.
  @discardableResult
  public mutating func insert(_ region: Region) throws(RegionError) -> Region? {
    writeBack()
    let replaced = try regions.insert(region)
    growState()
    if let slot = regions.slotByIdentifier[region.identifier] {
      if let fix = previous {
        insideBySlot[Int(slot)] = regions.slot(Int(slot), contains: fix.coordinate, cartesian: cartesian(of: fix))
      } else {
        insideBySlot[Int(slot)] = false
      }
    }
    return replaced
  }

  /// Removes a region; no exit is reported for it.
  @discardableResult
  public mutating func remove(_ identifier: RegionIdentifier) -> Region? {
    writeBack()
    guard let slot = regions.slotByIdentifier[identifier] else { return nil }
    insideBySlot[Int(slot)] = false
    return regions.remove(identifier)
  }

  /// Forgets the track: the next fix sets every region's state without reporting crossings.
  public mutating func reset() {
    for i in insideBySlot.indices { insideBySlot[i] = false }
    previous = nil
    previousCartesian = nil
    cache.key = nil
  }

  /// Processes every fix of a sequence in order.
  public mutating func process(_ fixes: some Sequence<LocationFix>, into crossings: inout [RegionCrossing])
    throws(CrossingDetectorError)
  {
    for fix in fixes { try process(fix, into: &crossings) }
  }

  /// Processes the next fix, appending the crossings on the path from the previous fix to it.
  /// - Throws: ``CrossingDetectorError`` when the fix's time is not finite or is earlier than the
  ///   previous fix's; the detector is unchanged.
  public mutating func process(_ fix: LocationFix, into crossings: inout [RegionCrossing]) throws(CrossingDetectorError) {
    guard fix.time.isFinite else {
      throw CrossingDetectorError(fixIndex: fixCount, time: fix.time, reason: .timeNotFinite)
    }
    guard let last = previous else {
      fixCount = 1
      previous = fix
      previousCartesian = nil
      if !regions.isEmpty { rebuildCache(at: fix, evaluateStates: true) }
      return
    }
    guard fix.time >= last.time else {
      throw CrossingDetectorError(fixIndex: fixCount, time: fix.time, reason: .outOfOrder(previousTime: last.time))
    }
    let index = fixCount
    fixCount += 1
    defer {
      previous = fix
    }
    guard !regions.isEmpty else {
      previousCartesian = nil
      return
    }
    let level = regions.occupiedLevels.first ?? 0
    let key = GridCell.key(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, level: level)
    if key == cache.key && cache.generation == regions.generation {
      advanceWithinCell(from: last, to: fix, fixIndex: index)
    } else {
      transition(from: last, to: fix, fixIndex: index)
    }
    flush(into: &crossings, fromFix: index - 1)
  }

  // MARK: - Steady state: the device stays in its cell

  private mutating func advanceWithinCell(from last: LocationFix, to fix: LocationFix, fixIndex: Int) {
    let dLat = fix.coordinate.latitude - last.coordinate.latitude
    let dLon = PlanarPolygons.wrapped(fix.coordinate.longitude - last.coordinate.longitude)
    let step = cache.stepBound(deltaLatitude: dLat, deltaLongitude: dLon)
    let travelledBefore = cache.travelled
    cache.travelled += step
    let scanCircles = cache.travelled >= cache.minimumMargin
    guard scanCircles || !cache.polygonSlots.isEmpty else {
      previousCartesian = nil
      return
    }
    let path = PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
    if scanCircles {
      let p = Ellipsoid.wgs84.cartesian(fix.coordinate)
      var newMinimum = Double.infinity
      for k in 0..<cache.slots.count {
        let dx = p.x - cache.x[k]
        let dy = p.y - cache.y[k]
        let dz = p.z - cache.z[k]
        let d = (dx * dx + dy * dy + dz * dz).squareRoot()
        var isInside: Bool
        var margin: Double
        if d <= cache.inner[k] {
          isInside = true
          margin = cache.inner[k] - d
        } else if d > cache.outer[k] {
          isInside = false
          margin = d - cache.outer[k]
        } else {
          let slot = Int(cache.slots[k])
          isInside = regions.circles[slot]?.exactlyContains(fix.coordinate) ?? false
          margin = 0
        }
        let wasInside = cache.inside[k]
        if isInside != wasInside || (cache.margin[k] - travelledBefore) + margin <= step {
          let slot = Int(cache.slots[k])
          if let circle = regions.circles[slot] {
            solveCircle(circle, slot: slot, path: path, wasInside: wasInside, endChord: d, end: fix.coordinate)
          }
        }
        cache.inside[k] = isInside
        cache.margin[k] = margin
        newMinimum = min(newMinimum, margin)
      }
      cache.minimumMargin = newMinimum
      cache.travelled = 0
      previousCartesian = p
    } else {
      previousCartesian = nil
    }
    for k in 0..<cache.polygonSlots.count {
      let slot = Int(cache.polygonSlots[k])
      guard let polygon = regions.polygons[slot] else { continue }
      cache.polygonInside[k] = solvePolygon(polygon, slot: slot, path: path, wasInside: cache.polygonInside[k])
    }
  }

  // MARK: - Cell changes

  private mutating func transition(from last: LocationFix, to fix: LocationFix, fixIndex: Int) {
    writeBack()
    growState()
    let path = PathSegment(from: last.coordinate, at: last.time, to: fix.coordinate, at: fix.time)
    let p0 = cartesian(of: last)
    let p1 = Ellipsoid.wgs84.cartesian(fix.coordinate)
    let length = path.lengthBound(from: 0, to: 1)
    stamp &+= 1
    if stamp == 0 {
      for i in visited.indices { visited[i] = 0 }
      stamp = 1
    }
    let currentStamp = stamp
    var touched: [Int] = []
    regions.forEachSlot(touching: path.box) { slot in
      if visited[slot] != currentStamp {
        visited[slot] = currentStamp
        touched.append(slot)
      }
    }
    for slot in touched {
      let wasInside = insideBySlot[slot]
      if let circle = regions.circles[slot] {
        let e0 = chordDistance(p0, circle)
        let d1 = chordDistance(p1, circle)
        let margin0 = circle.margin(chord: e0)
        let margin1 = circle.margin(chord: d1)
        let isInside = solveOrClassify(circle, slot: slot, path: path, wasInside: wasInside, endChord: d1,
                                       end: fix.coordinate, marginSum: margin0 + margin1, length: length)
        insideBySlot[slot] = isInside
      } else if let polygon = regions.polygons[slot] {
        insideBySlot[slot] = solvePolygon(polygon, slot: slot, path: path, wasInside: wasInside)
      }
    }
    previousCartesian = p1
    rebuildCache(at: fix, evaluateStates: false)
  }

  private func chordDistance(_ p: SIMD3<Double>, _ circle: CircleGeometry) -> Double {
    let d = p - circle.centerCartesian
    return (d * d).sum().squareRoot()
  }

  /// Decides the circle's state at the segment's end and records crossings on the segment.
  private mutating func solveOrClassify(
    _ circle: CircleGeometry, slot: Int, path: PathSegment, wasInside: Bool, endChord: Double,
    end: Coordinate, marginSum: Double, length: Double
  ) -> Bool {
    let solver = CircleCrossingSolver(circle: circle, path: path)
    let endState = solver.evaluation(chord: endChord, point: end)
    if endState.inside != wasInside || marginSum <= length {
      solveCircle(circle, slot: slot, path: path, wasInside: wasInside, endChord: endChord, end: end)
    }
    return endState.inside
  }

  /// Records the crossings of a circle on a segment whose start state is `wasInside`.
  private mutating func solveCircle(
    _ circle: CircleGeometry, slot: Int, path: PathSegment, wasInside: Bool, endChord: Double, end: Coordinate
  ) {
    let solver = CircleCrossingSolver(circle: circle, path: path)
    var start = solver.evaluate(0)
    // The recorded state is authoritative; keep the sign-exact value consistent with it.
    if start.inside != wasInside {
      start = CircleCrossingSolver.Evaluation(f: wasInside ? -1e-12 : 1e-12, inside: wasInside, margin: 0)
    }
    let finish = solver.evaluation(chord: endChord, point: end)
    roots.removeAll(keepingCapacity: true)
    solver.crossings(start: start, end: finish, into: &roots)
    let passThrough = start.inside == finish.inside
    for root in roots {
      pending.append(
        PendingCrossing(
          time: path.time(at: root.u), coordinate: path.point(at: root.u), slot: slot, enter: root.enter,
          passThrough: passThrough))
    }
  }

  /// Records a polygon's crossings on the segment and returns its state at the end.
  private mutating func solvePolygon(_ polygon: PolygonGeometry, slot: Int, path: PathSegment, wasInside: Bool) -> Bool {
    let planar = polygon.planar
    let x0 = planar.x(longitude: path.longitude0)
    let x1 = x0 + path.deltaLongitude
    let y0 = path.latitude0
    let y1 = path.latitude0 + path.deltaLatitude
    let isInside = polygon.contains(x: planar.x(longitude: path.point(at: 1).longitude), y: y1)
    var shifts: [Double] = [0]
    if x1 < planar.middleX - 180 { shifts.append(360) }
    if x1 > planar.middleX + 180 { shifts.append(-360) }
    var state = wasInside
    var crossingsHere = 0
    let firstPending = pending.count
    for shift in shifts {
      polygon.boundaryParameters(x0: x0 + shift, y0: y0, x1: x1 + shift, y1: y1, into: &parameters)
      guard !parameters.isEmpty else { continue }
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
              time: path.time(at: u), coordinate: path.point(at: u), slot: slot, enter: midState, passThrough: false))
          crossingsHere += 1
          state = midState
        }
      }
    }
    // The end state is authoritative; a final mismatch (a crossing exactly at the end fix) closes here.
    if state != isInside {
      pending.append(
        PendingCrossing(time: path.time1, coordinate: path.point(at: 1), slot: slot, enter: isInside, passThrough: false))
      crossingsHere += 1
    }
    if crossingsHere >= 2 && wasInside == isInside {
      for i in firstPending..<pending.count { pending[i].passThrough = true }
    }
    return isInside
  }

  // MARK: - Cache maintenance

  /// Rebuilds the candidate cache for the cell of `fix`. With `evaluateStates` (first fix), the
  /// states of the candidates are set from the fix without reporting crossings.
  private mutating func rebuildCache(at fix: LocationFix, evaluateStates: Bool) {
    growState()
    let level = regions.occupiedLevels.first ?? 0
    let latitude = fix.coordinate.latitude
    let longitude = fix.coordinate.longitude
    let key = GridCell.key(latitude: latitude, longitude: longitude, level: level)
    let box = GridCell.box(key: key)
    cache.removeAll()
    cache.key = key
    cache.generation = regions.generation
    cache.box = box
    (cache.meridionalRadius, cache.parallelRadius) = PathSegment.radiusBounds(latitudeA: box.south, latitudeB: box.north)
    let p = cartesian(of: fix)
    var minimum = Double.infinity
    regions.forEachSlot(nearLatitude: latitude, longitude: longitude) { slot in
      guard regions.boxes[slot].intersects(box) else { return }
      if let circle = regions.circles[slot] {
        let d = chordDistance(p, circle)
        if evaluateStates { insideBySlot[slot] = circle.contains(fix.coordinate, cartesian: p) }
        let margin = circle.innerChord < d && d <= circle.outerChord ? 0 : circle.margin(chord: d)
        cache.append(slot: slot, circle: circle, inside: insideBySlot[slot], margin: margin)
        minimum = min(minimum, margin)
      } else if let polygon = regions.polygons[slot] {
        if evaluateStates { insideBySlot[slot] = polygon.contains(fix.coordinate) }
        let west = polygon.planar.x(longitude: box.west)
        if polygon.coverage(west: west, south: box.south, east: west + (box.east - box.west), north: box.north) == .boundary {
          cache.polygonSlots.append(Int32(slot))
          cache.polygonInside.append(insideBySlot[slot])
        }
      }
    }
    cache.minimumMargin = minimum
    cache.travelled = 0
  }

  /// Copies the cache's states back to the per-slot array and invalidates the cache.
  private mutating func writeBack() {
    guard cache.key != nil else { return }
    if cache.generation == regions.generation {
      for k in 0..<cache.slots.count { insideBySlot[Int(cache.slots[k])] = cache.inside[k] }
      for k in 0..<cache.polygonSlots.count { insideBySlot[Int(cache.polygonSlots[k])] = cache.polygonInside[k] }
    }
    cache.key = nil
  }

  private mutating func growState() {
    let capacity = regions.slotCapacity
    if insideBySlot.count < capacity {
      insideBySlot.append(contentsOf: repeatElement(false, count: capacity - insideBySlot.count))
      visited.append(contentsOf: repeatElement(0, count: capacity - visited.count))
    }
  }

  private mutating func cartesian(of fix: LocationFix) -> SIMD3<Double> {
    if let p = previousCartesian, let last = previous, last == fix { return p }
    return Ellipsoid.wgs84.cartesian(fix.coordinate)
  }

  /// Sorts this segment's crossings and appends them as ``RegionCrossing`` values.
  private mutating func flush(into crossings: inout [RegionCrossing], fromFix: Int) {
    guard !pending.isEmpty else { return }
    if pending.count > 1 {
      pending.sort { a, b in
        if a.time != b.time { return a.time < b.time }
        let ia = regions.regions[a.slot]?.identifier.rawValue ?? ""
        let ib = regions.regions[b.slot]?.identifier.rawValue ?? ""
        if ia != ib { return ia < ib }
        return a.enter && !b.enter
      }
    }
    for p in pending {
      guard let region = regions.regions[p.slot] else { continue }
      crossings.append(
        RegionCrossing(
          region: region.identifier, direction: p.enter ? .enter : .exit, time: p.time,
          coordinate: p.coordinate, fromFix: fromFix, toFix: fromFix + 1, isPassThrough: p.passThrough))
    }
    pending.removeAll(keepingCapacity: true)
  }
}
