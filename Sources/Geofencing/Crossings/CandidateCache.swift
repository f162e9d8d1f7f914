import CDetectorKernels
import Geodesy
import RealModule

/// The regions that can matter anywhere in one grid cell, in struct-of-arrays form, with the
/// cell's geometry: everything about a cell that does not depend on where the device is.
///
/// Built once per cell and remembered (``RegionSet`` keeps the cells detectors have entered, for
/// all of them; each ``CrossingDetector`` keeps its last few), so that a device moving back and
/// forth between cells, or into a cell another device has seen, does not query the index again.
/// A class so that the per-fix path holds it by one reference; immutable, so shared across tasks.
final class CellCandidates: Sendable {
  let key: UInt64
  let box: GeoBox
  /// M_max and p_max over the cell's latitudes (metres), for step bounds.
  let meridionalRadius: Double
  let parallelRadius: Double
  /// The same bounds in metres per degree: M_max·π/180 and p_max·π/180.
  let metresPerDegreeLatitude: Double
  let metresPerDegreeLongitude: Double
  let frame: CartesianFrame

  /// One circle of the cell: centre and chord thresholds together, for one memory access.
  struct Circle {
    var center: SIMD3<Double>
    var inner: Double
    var outer: Double

    init(_ circle: CircleGeometry) {
      center = circle.centerCartesian
      inner = circle.innerChord
      outer = circle.outerChord
    }

    /// Containment (nil inside the micrometre band) and the margin to the band, from the chord
    /// to a point with Earth-centred coordinates `p`.
    @inline(__always)
    func classify(_ p: SIMD3<Double>) -> (inside: Bool?, margin: Double) {
      classify(chord: chord(to: p))
    }

    /// The chord from the centre to a point with Earth-centred coordinates `p`.
    @inline(__always)
    func chord(to p: SIMD3<Double>) -> Double {
      let v = p - center
      return (v * v).sum().squareRoot()
    }

    /// ``classify(_:)`` for a point at chord `d` from the centre.
    @inline(__always)
    func classify(chord d: Double) -> (inside: Bool?, margin: Double) {
      if d <= inner { return (true, inner - d) }
      if d > outer { return (false, d - outer) }
      return (nil, 0)
    }
  }

  /// A circle as its region gives it, for the exact tests and the crossing solver.
  struct Disc {
    var center: Coordinate
    var radius: Double
  }

  // Circles whose bounding box touches the cell, by ascending slot.
  let slots: [Int32]
  let circles: [Circle]
  /// The same circles' centres and radii: with ``circles`` they make the index's geometry, read
  /// here instead of from the index (a cache miss away) for each crossing.
  let discs: [Disc]
  /// The same circles' identifiers, for the crossings found in the cell.
  let identifiers: [RegionIdentifier]
  /// Earth-centred coordinates of the cell's centre, the origin of ``filter``'s coordinates.
  let origin: SIMD3<Double>
  /// The circles in single precision, eight to a block (see ``FilterBlock``).
  let filter: [FilterBlock]
  /// The Taylor map at the cell's centre (the origin of ``filter``'s coordinates).
  let map: LocalTaylorMap
  /// Whether the filter's points are taken through ``map`` (its second-order error fits in the
  /// filter's slack: small cells) or through ``frame``.
  let filterUsesMap: Bool
  /// Whether ``cartesian(latitude:longitude:)`` takes the cell's points through ``map`` at third
  /// order (its error is within ``preciseMapTolerance``: cells of level 14 and finer).
  let cartesianUsesMap: Bool
  /// The largest error of ``LocalTaylorMap/preciseOffset(latitude:longitude:)`` in the cell for
  /// the map to stand in for the exact coordinates: a tenth of the 1e-8 m that
  /// ``CircleGeometry/slack`` allows for rounding.
  static let preciseMapTolerance = 1e-9
  /// Polygons whose boundary passes through the cell, ascending; the others have one state in the
  /// cell.
  let polygonSlots: [Int32]
  /// The edges of ``polygonSlots`` that meet the cell.
  let polygonEdges: CellPolygonEdges
  /// The polygons whose bounding box touches the cell but whose boundary does not pass through
  /// it, with their one state all over it (inside: the polygon covers the cell).
  let coveringPolygons: [CoveringPolygon]

  /// A polygon of ``coveringPolygons``.
  struct CoveringPolygon: Sendable {
    var slot: Int32
    var inside: Bool
  }

  /// Builds the cell `key` from the regions whose bounding box touches it.
  init(key: UInt64, regions: borrowing RegionIndex, scratch: inout [Int32]) {
    self.key = key
    let box = GridCell.box(key: key)
    self.box = box
    (meridionalRadius, parallelRadius) = PathSegment.radiusBounds(latitudeA: box.south, latitudeB: box.north)
    metresPerDegreeLatitude = meridionalRadius * (Double.pi / 180)
    metresPerDegreeLongitude = parallelRadius * (Double.pi / 180)
    // One quadratic map at the centre: the frame keeps its second partials, the filter may use it.
    let map = LocalTaylorMap(latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2)
    self.map = map
    let halfSize = max(box.north - box.south, box.east - box.west) / 2
    cartesianUsesMap = LocalTaylorMap.preciseErrorBound(reach: halfSize) <= Self.preciseMapTolerance
    frame = CartesianFrame(
      latitude: map.latitude, longitude: map.longitude, halfSize: (box.north - box.south) / 2, map: map)
    scratch.removeAll(keepingCapacity: true)
    regions.appendSlots(nearLatitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2, into: &scratch)
    Self.prefetchRecords(of: scratch, in: regions)
    let near = Self.sortOut(scratch, box: box, in: regions)
    var slots = near.circles
    var circles: [Circle] = []
    polygonEdges = CellPolygonEdges(
      near.boundaryPolygons, box: box, metresPerDegreeLatitude: metresPerDegreeLatitude,
      metresPerDegreeLongitude: metresPerDegreeLongitude)
    // Ascending slots: two cells' lists merge in one pass (``CrossingDetector`` does so when the
    // device moves to a neighbouring cell); the circle records follow their slots.
    slots.sort()
    circles.reserveCapacity(slots.count)
    var discs: [Disc] = []
    discs.reserveCapacity(slots.count)
    var identifiers: [RegionIdentifier] = []
    identifiers.reserveCapacity(slots.count)
    for slot in slots {
      if let circle = regions.circle(Int(slot)) {
        circles.append(Circle(circle))
        discs.append(Disc(center: circle.center, radius: circle.radius))
        identifiers.append(regions.identifier(slot: Int(slot)))
      }
    }
    self.discs = discs
    self.identifiers = identifiers
    self.slots = slots
    self.circles = circles
    let centre = Ellipsoid.wgs84.cartesianFast(latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2)
    origin = centre
    // A fix the filter sees is in this cell or a neighbour: within three half-cells of the centre
    // in latitude and in longitude, a degree of either being at most 112 km, so its offset from
    // the centre is under twice that.
    let reachDegrees = 3 * (box.north - box.south) / 2
    let reachMetres = reachDegrees * 112_000 * 2
    var epsilon = CircleFilter.slack(extent: CircleFilter.extent(circles, origin: centre, reach: reachMetres))
    // The quadratic map's error adds to the slack; it is used only where that at most doubles it.
    let mapError = LocalTaylorMap.errorBound(reach: reachDegrees)
    filterUsesMap = mapError <= epsilon / 2
    if filterUsesMap { epsilon += 2 * mapError }
    filter = CircleFilter.blocks(circles, origin: centre, epsilon: epsilon)
    polygonSlots = near.boundary
    coveringPolygons = near.covering
  }

  /// Asks for the index's records of `slots` (boxes, circles, identifiers), which are scattered
  /// over its arrays, all at once: their cache misses overlap instead of following one another.
  private static func prefetchRecords(of slots: [Int32], in regions: borrowing RegionIndex) {
    regions.boxes.withUnsafeBufferPointer { boxes in
      regions.circles.withUnsafeBufferPointer { circles in
        regions.identifiers.withUnsafeBufferPointer { records in
          for slot32 in slots {
            let slot = Int(slot32)
            geowake_prefetch(boxes.baseAddress.map { UnsafeRawPointer($0 + slot) })
            // `circles` ends at the last circle's slot.
            let circle = slot < circles.count ? circles.baseAddress.map { UnsafeRawPointer($0 + slot) } : nil
            geowake_prefetch(circle)
            geowake_prefetch(circle.map { $0 + MemoryLayout<CircleGeometry>.stride - 1 })
            geowake_prefetch(records.baseAddress.map { UnsafeRawPointer($0 + slot) })
          }
        }
      }
    }
  }

  /// The regions of `near` whose bounding box touches the cell `box`, sorted out: the circles'
  /// slots (in the order given), the polygons whose boundary passes through the cell (ascending,
  /// each with the cell's west edge in its projected coordinates), and the polygons with one state
  /// all over it.
  private static func sortOut(_ near: [Int32], box: GeoBox, in regions: borrowing RegionIndex) -> (
    circles: [Int32], boundary: [Int32], boundaryPolygons: [(geometry: PolygonGeometry, west: Double)],
    covering: [CoveringPolygon]
  ) {
    var slots: [Int32] = []
    slots.reserveCapacity(near.count)
    var polygonSlots: [Int32] = []
    var boundaryPolygons: [(geometry: PolygonGeometry, west: Double)] = []
    var coveringPolygons: [CoveringPolygon] = []
    for slot32 in near {
      let slot = Int(slot32)
      guard regions.boxes[slot].intersects(box) else { continue }
      if regions.circle(slot) != nil {
        slots.append(slot32)
      } else if let polygon = regions.polygons[slot] {
        let west = polygon.planar.x(longitude: box.west)
        let east = west + (box.east - box.west)
        let coverage = polygon.coverage(west: west, south: box.south, east: east, north: box.north)
        if coverage == .boundary {
          polygonSlots.append(slot32)
          boundaryPolygons.append((polygon, west))
        } else {
          coveringPolygons.append(CoveringPolygon(slot: slot32, inside: coverage == .inside))
        }
      }
    }
    let order = polygonSlots.indices.sorted { polygonSlots[$0] < polygonSlots[$1] }
    return (slots, order.map { polygonSlots[$0] }, order.map { boundaryPolygons[$0] }, coveringPolygons)
  }

  /// The index's geometry of circle `k`, rebuilt from the cell's own arrays.
  @inline(__always)
  func geometry(_ k: Int) -> CircleGeometry {
    let record = circles[k]
    let disc = discs[k]
    return CircleGeometry(
      center: disc.center, radius: disc.radius, centerCartesian: record.center, innerChord: record.inner,
      outerChord: record.outer)
  }

  /// Earth-centred coordinates of a point, through the cell's map at third order when it is
  /// precise enough and the point is in the cell, else through ``frame``: within a nanometre of
  /// each other, both far inside the slack of the exact tests.
  @inline(__always)
  func cartesian(latitude: Double, longitude: Double) -> SIMD3<Double> {
    if cartesianUsesMap && contains(latitude: latitude, longitude: longitude) {
      return origin + map.preciseOffset(latitude: latitude, longitude: longitude)
    }
    return frameCartesian(latitude: latitude, longitude: longitude)
  }

  /// ``frame``'s coordinates, out of line: inlined, the optimiser hoisted its sines and cosines
  /// (libm `sincos`, which it may speculate) above the test that rules them out, and every look
  /// paid four calls.
  @inline(never)
  func frameCartesian(latitude: Double, longitude: Double) -> SIMD3<Double> {
    frame.cartesian(latitude: latitude, longitude: longitude)
  }

  @inline(__always)
  func cartesian(_ point: Coordinate) -> SIMD3<Double> {
    cartesian(latitude: point.latitude, longitude: point.longitude)
  }

  /// Whether a point is in the cell (half-open, like the grid's own cells).
  @inline(__always)
  func contains(latitude: Double, longitude: Double) -> Bool {
    latitude >= box.south && latitude < box.north && longitude >= box.west && longitude < box.east
  }

  /// Whether `other` shares an edge with this cell (same level).
  func sharesEdge(with other: UInt64) -> Bool {
    guard key >> 56 == other >> 56 else { return false }
    let level = Int(key >> 56)
    let columns = 1 << (level + 1)
    let rowA = Int((key >> 28) & 0xFFF_FFFF)
    let rowB = Int((other >> 28) & 0xFFF_FFFF)
    let columnA = Int(key & 0xFFF_FFFF)
    let columnB = Int(other & 0xFFF_FFFF)
    let columnStep = min((columnA - columnB + columns) % columns, (columnB - columnA + columns) % columns)
    return (rowA == rowB && columnStep == 1) || (columnA == columnB && abs(rowA - rowB) == 1)
  }

  /// Upper bound (metres) on the path length between two points of the cell: the bound of
  /// ``PathSegment/lengthBound(from:to:)`` with M and p maximised over the cell's latitudes.
  @inline(__always)
  func stepBound(deltaLatitude: Double, deltaLongitude: Double) -> Double {
    let dPhi = meridionalRadius * deltaLatitude * (Double.pi / 180)
    let dLambda = parallelRadius * deltaLongitude * (Double.pi / 180)
    return (dPhi * dPhi + dLambda * dLambda).squareRoot() * (1 + 1e-12) + 1e-9
  }

  /// ``stepBound(deltaLatitude:deltaLongitude:)`` between two points, the longitude difference
  /// taken the short way round.
  @inline(__always)
  func stepBound(from a: Coordinate, to b: Coordinate) -> Double {
    var dLon = b.longitude - a.longitude
    if dLon >= 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
    return stepBound(deltaLatitude: b.latitude - a.latitude, deltaLongitude: dLon)
  }
}

/// The cell the device is in: its ``CellCandidates`` plus each circle's containment state, and
/// the *quiet ellipse* within which the circles need no look.
///
/// **Temporal coherence.** A circle's state can change only once the device has moved as far as
/// its *margin*, the distance of its chord to the uncertainty band: the chord to a centre changes
/// by at most the straight-line distance moved. A look at the cell's circles (``CircleFilter``,
/// all of them at once) at a fix L gives the least margin m. The cache then keeps L and the set of
/// points P of the cell whose step bound from L (``CellCandidates/stepBound(deltaLatitude:deltaLongitude:)``,
/// a bound of the chord |P − L|) is below m: an ellipse in latitude and longitude, tested without a
/// square root (``isQuiet(_:latitude:longitude:)``). The path between two fixes is straight in
/// latitude and longitude and the ellipse is convex, so while the fixes stay in it so does every
/// point of the path between them: no boundary can have been crossed, not even between fixes, and
/// a fix costs a few multiplications, with no chain from one fix to the next. The first fix
/// outside it is due for a look, which also settles the segment that left the ellipse.
///
/// The distance from L bounds the path no worse than the path's length (the step bound is a norm
/// in latitude and longitude, so it obeys the triangle inequality): a look is never due earlier
/// than by the sum of the step bounds since L, and much later when the device dithers in place.
struct CandidateCache {
  /// The cell; `nil` when the cache is invalid.
  var cell: CellCandidates? {
    didSet { cellReference = cell.map { Unmanaged.passUnretained($0) } }
  }
  /// ``cell`` without a reference of its own, for the one-fix path: a fix that stays in the cell
  /// (the cell is not replaced meanwhile) uses it without a retain and a release.
  private(set) var cellReference: Unmanaged<CellCandidates>?
  /// The index generation the cache was built from.
  var generation = -1

  /// The state of each of the cell's circles.
  var inside: [Bool] = []
  /// The same states as masks, eight circles to a block like the cell's ``CellCandidates/filter``.
  var insideMasks: [SIMDMask<SIMD8<Int32>>] = []
  /// A spare array the next cell's states are built in while the current cell's are still read
  /// (then swapped), so that a move allocates nothing.
  var spareInside: [Bool] = []
  /// The state of each polygon whose boundary passes through the cell
  /// (``CellCandidates/polygonSlots``), in its first entries; the array is never shortened, so
  /// that entering a cell writes the states in place (``setPolygonStates(_:from:)``).
  var polygonInside: [Bool] = []

  /// The fix of the last look (degrees) and the squared semi-axis, in metres², of the quiet
  /// ellipse around it; −1 when the next fix is due.
  var lookLatitude = 0.0
  var lookLongitude = 0.0
  var quietSquared = -1.0

  /// Whether a fix of the cell at (`latitude`, `longitude`) is still in the quiet ellipse, so that
  /// no circle can have changed state on the path since the last look.
  @inline(__always)
  func isQuiet(_ cell: CellCandidates, latitude: Double, longitude: Double) -> Bool {
    // Both points are in the cell, whose longitudes do not wrap.
    let north = cell.metresPerDegreeLatitude * (latitude - lookLatitude)
    let east = cell.metresPerDegreeLongitude * (longitude - lookLongitude)
    return north * north + east * east < quietSquared
  }

  /// Records a look at (`latitude`, `longitude`) whose least margin was `margin` metres: the quiet
  /// ellipse holds the points whose step bound from there is below it. The step bound's own
  /// factor 1 + 1e-12 and 1e-9 m are taken off, with room to spare for the rounding of the sum
  /// of squares (a few units in the last place): a product by 1 − 3e-12 < (1 − 2e-12) / (1 + 1e-12),
  /// not a division.
  @inline(__always)
  mutating func looked(latitude: Double, longitude: Double, margin: Double) {
    lookLatitude = latitude
    lookLongitude = longitude
    let r = (margin - 1e-9) * (1 - 3e-12)
    quietSquared = r > 0 ? r * r : -1
  }

  /// Starts a visit to `cell` with states from `insideBySlot`; its circles are looked at at the
  /// next fix.
  mutating func enter(_ cell: CellCandidates, generation: Int, insideBySlot: SlotSet) {
    self.cell = cell
    self.generation = generation
    quietSquared = -1
    inside.removeAll(keepingCapacity: true)
    for slot in cell.slots { inside.append(insideBySlot[slot]) }
    setPolygonStates(cell, from: insideBySlot)
    rebuildMasks()
  }

  /// Sets the states of `cell`'s boundary polygons (``CellCandidates/polygonSlots``) in
  /// ``polygonInside`` from `insideBySlot`.
  ///
  /// The set holds only the regions the device is inside, a few, while a cell has hundreds of
  /// polygons: when the set's buckets are fewer than the cell's polygons, every state is set to
  /// outside and each slot of the set is looked up in the cell's slots (ascending) instead.
  mutating func setPolygonStates(_ cell: CellCandidates, from insideBySlot: SlotSet) {
    let slots = cell.polygonSlots
    while polygonInside.count < slots.count { polygonInside.append(false) }
    slots.withUnsafeBufferPointer { slots in
      polygonInside.withUnsafeMutableBufferPointer { states in
        if insideBySlot.bucketCount <= slots.count {
          for k in slots.indices { states[k] = false }
          insideBySlot.forEach { slot in
            if let k = Self.position(of: slot, in: slots) { states[k] = true }
          }
        } else {
          for k in slots.indices { states[k] = insideBySlot.contains(slots[k]) }
        }
      }
    }
  }

  /// Writes the states of `cell`'s boundary polygons (``polygonInside``, the cell being this
  /// cache's) into `insideBySlot`. As in ``setPolygonStates(_:from:)``, when the set's buckets
  /// are fewer than the cell's polygons its slots are looked up in the cell's: those now outside
  /// are removed (gathered in `scratch` first), then those inside are inserted.
  func writePolygonStates(_ cell: CellCandidates, into insideBySlot: inout SlotSet, scratch: inout [Int32]) {
    let slots = cell.polygonSlots
    guard insideBySlot.bucketCount <= slots.count else {
      for k in 0..<slots.count { insideBySlot[slots[k]] = polygonInside[k] }
      return
    }
    scratch.removeAll(keepingCapacity: true)
    slots.withUnsafeBufferPointer { slots in
      insideBySlot.forEach { slot in
        if let k = Self.position(of: slot, in: slots), !polygonInside[k] { scratch.append(slot) }
      }
    }
    for slot in scratch { insideBySlot.remove(slot) }
    for k in 0..<slots.count where polygonInside[k] { insideBySlot.insert(slots[k]) }
  }

  /// The position of `slot` in `slots` (ascending, each once), if it is there.
  @inline(__always)
  static func position(of slot: Int32, in slots: UnsafeBufferPointer<Int32>) -> Int? {
    var low = 0
    var high = slots.count
    while low < high {
      let middle = (low &+ high) &>> 1
      if slots[middle] < slot { low = middle &+ 1 } else { high = middle }
    }
    return low < slots.count && slots[low] == slot ? low : nil
  }

  /// Starts a visit to `cell` with the states built in ``spareInside`` (in the cell's order; it
  /// becomes ``inside``) and no polygon state: the caller sets the polygons' states
  /// (``setPolygonStates(_:from:)``). Its circles are looked at at the next fix.
  mutating func begin(_ cell: CellCandidates, generation: Int) {
    self.cell = cell
    self.generation = generation
    quietSquared = -1
    swap(&inside, &spareInside)
    rebuildMasks()
  }

  /// Sets circle `k`'s state in both forms.
  @inline(__always)
  mutating func setInside(_ k: Int, _ state: Bool) {
    inside[k] = state
    insideMasks.withUnsafeMutableBufferPointer { masks in
      Self.lanes(of: masks)[k] = state ? -1 : 0
    }
  }

  mutating func rebuildMasks() {
    insideMasks.reset(to: SIMDMask(repeating: false), count: (inside.count + 7) / 8)
    guard !inside.isEmpty else { return }
    inside.withUnsafeBufferPointer { inside in
      insideMasks.withUnsafeMutableBufferPointer { masks in
        let lanes = Self.lanes(of: masks)
        for k in inside.indices { lanes[k] = inside[k] ? -1 : 0 }
      }
    }
  }

  /// The masks' lanes as 32-bit integers, circle k at k (a lane written through `SIMDMask`'s
  /// subscript goes through memory: about 25 instructions).
  @inline(__always)
  static func lanes(of masks: UnsafeMutableBufferPointer<SIMDMask<SIMD8<Int32>>>) -> UnsafeMutablePointer<Int32> {
    UnsafeMutableRawPointer(masks.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Int32.self)
  }
}
