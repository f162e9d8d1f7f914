public import Geodesy
import RealModule

/// A spatial index over circular and polygonal regions, from one to a million or more.
///
/// **Filter, then refine.** Each region is filed in at most four cells of a hierarchical
/// latitude/longitude grid (``GridCell``), at the finest level whose cells are at least as large
/// as its bounding box (capped at ``gridLevel``). A query visits one cell per
/// occupied level, keeps the regions whose bounding box touches the query, then decides each with
/// the chord test of ``ChordBound`` — exact geodesic only within micrometres of a circle's
/// boundary — or the polygon's own edge index (``PolygonRegion``'s even-odd rule, exact). ``CrossingDetector`` adds temporal coherence on top.
///
/// **Identity.** Identifiers are unique: inserting a region whose identifier is present replaces
/// the old one.
///
/// **Memory.** About 180 bytes per circular region including its identifier (measured by the
/// "RegionIndex memory per region" benchmark for 100,000 circles). A polygon holds its vertices
/// once and their band index: within 40 bytes a vertex plus 200 a region in every set measured
/// (`geowake-region-memory` in `Benchmarks/`, docs/benchmarks.md). ``memoryFootprint`` reports
/// the index's own share.
///
/// To share one index among many devices, wrap it in a ``RegionSet``.
public struct RegionIndex: Sendable {
  /// Tuning of the grid.
  public struct Configuration: Hashable, Sendable {
    /// The level of the grid cells a moving device is tracked in (see ``GridCell``), or `nil` to
    /// let the index choose: from the regions' density and size when it is built from a
    /// collection (so that a cell holds about 16 regions), level 16 (cells about 300 m high) when
    /// it is filled one region at a time. Regions smaller than a cell are filed at this level.
    public var gridLevel: Int?

    public init(gridLevel: Int? = nil) {
      self.gridLevel = gridLevel.map { min(max($0, 0), GridCell.maximumLevel) }
    }
  }

  /// The level chosen when an index is filled one region at a time.
  public static let defaultGridLevel = 16

  public let configuration: Configuration

  // Per-slot storage (struct of arrays). A slot is free when `identifiers[slot]` is nil; a
  // circle's slot holds its geometry in `circles` (the region is rebuilt from it), a polygon's
  // its prepared geometry in `polygons`, from whose rings its region is rebuilt too when they
  // are its positions (``PlanarPolygons/reproduces(_:)``: the usual GeoJSON polygon, with or
  // without holes); only a region whose rings are not is kept whole, in `polygonRegions`. Both
  // `circles` and `polygonRegions` reach only as far as the last slot that needs them (a
  // ``CircleGeometry/none`` or nil in the others): a set of polygons holds each vertex once and
  // no 64-byte circle record.
  var identifiers: [RegionIdentifier?] = []
  var circles: [CircleGeometry] = []
  var polygons: [PolygonGeometry?] = []
  var polygonRegions: [PolygonRegion?] = []
  var boxes: [GeoBox] = []
  var levels: [UInt8] = []
  var freeSlots: [Int32] = []
  /// Identifier → slot.
  var slotTable = IdentifierTable()

  /// The level of the cells a device is tracked in; no region is filed finer than this.
  public private(set) var gridLevel: Int

  // The grid: cell key → head of a linked list of postings (slot, next).
  var heads = CellTable()
  var postingSlot: [Int32] = []
  var postingNext: [Int32] = []
  var freePosting: Int32 = -1
  /// Number of regions filed at each level.
  var regionsPerLevel: [Int] = Array(repeating: 0, count: GridCell.maximumLevel + 1)
  /// Levels that hold at least one region, finest first.
  var occupiedLevels: [Int] = []
  /// Changes on every insert or remove, so that detectors can drop cached candidates.
  var generation = 0

  /// Creates an empty index.
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
    gridLevel = configuration.gridLevel ?? Self.defaultGridLevel
  }

  /// Creates an index holding `regions`; a later region replaces an earlier one with the same
  /// identifier.
  /// - Complexity: O(n) expected; 100,000 circles take about 40 ms (the `IndexBuild` benchmark).
  public init(_ regions: some Collection<Region>, configuration: Configuration = Configuration()) {
    self.init(configuration: configuration)
    // The boxes first, for the level choice; each circle's geometry is prepared as it is inserted
    // (held twice, 64 bytes a circle would be most of the peak).
    var boxes: [GeoBox] = []
    boxes.reserveCapacity(regions.count)
    // Each polygon's prepared geometry, made once (its box comes from it).
    var geometries: [PolygonGeometry?] = []
    geometries.reserveCapacity(regions.count)
    var polygons = 0
    // Slots up to the last circle's: `circles` is as long as that.
    var circleSlots = 0
    for region in regions {
      switch region {
      case .circle(let c):
        boxes.append(CircleGeometry.boundingBox(center: c.center, radius: c.radius))
        geometries.append(nil)
        circleSlots = boxes.count
      case .polygon(let p):
        let geometry = PolygonGeometry(p.planar)
        boxes.append(geometry.planar.box)
        geometries.append(geometry)
        polygons += 1
      }
    }
    if configuration.gridLevel == nil {
      gridLevel = Self.chooseGridLevel(boxes: boxes, target: Self.regionsPerCell(polygonFraction: boxes.isEmpty ? 0 : Double(polygons) / Double(boxes.count)))
    }
    regionsReserve(regions.count, circleSlots: circleSlots)
    // A plain count, not `zip`: its iterator was called unspecialized, 5,000 instructions a
    // region (callgrind).
    var k = 0
    for region in regions {
      switch region {
      case .circle(let c): _ = insert(region, circle: CircleGeometry(c), box: boxes[k])
      case .polygon: _ = insert(region, circle: .none, polygon: geometries[k], box: boxes[k])
      }
      k += 1
    }
    compactPostings()
  }

  /// Lays each cell's postings out one after another, in list order, so that walking a cell's
  /// list reads consecutive memory instead of chasing links across the whole arrays (a cell the
  /// detector enters was a chain of cache misses). Queries return the same slots in the same order.
  mutating func compactPostings() {
    let oldSlot = postingSlot
    let oldNext = postingNext
    var newSlot: [Int32] = []
    var newNext: [Int32] = []
    newSlot.reserveCapacity(oldSlot.count)
    newNext.reserveCapacity(oldSlot.count)
    heads.transformValues { head in
      let newHead = Int32(truncatingIfNeeded: newSlot.count)
      var posting = head
      while posting >= 0 {
        newSlot.append(oldSlot[Int(posting)])
        posting = oldNext[Int(posting)]
        newNext.append(posting >= 0 ? Int32(truncatingIfNeeded: newSlot.count) : -1)
      }
      return newHead
    }
    postingSlot = newSlot
    postingNext = newNext
    freePosting = -1
  }

  private mutating func regionsReserve(_ n: Int, circleSlots: Int) {
    identifiers.reserveCapacity(n)
    circles.reserveCapacity(circleSlots)
    polygons.reserveCapacity(n)
    boxes.reserveCapacity(n)
    levels.reserveCapacity(n)
    slotTable = IdentifierTable(minimumCapacity: n)
    postingSlot.reserveCapacity(n * 2)
    postingNext.reserveCapacity(n * 2)
    heads = CellTable(minimumCapacity: n)
  }

  /// How many regions a cell of the chosen level should hold: 16 for circles, four times that
  /// for polygons. A circle costs a look a few lanes of the cell's filter, so smaller cells mean
  /// fewer circles a look; a polygon's edges are filed in the cell's sub-cells, so a look costs
  /// the same in a larger cell, while every move to another cell settles each polygon whose
  /// boundary passes through either cell and builds cells not seen before (on the 1M-fix
  /// benchmark track with 100,000 polygons, one level coarser ran 13 % faster on two seeds).
  static func regionsPerCell(polygonFraction: Double) -> Double {
    16 * (1 + 3 * polygonFraction)
  }

  /// The grid level at which a cell holds about `target` regions: the regions' density is
  /// measured over the level-10 cells (about 20 km) holding their centres, their typical size from
  /// their bounding boxes. Level 16 at most; level 8 at least (cells of 0.7°, small enough for the
  /// detector's local trigonometry).
  static func chooseGridLevel(boxes: [GeoBox], target: Double = 16) -> Int {
    guard !boxes.isEmpty else { return defaultGridLevel }
    var occupied = CellTable(minimumCapacity: 64)
    var latitudeSum = 0.0
    for box in boxes {
      let latitude = (box.south + box.north) / 2
      let longitude = Coordinate.normalizedLongitude((box.west + box.east) / 2)
      occupied.set(0, for: GridCell.key(latitude: latitude, longitude: longitude, level: 10))
      latitudeSum += abs(latitude)
    }
    let n = boxes.count
    // One cosine, at the mean latitude: a density estimate, not a measurement.
    let cosine = max(0.01, Double.cos(latitudeSum / Double(n) * Double.pi / 180))
    var sideSum = 0.0
    for box in boxes {
      sideSum += ((box.north - box.south) * min(360, box.east - box.west) * cosine).squareRoot() * 111.32
    }
    let cellArea10 = GridCell.size(level: 10) * GridCell.size(level: 10) * cosine * 111.32 * 111.32
    let density = Double(n) / (Double(occupied.count) * cellArea10)
    let meanSide = sideSum / Double(n)
    for level in 8...defaultGridLevel {
      let side = GridCell.size(level: level) * cosine.squareRoot() * 111.32
      if density * (side + meanSide) * (side + meanSide) <= target { return level }
    }
    return defaultGridLevel
  }

  /// The number of regions.
  public var count: Int { slotTable.count }

  /// Whether the index is empty.
  public var isEmpty: Bool { slotTable.count == 0 }

  /// The slot of the region with this identifier, if any.
  func slot(of identifier: RegionIdentifier) -> Int32? {
    let identifiers = self.identifiers
    return slotTable.index(of: identifier) { identifiers[Int($0)]! }
  }

  /// The region with this identifier, if any.
  public subscript(identifier: RegionIdentifier) -> Region? {
    slot(of: identifier).flatMap { region(slot: Int($0)) }
  }

  /// The region in `slot`, or nil for a free slot.
  func region(slot: Int) -> Region? {
    guard let identifier = identifiers[slot] else { return nil }
    guard let circle = circle(slot) else { return polygonRegion(slot: slot).map(Region.polygon) }
    return .circle(CircularRegion(validIdentifier: identifier, center: circle.center, radius: circle.radius))
  }

  /// Every region, in slot order.
  var slotRegions: [Region] { identifiers.indices.compactMap { region(slot: $0) } }

  /// Every region, in slot order, each made when it is reached.
  var lazySlotRegions: some Sequence<Region> {
    let index = self
    return identifiers.indices.lazy.compactMap { index.region(slot: $0) }
  }

  /// ``Region/stableHash`` of the region in `slot`, computed from the slot's records.
  func stableHash(slot: Int) -> UInt64? {
    guard let identifier = identifiers[slot] else { return nil }
    guard let circle = circle(slot) else { return polygonRegion(slot: slot).map { Region.polygon($0).stableHash } }
    return Region.circleStableHash(identifier: identifier, center: circle.center, radius: circle.radius)
  }

  /// The prepared geometry of the circle in `slot`; nil for a polygon or a free slot.
  @inline(__always) func circle(_ slot: Int) -> CircleGeometry? {
    guard slot < circles.count else { return nil }
    let circle = circles[slot]
    return circle.isCircle ? circle : nil
  }

  /// Every region, in identifier order.
  public var allRegions: [Region] {
    slotRegions.sorted { $0.identifier < $1.identifier }
  }

  /// Inserts a region, replacing any region with the same identifier.
  /// - Returns: The region replaced, if any.
  /// - Complexity: O(1) expected for a circle; O(vertices) for a polygon.
  @discardableResult
  public mutating func insert(_ region: Region) -> Region? {
    switch region {
    case .circle(let c):
      let geometry = CircleGeometry(c)
      return insert(region, circle: geometry, box: geometry.boundingBox)
    case .polygon(let p):
      let geometry = PolygonGeometry(p.planar)
      return insert(region, circle: .none, polygon: geometry, box: geometry.planar.box)
    }
  }

  private mutating func insert(_ region: Region, circle: CircleGeometry, polygon: PolygonGeometry? = nil, box: GeoBox)
    -> Region?
  {
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = Int(free)
    } else {
      slot = identifiers.count
      identifiers.append(nil)
      polygons.append(nil)
      boxes.append(box)
      levels.append(0)
    }
    if circle.isCircle {
      if circles.count <= slot { circles.append(contentsOf: repeatElement(.none, count: slot + 1 - circles.count)) }
      circles[slot] = circle
    } else if slot < circles.count {
      circles[slot] = .none
    }
    if case .polygon(let p) = region {
      polygons[slot] = polygon
      if let polygon, polygon.planar.reproduces(p.polygons) {
        if slot < polygonRegions.count { polygonRegions[slot] = nil }
      } else {
        if polygonRegions.count <= slot {
          polygonRegions.append(contentsOf: repeatElement(nil, count: slot + 1 - polygonRegions.count))
        }
        polygonRegions[slot] = p
      }
    }
    identifiers[slot] = region.identifier
    boxes[slot] = box
    let level = min(GridCell.level(for: box), gridLevel)
    levels[slot] = UInt8(level)
    GridCell.forEachKey(in: box, level: level) { key in addPosting(slot: Int32(slot), key: key) }
    regionsPerLevel[level] += 1
    if regionsPerLevel[level] == 1 { updateOccupiedLevels() }
    generation &+= 1
    // One hash of the identifier: a region it already named is detached after the new one is in.
    guard let old = Self.file(Int32(slot), for: region.identifier, in: &slotTable, identifiers: identifiers) else { return nil }
    return detach(Int(old))
  }

  /// Removes the region with this identifier.
  /// - Returns: The region removed, or `nil` if there was none.
  @discardableResult
  public mutating func remove(_ identifier: RegionIdentifier) -> Region? {
    guard let slot = Self.unfile(identifier, in: &slotTable, identifiers: identifiers) else { return nil }
    return detach(Int(slot))
  }

  /// Files `slot` for `identifier` in `table`; returns the slot it replaces.
  private static func file(
    _ slot: Int32, for identifier: RegionIdentifier, in table: inout IdentifierTable, identifiers: [RegionIdentifier?]
  ) -> Int32? {
    table.updateValue(slot, for: identifier) { identifiers[Int($0)]! }
  }

  /// Takes `identifier` out of `table`; returns its slot.
  private static func unfile(_ identifier: RegionIdentifier, in table: inout IdentifierTable, identifiers: [RegionIdentifier?]) -> Int32? {
    table.removeValue(for: identifier) { identifiers[Int($0)]! }
  }

  /// Takes the region in `slot` out of the grid and frees the slot (the identifier map is the
  /// caller's business).
  private mutating func detach(_ slot: Int) -> Region? {
    let region = self.region(slot: slot)
    let level = Int(levels[slot])
    GridCell.forEachKey(in: boxes[slot], level: level) { key in removePosting(slot: Int32(slot), key: key) }
    regionsPerLevel[level] -= 1
    if regionsPerLevel[level] == 0 { updateOccupiedLevels() }
    identifiers[slot] = nil
    if slot < circles.count { circles[slot] = .none }
    polygons[slot] = nil
    if slot < polygonRegions.count { polygonRegions[slot] = nil }
    freeSlots.append(Int32(slot))
    generation &+= 1
    return region
  }

  /// Number of slots (live or free): the size of per-slot state arrays kept beside the index.
  var slotCapacity: Int { identifiers.count }

  private mutating func updateOccupiedLevels() {
    occupiedLevels = (0...GridCell.maximumLevel).reversed().filter { regionsPerLevel[$0] > 0 }
  }

  private mutating func addPosting(slot: Int32, key: UInt64) {
    let posting: Int32
    if freePosting >= 0 {
      posting = freePosting
      freePosting = postingNext[Int(posting)]
      postingSlot[Int(posting)] = slot
    } else {
      posting = Int32(postingSlot.count)
      postingSlot.append(slot)
      postingNext.append(-1)
    }
    postingNext[Int(posting)] = heads.value(for: key)
    heads.set(posting, for: key)
  }

  private mutating func removePosting(slot: Int32, key: UInt64) {
    var current = heads.value(for: key)
    guard current >= 0 else { return }
    var previous: Int32 = -1
    while current >= 0 {
      let next = postingNext[Int(current)]
      if postingSlot[Int(current)] == slot {
        if previous < 0 {
          if next < 0 { heads.remove(key) } else { heads.set(next, for: key) }
        } else {
          postingNext[Int(previous)] = next
        }
        postingNext[Int(current)] = freePosting
        freePosting = current
        return
      }
      previous = current
      current = next
    }
  }
}

// MARK: - Queries

extension RegionIndex {
  /// The identifier of the region in `slot`, which must hold one.
  @inline(__always)
  func identifier(slot: Int) -> RegionIdentifier {
    guard let identifier = identifiers[slot] else { preconditionFailure("slot \(slot) holds no region") }
    return identifier
  }

  /// Appends every slot filed in a cell containing the point, one per occupied level; each slot
  /// appears at most once (a region sits at one level, and the point is in one cell per level).
  /// Every region whose bounding box holds the point is among them.
  @inline(__always)
  func appendSlots(nearLatitude latitude: Double, longitude: Double, into out: inout [Int32]) {
    for level in occupiedLevels {
      var posting = heads.value(for: GridCell.key(latitude: latitude, longitude: longitude, level: level))
      while posting >= 0 {
        out.append(postingSlot[Int(posting)])
        posting = postingNext[Int(posting)]
      }
    }
  }

  /// Appends every slot whose region's bounding box touches `box`; a slot may appear more than
  /// once (callers deduplicate). Levels where the box covers more cells than the level holds
  /// regions are scanned region by region instead.
  func appendSlots(touching box: GeoBox, into out: inout [Int32]) {
    for level in occupiedLevels {
      if GridCell.cellCount(in: box, level: level) > max(64, regionsPerLevel[level]) {
        for slot in 0..<identifiers.count where identifiers[slot] != nil && Int(levels[slot]) == level && boxes[slot].intersects(box) {
          out.append(Int32(slot))
        }
        continue
      }
      GridCell.forEachKey(in: box, level: level) { key in
        var posting = heads.value(for: key)
        while posting >= 0 {
          let slot = postingSlot[Int(posting)]
          if boxes[Int(slot)].intersects(box) { out.append(slot) }
          posting = postingNext[Int(posting)]
        }
      }
    }
  }

  /// Whether the region in `slot` contains the point (exact).
  func slot(_ slot: Int, contains point: Coordinate, cartesian: SIMD3<Double>) -> Bool {
    if let circle = circle(slot) { return circle.contains(point, cartesian: cartesian) }
    if let polygon = polygons[slot] { return polygon.contains(point) }
    return false
  }

  /// The identifiers of every region containing `point` (boundary included), sorted.
  /// - Complexity: One hash lookup per occupied grid level, then one test per nearby region.
  public func regions(containing point: Coordinate) -> [RegionIdentifier] {
    var slots: [Int32] = []
    appendSlots(nearLatitude: point.latitude, longitude: point.longitude, into: &slots)
    let cartesian = Ellipsoid.wgs84.cartesian(point)
    var found: [RegionIdentifier] = []
    for slot in slots.map({ Int($0) }) {
      guard boxes[slot].contains(latitude: point.latitude, longitude: point.longitude),
        self.slot(slot, contains: point, cartesian: cartesian), let identifier = identifiers[slot]
      else { continue }
      found.append(identifier)
    }
    return found.sorted()
  }

  /// The polygon region in `slot`, if it holds one: kept whole, or rebuilt from its prepared
  /// rings.
  func polygonRegion(slot: Int) -> PolygonRegion? {
    if slot < polygonRegions.count, let kept = polygonRegions[slot] { return kept }
    guard let polygon = polygons[slot], let identifier = identifiers[slot] else { return nil }
    return PolygonRegion(validIdentifier: identifier, polygons: polygon.planar.regionPolygons)
  }

  /// Approximate bytes of memory the index holds, excluding identifiers' and polygons' own storage.
  public var memoryFootprint: Int {
    identifiers.capacity * MemoryLayout<RegionIdentifier?>.stride + circles.capacity * MemoryLayout<CircleGeometry>.stride
      + polygons.capacity * MemoryLayout<PolygonGeometry?>.stride + boxes.capacity * MemoryLayout<GeoBox>.stride
      + polygonRegions.capacity * MemoryLayout<PolygonRegion?>.stride
      + levels.capacity + freeSlots.capacity * 4 + postingSlot.capacity * 4 + postingNext.capacity * 4
      + heads.memoryFootprint + slotTable.memoryFootprint
  }
}
