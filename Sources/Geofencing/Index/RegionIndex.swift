public import Geodesy

/// A spatial index over circular and polygonal regions, from one to a million or more.
///
/// **Filter, then refine.** Each region is filed in at most four cells of a hierarchical
/// latitude/longitude grid (``GridCell``), at the finest level whose cells are at least as large
/// as its bounding box (capped at ``Configuration/finestLevel``). A query visits one cell per
/// occupied level, keeps the regions whose bounding box touches the query, then decides each with
/// the chord test of ``ChordBound`` — exact geodesic only within micrometres of a circle's
/// boundary — or GEOS for polygons. ``CrossingDetector`` adds temporal coherence on top.
///
/// **Identity.** Identifiers are unique: inserting a region whose identifier is present replaces
/// the old one.
///
/// **Memory.** About 200 bytes per circular region plus its identifier's storage (measured by
/// the `RegionIndexMemory` benchmark); a polygon adds its GEOS geometry.
///
/// - Important: Not `Sendable` once it holds polygons (GEOS prepared geometries are built lazily
///   and are not thread-safe); confine an index to one task.
public struct RegionIndex {
  /// Tuning of the grid.
  public struct Configuration: Hashable, Sendable {
    /// Regions smaller than a cell of this level are filed at this level. Level 16 cells are
    /// 0.0027° (about 300 m) high: fine enough that a query sees few regions, coarse enough that a
    /// moving device changes cell only every 10–300 fixes.
    public var finestLevel: Int

    public init(finestLevel: Int = 16) {
      self.finestLevel = min(max(finestLevel, 0), GridCell.maximumLevel)
    }
  }

  public let configuration: Configuration

  // Per-slot storage (struct of arrays). A slot is free when `regions[slot]` is nil.
  var regions: [Region?] = []
  var circles: [CircleGeometry?] = []
  var polygons: [PolygonGeometry?] = []
  var boxes: [GeoBox] = []
  var levels: [UInt8] = []
  var freeSlots: [Int32] = []
  var slotByIdentifier: [RegionIdentifier: Int32] = [:]

  // The grid: cell key → head of a linked list of postings (slot, next).
  var heads: [UInt64: Int32] = [:]
  var postingSlot: [Int32] = []
  var postingNext: [Int32] = []
  var freePosting: Int32 = -1
  /// Number of regions filed at each level.
  var regionsPerLevel: [Int] = Array(repeating: 0, count: GridCell.maximumLevel + 1)
  /// Levels that hold at least one region, finest first.
  var occupiedLevels: [Int] = []
  /// Changes on every insert or remove, so that detectors can drop cached candidates.
  var generation = 0

  /// One GEOS context shared by every polygon of this index.
  var geosContext: GEOSContext?

  /// Creates an empty index.
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  /// Creates an index holding `regions`; a later region replaces an earlier one with the same
  /// identifier.
  /// - Throws: ``RegionError`` if GEOS fails to prepare a polygon.
  public init(_ regions: some Sequence<Region>, configuration: Configuration = Configuration()) throws(RegionError) {
    self.init(configuration: configuration)
    for region in regions { try insert(region) }
  }

  /// The number of regions.
  public var count: Int { slotByIdentifier.count }

  /// Whether the index is empty.
  public var isEmpty: Bool { slotByIdentifier.isEmpty }

  /// The region with this identifier, if any.
  public subscript(identifier: RegionIdentifier) -> Region? {
    slotByIdentifier[identifier].flatMap { regions[Int($0)] }
  }

  /// Every region, in identifier order.
  public var allRegions: [Region] {
    slotByIdentifier.keys.sorted().compactMap { self[$0] }
  }

  /// Inserts a region, replacing any region with the same identifier.
  /// - Returns: The region replaced, if any.
  /// - Throws: ``RegionError`` if GEOS fails to prepare a polygon (the index is unchanged).
  /// - Complexity: O(1) expected for a circle; O(vertices) for a polygon.
  @discardableResult
  public mutating func insert(_ region: Region) throws(RegionError) -> Region? {
    var polygon: PolygonGeometry? = nil
    if case .polygon(let p) = region {
      do throws(GEOSError) {
        let context = if let existing = geosContext { existing } else { try GEOSContext() }
        geosContext = context
        polygon = try PolygonGeometry(p.planar, context: context)
      } catch {
        throw RegionError(identifier: p.identifier.rawValue, reason: .geometryEngine(error.description))
      }
    }
    let replaced = remove(region.identifier)
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = Int(free)
    } else {
      slot = regions.count
      regions.append(nil)
      circles.append(nil)
      polygons.append(nil)
      boxes.append(GeoBox(south: 0, north: 0, west: 0, east: 0))
      levels.append(0)
    }
    let box: GeoBox
    switch region {
    case .circle(let c):
      let geometry = CircleGeometry(c)
      circles[slot] = geometry
      box = geometry.boundingBox
    case .polygon(let p):
      polygons[slot] = polygon
      box = p.planar.box
    }
    regions[slot] = region
    boxes[slot] = box
    let level = min(GridCell.level(for: box), configuration.finestLevel)
    levels[slot] = UInt8(level)
    slotByIdentifier[region.identifier] = Int32(slot)
    GridCell.forEachKey(in: box, level: level) { key in addPosting(slot: Int32(slot), key: key) }
    regionsPerLevel[level] += 1
    if regionsPerLevel[level] == 1 { updateOccupiedLevels() }
    generation &+= 1
    return replaced
  }

  /// Removes the region with this identifier.
  /// - Returns: The region removed, or `nil` if there was none.
  @discardableResult
  public mutating func remove(_ identifier: RegionIdentifier) -> Region? {
    guard let slot32 = slotByIdentifier.removeValue(forKey: identifier) else { return nil }
    let slot = Int(slot32)
    let region = regions[slot]
    let level = Int(levels[slot])
    GridCell.forEachKey(in: boxes[slot], level: level) { key in removePosting(slot: slot32, key: key) }
    regionsPerLevel[level] -= 1
    if regionsPerLevel[level] == 0 { updateOccupiedLevels() }
    regions[slot] = nil
    circles[slot] = nil
    polygons[slot] = nil
    freeSlots.append(slot32)
    generation &+= 1
    return region
  }

  /// Number of slots (live or free): the size of per-slot state arrays kept beside the index.
  var slotCapacity: Int { regions.count }

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
    postingNext[Int(posting)] = heads[key] ?? -1
    heads[key] = posting
  }

  private mutating func removePosting(slot: Int32, key: UInt64) {
    guard var current = heads[key] else { return }
    var previous: Int32 = -1
    while current >= 0 {
      let next = postingNext[Int(current)]
      if postingSlot[Int(current)] == slot {
        if previous < 0 {
          if next < 0 { heads[key] = nil } else { heads[key] = next }
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
  /// Calls `body` with every slot filed in a cell that contains the point, at every occupied
  /// level. Each slot is reported at most once (a region sits at one level, and the point is in
  /// one cell per level).
  @inline(__always)
  func forEachSlot(nearLatitude latitude: Double, longitude: Double, _ body: (Int) -> Void) {
    for level in occupiedLevels {
      guard var posting = heads[GridCell.key(latitude: latitude, longitude: longitude, level: level)] else { continue }
      while posting >= 0 {
        body(Int(postingSlot[Int(posting)]))
        posting = postingNext[Int(posting)]
      }
    }
  }

  /// Calls `body` with every slot whose region's bounding box touches `box`; a slot may be
  /// reported more than once (callers deduplicate). Levels where the box covers more cells than
  /// the level holds regions are scanned region by region instead.
  func forEachSlot(touching box: GeoBox, _ body: (Int) -> Void) {
    for level in occupiedLevels {
      if GridCell.cellCount(in: box, level: level) > max(64, regionsPerLevel[level]) {
        for slot in 0..<regions.count where regions[slot] != nil && Int(levels[slot]) == level && boxes[slot].intersects(box) {
          body(slot)
        }
        continue
      }
      GridCell.forEachKey(in: box, level: level) { key in
        guard var posting = heads[key] else { return }
        while posting >= 0 {
          let slot = Int(postingSlot[Int(posting)])
          if boxes[slot].intersects(box) { body(slot) }
          posting = postingNext[Int(posting)]
        }
      }
    }
  }

  /// Whether the region in `slot` contains the point (exact).
  func slot(_ slot: Int, contains point: Coordinate, cartesian: SIMD3<Double>) -> Bool {
    if let circle = circles[slot] { return circle.contains(point, cartesian: cartesian) }
    if let polygon = polygons[slot] { return polygon.contains(point) }
    return false
  }

  /// The identifiers of every region containing `point` (boundary included), sorted.
  /// - Complexity: One hash lookup per occupied grid level, then one test per nearby region.
  public func regions(containing point: Coordinate) -> [RegionIdentifier] {
    var found: [RegionIdentifier] = []
    let cartesian = Ellipsoid.wgs84.cartesian(point)
    forEachSlot(nearLatitude: point.latitude, longitude: point.longitude) { slot in
      guard boxes[slot].contains(latitude: point.latitude, longitude: point.longitude),
        self.slot(slot, contains: point, cartesian: cartesian), let region = regions[slot]
      else { return }
      found.append(region.identifier)
    }
    return found.sorted()
  }
}
