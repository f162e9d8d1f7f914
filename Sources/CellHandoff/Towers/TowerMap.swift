public import Geodesy
import SeededRandom
import RealModule

/// Why a ``TowerMap`` refused its towers.
public enum TowerMapError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Two towers with one identity (indices in the array given).
  case duplicate(CellIdentity, first: Int, second: Int)
  /// A range that is not a finite number of metres in 0 < range ≤ ``TowerMap/maximumRange``.
  case invalidRange(CellIdentity, Double)

  public var description: String {
    switch self {
    case .duplicate(let id, let first, let second):
      return "cell \(id) appears twice (towers \(first) and \(second)): expected each cell once"
    case .invalidRange(let id, let range):
      return "cell \(id) has range \(range) m: expected metres in 0 < range ≤ \(Int(TowerMap.maximumRange))"
    }
  }
}

/// The cells of a region and a spatial index answering "which cells can serve this point": those
/// whose ``CellTower/range`` reaches it.
///
/// **Index.** Towers are bucketed by their position on a hierarchy of latitude/longitude grids,
/// cell size 0.01° · 2^level: each tower on the finest level whose cell is at least its range
/// high (so a tower at level ℓ reaches at most one cell north or south of its own). A query looks
/// at the few cells of each non-empty level that a disc of that level's largest range around the
/// point can reach (more columns towards the poles, all of them within 0.1° of a pole), then
/// keeps the towers whose range covers the point.
///
/// **Distance** is the chord between the two points on the WGS84 ellipsoid (``ChordBound``): it
/// is never longer than the geodesic and shorter by at most κ²c³/24 — 1 mm at 10 km, 1 m at
/// 100 km — far below the uncertainty of any tower's position or range.
///
/// Memory: about 80 bytes per tower besides the ``CellTower`` values.
public struct TowerMap: Sendable {
  /// The largest range accepted: 100 km (a GSM cell reaches 35 km, extended cells 120 km are not
  /// modelled; OpenCellID ranges are estimates and reach tens of kilometres).
  public static let maximumRange = 100_000.0

  /// Every tower, in the order given; indices into it name towers.
  public let towers: [CellTower]
  private let positions: [SIMD3<Double>]
  /// Each tower's range, apart from the (large) ``CellTower`` values the queries would otherwise
  /// touch.
  private let ranges: [Double]
  private let levels: [Level]
  private let indexByIdentity: [CellIdentity: Int32]
  /// A hash of every tower's identity, position and range, the same in every process: a saved
  /// tracker is restored only over the map it was saved with.
  public let fingerprint: UInt64

  private struct Level: Sendable {
    /// Cell size in degrees.
    var size: Double
    /// Largest range of a tower on this level (metres).
    var reach: Double
    /// Tower indices grouped by grid cell, cells in key order (row, then column).
    var members: [Int32]
    /// The non-empty cells' keys, ascending, and where each one's members start in `members`
    /// (one more entry at the end): a row's cells are contiguous, found by one binary search.
    var keys: [Int64]
    var starts: [Int32]
  }

  private static let finestSize = 0.01
  private static let levelCount = 14
  /// Metres per degree of latitude at least (at the equator, on WGS84).
  private static let metresPerDegreeLatitude = 110_574.0
  /// Metres per degree of longitude at the equator (times cos φ elsewhere, at least).
  private static let metresPerDegreeLongitude = 111_319.0

  /// Indexes `towers`.
  /// - Throws: ``TowerMapError`` for a repeated identity or a range out of bounds.
  public init(_ towers: [CellTower]) throws(TowerMapError) {
    var indexByIdentity: [CellIdentity: Int32] = [:]
    indexByIdentity.reserveCapacity(towers.count)
    for (k, tower) in towers.enumerated() {
      guard tower.range.isFinite, tower.range > 0, tower.range <= Self.maximumRange else {
        throw .invalidRange(tower.identity, tower.range)
      }
      if let first = indexByIdentity.updateValue(Int32(k), forKey: tower.identity) {
        throw .duplicate(tower.identity, first: Int(first), second: k)
      }
    }
    self.towers = towers
    self.indexByIdentity = indexByIdentity
    var hash = StableHash()
    for tower in towers {
      hash.combine(tower.identity.description)
      hash.combine(tower.coordinate.latitude.bitPattern)
      hash.combine(tower.coordinate.longitude.bitPattern)
      hash.combine(tower.range.bitPattern)
    }
    fingerprint = hash.finalized
    positions = towers.map { Ellipsoid.wgs84.cartesian($0.coordinate) }
    ranges = towers.map(\.range)
    var byLevel = [[(key: Int64, tower: Int32)]](repeating: [], count: Self.levelCount)
    for (k, tower) in towers.enumerated() {
      let level = Self.level(forRange: tower.range)
      let size = Self.finestSize * Double(1 << level)
      byLevel[level].append((Self.key(row: Self.row(tower.coordinate.latitude, size), column: Self.column(tower.coordinate.longitude, size)), Int32(k)))
    }
    levels = byLevel.enumerated().compactMap { level, entries in
      guard !entries.isEmpty else { return nil }
      let sorted = entries.sorted { ($0.key, $0.tower) < ($1.key, $1.tower) }
      var keys: [Int64] = []
      var starts: [Int32] = []
      for k in sorted.indices where k == 0 || sorted[k].key != sorted[k - 1].key {
        keys.append(sorted[k].key)
        starts.append(Int32(k))
      }
      starts.append(Int32(sorted.count))
      let size = Self.finestSize * Double(1 << level)
      return Level(size: size, reach: size * Self.metresPerDegreeLatitude, members: sorted.map(\.tower), keys: keys, starts: starts)
    }
  }

  /// Towers in the map.
  public var count: Int { towers.count }

  /// The index of the tower with `identity`, if any.
  public func index(of identity: CellIdentity) -> Int? { indexByIdentity[identity].map(Int.init) }

  /// Appends to `candidates` the index of every tower whose range reaches `point` (in no
  /// particular order).
  public func towers(reaching point: Coordinate, into candidates: inout [Int32]) {
    towers(reaching: point, margin: 0, into: &candidates)
  }

  /// Appends the index of every tower whose range plus `margin` metres reaches `point` (by chord
  /// distance): a superset, valid for every point within `margin` of `point`, of the towers
  /// reaching it.
  public func towers(reaching point: Coordinate, margin: Double, into candidates: inout [Int32]) {
    let p = Ellipsoid.wgs84.cartesian(point)
    for level in levels {
      let reach = level.reach + margin
      let degreesLatitude = reach / Self.metresPerDegreeLatitude * 1.01
      let firstRow = Self.row(max(-90, point.latitude - degreesLatitude), level.size)
      let lastRow = Self.row(min(90, point.latitude + degreesLatitude), level.size)
      let poleward = min(90, abs(point.latitude) + degreesLatitude)
      let lastColumn = Self.column(179.999_999_999, level.size)
      // Longitude intervals to look at, split at the antimeridian (at most two).
      // (A fixed-size list: an array here would allocate on every query.)
      var spans = ColumnSpans((0, lastColumn))
      if poleward < 89.9 {
        let degreesLongitude = reach / (Self.metresPerDegreeLongitude * Double.cosDegrees(poleward)) * 1.01
        if degreesLongitude < 180 {
          let west = point.longitude - degreesLongitude
          let east = point.longitude + degreesLongitude
          spans = ColumnSpans((Self.column(max(-180, west), level.size), Self.column(min(179.999_999_999, east), level.size)))
          if west < -180 { spans.add((Self.column(west + 360, level.size), lastColumn)) }
          if east >= 180 { spans.add((0, Self.column(east - 360, level.size))) }
        }
      }
      for row in firstRow...lastRow {
        for span in 0..<spans.count {
          let (first, last) = spans[span]
          guard first <= last else { continue }
          let lastKey = Self.key(row: row, column: last)
          var cell = Self.lowerBound(level.keys, Self.key(row: row, column: first))
          while cell < level.keys.count && level.keys[cell] <= lastKey {
            for k in level.starts[cell]..<level.starts[cell + 1] {
              let tower = level.members[Int(k)]
              let d = p - positions[Int(tower)]
              let within = ranges[Int(tower)] + margin
              if (d * d).sum() <= within * within { candidates.append(tower) }
            }
            cell += 1
          }
        }
      }
    }
  }

  /// Tower `index`'s position in ``Ellipsoid/cartesian(_:)`` coordinates.
  public func cartesian(of index: Int) -> SIMD3<Double> { positions[index] }

  /// Metres from tower `index` to `point`: the chord (see the type's documentation).
  @inlinable
  public func distance(from index: Int, to point: Coordinate) -> Double {
    distance(from: index, toCartesian: Ellipsoid.wgs84.cartesian(point))
  }

  /// Metres from tower `index` to a point given in ``Ellipsoid/cartesian(_:)`` coordinates.
  public func distance(from index: Int, toCartesian p: SIMD3<Double>) -> Double {
    let d = p - positions[index]
    return (d * d).sum().squareRoot()
  }

  /// Approximate memory of the index, in bytes (not counting ``towers``).
  public var memoryFootprint: Int {
    positions.count * MemoryLayout<SIMD3<Double>>.stride
      + levels.reduce(0) { $0 + $1.members.count * 4 + $1.keys.count * 12 }
      + indexByIdentity.count * (MemoryLayout<CellIdentity>.stride + 4)
  }

  // MARK: - Grid

  private static func level(forRange range: Double) -> Int {
    var level = 0
    while level < levelCount - 1 && finestSize * Double(1 << level) * metresPerDegreeLatitude < range { level += 1 }
    return level
  }

  @inline(__always) private static func row(_ latitude: Double, _ size: Double) -> Int {
    Int(((latitude + 90) / size).rounded(.down))
  }

  @inline(__always) private static func column(_ longitude: Double, _ size: Double) -> Int {
    Int(((longitude + 180) / size).rounded(.down))
  }

  /// The first index of `keys` whose key is at least `key`.
  private static func lowerBound(_ keys: [Int64], _ key: Int64) -> Int {
    var low = 0
    var high = keys.count
    while low < high {
      let middle = (low + high) / 2
      if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low
  }

  @inline(__always) private static func key(row: Int, column: Int) -> Int64 {
    Int64(row) << 32 | Int64(UInt32(truncatingIfNeeded: column))
  }
}

extension Double {
  /// cos of an angle in degrees.
  fileprivate static func cosDegrees(_ degrees: Double) -> Double {
    Double.cos(degrees * .pi / 180)
  }
}

/// Up to three column intervals (the query's, and the parts wrapped across the antimeridian).
private struct ColumnSpans {
  private var spans: ((Int, Int), (Int, Int), (Int, Int)) = ((0, -1), (0, -1), (0, -1))
  private(set) var count = 0

  init(_ first: (Int, Int)) { add(first) }

  mutating func add(_ span: (Int, Int)) {
    switch count {
    case 0: spans.0 = span
    case 1: spans.1 = span
    default: spans.2 = span
    }
    count = min(count + 1, 3)
  }

  subscript(k: Int) -> (Int, Int) { k == 0 ? spans.0 : k == 1 ? spans.1 : spans.2 }
}
