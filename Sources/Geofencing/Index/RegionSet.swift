public import Geodesy
import SeededRandom

/// A set of regions with its spatial index, built once and shared by any number of detectors and
/// monitors, in any task.
///
/// ```swift
/// let fences = RegionSet(regions)            // the index is built here, once
/// var monitors = devices.map { _ in try! RegionMonitor(regions: fences, profile: .server) }
/// ```
///
/// A ``RegionMonitor`` or ``CrossingDetector`` made from a set keeps a reference to it, not a copy:
/// each device then costs its own state only — the regions near it and the few it is inside — not
/// the index. The cells of the grid that detectors enter are prepared once for all of them (a
/// cell's candidates depend on the set only) and kept with the set.
///
/// **Value semantics.** A set is a value: ``insert(_:)`` and ``remove(_:)`` change this copy only.
/// A copy shares the index until it is changed; the first change of a shared set copies the index
/// (about 180 bytes a circle), so a monitor whose regions are changed while running holds its own.
///
/// **Order.** ``regions`` lists the regions in slot order: the order they were given in, the last
/// definition of an identifier in the place of its first; a region inserted later takes the first
/// place a removal left, or goes last.
public struct RegionSet: Sendable {
  /// The index (its slots are the set's places).
  public private(set) var index: RegionIndex
  /// Cells prepared for detectors over this version of the set.
  private(set) var cells: CellCandidatesCache
  /// The fingerprint, once computed.
  private var fingerprintCache: FingerprintCache

  /// A fingerprint of the regions (identifiers and geometry), whatever their order: equal sets
  /// have equal fingerprints, and a snapshot taken over one set is restored only over an equal one.
  /// Computed the first time it is asked for (it hashes every region), then kept.
  public var fingerprint: UInt64 {
    fingerprintCache.value { [index] in
      var fingerprint: UInt64 = 0
      for slot in 0..<index.slotCapacity { fingerprint &+= index.stableHash(slot: slot) ?? 0 }
      return fingerprint
    }
  }

  /// A set of `regions`; the last definition of an identifier wins and keeps the place of the
  /// first.
  /// - Complexity: O(n) expected; 100,000 circles take about 40 ms.
  public init(_ regions: some Sequence<Region>, configuration: RegionIndex.Configuration = .init()) {
    let list = Array(regions)
    // Without repeated identifiers (the usual case) the index of the list is the set's; with
    // them, the index would give a repeated identifier a new place: built again from the regions
    // with each identifier's last definition in the place of its first.
    let direct = RegionIndex(list, configuration: configuration)
    guard direct.count != list.count else {
      self.init(direct)
      return
    }
    var position: [RegionIdentifier: Int] = [:]
    position.reserveCapacity(list.count)
    var unique: [Region] = []
    unique.reserveCapacity(list.count)
    for region in list {
      if let k = position.updateValue(unique.count, forKey: region.identifier) {
        position[region.identifier] = k
        unique[k] = region
      } else {
        unique.append(region)
      }
    }
    self.init(RegionIndex(unique, configuration: configuration))
  }

  /// A set over an index built already.
  public init(_ index: RegionIndex) {
    self.index = index
    cells = CellCandidatesCache()
    fingerprintCache = FingerprintCache()
  }

  /// The number of regions.
  public var count: Int { index.count }

  /// Whether the set holds no region.
  public var isEmpty: Bool { index.isEmpty }

  /// The region with this identifier, if any.
  public subscript(identifier: RegionIdentifier) -> Region? { index[identifier] }

  /// Whether the set holds a region with this identifier.
  public func contains(_ identifier: RegionIdentifier) -> Bool { index.slot(of: identifier) != nil }

  /// Every region, in slot order (see the type's discussion).
  public var regions: [Region] { index.slotRegions }

  /// ``regions``, each made only when it is reached: for a pass that may stop early, without
  /// making every region of a large set at once.
  public var lazyRegions: some Sequence<Region> { index.lazySlotRegions }

  /// The identifiers of every region containing `point` (boundary included), sorted.
  public func regions(containing point: Coordinate) -> [RegionIdentifier] { index.regions(containing: point) }

  /// Inserts a region, replacing any region with the same identifier (in its place).
  /// - Returns: The region replaced, if any.
  @discardableResult
  public mutating func insert(_ region: Region) -> Region? {
    // Removed first, the old definition frees its slot and the new one takes it (the index reuses
    // the slot freed last).
    let replaced = index.remove(region.identifier)
    index.insert(region)
    cells = CellCandidatesCache()
    fingerprintCache = FingerprintCache(fingerprintCache.known.map { $0 &- (replaced?.stableHash ?? 0) &+ region.stableHash })
    return replaced
  }

  /// Removes the region with this identifier.
  /// - Returns: The region removed, or `nil` if there was none.
  @discardableResult
  public mutating func remove(_ identifier: RegionIdentifier) -> Region? {
    guard let removed = index.remove(identifier) else { return nil }
    cells = CellCandidatesCache()
    fingerprintCache = FingerprintCache(fingerprintCache.known.map { $0 &- removed.stableHash })
    return removed
  }

  /// Approximate bytes the index holds (see ``RegionIndex/memoryFootprint``), not counting the
  /// cells prepared for detectors.
  public var memoryFootprint: Int { index.memoryFootprint }

  /// The slot of a region, if the set holds it.
  func slot(of identifier: RegionIdentifier) -> Int32? { index.slot(of: identifier) }

  /// The identifier of the region in `slot`, which must hold one.
  func identifier(slot: Int32) -> RegionIdentifier { index.identifier(slot: Int(slot)) }

  /// The circle in `slot`; nil for a polygon (its prepared geometry is `index.polygons[slot]`).
  func circularRegion(slot: Int32) -> CircularRegion? {
    index.circle(Int(slot)).map {
      CircularRegion(validIdentifier: index.identifier(slot: Int(slot)), center: $0.center, radius: $0.radius)
    }
  }
}

extension Region {
  /// A hash of the identifier and the geometry that is the same in every process (``StableHash``),
  /// unlike `hashValue`, which is seeded per process.
  var stableHash: UInt64 {
    var h = StableHash()
    h.combine(identifier.rawValue)
    switch self {
    case .circle(let c):
      return Self.circleStableHash(identifier: c.identifier, center: c.center, radius: c.radius)
    case .polygon(let p):
      h.combine(2 as UInt64)
      for polygon in p.polygons {
        for ring in [polygon.exterior] + polygon.holes {
          h.combine(UInt64(ring.count))
          for point in ring {
            h.combine(point.latitude.bitPattern)
            h.combine(point.longitude.bitPattern)
          }
        }
      }
    }
    return h.finalized
  }

  /// ``stableHash`` of a circle, from its parts.
  static func circleStableHash(identifier: RegionIdentifier, center: Coordinate, radius: Double) -> UInt64 {
    var h = StableHash()
    h.combine(identifier.rawValue)
    h.combine(1 as UInt64)
    h.combine(center.latitude.bitPattern)
    h.combine(center.longitude.bitPattern)
    h.combine(radius.bitPattern)
    return h.finalized
  }
}
