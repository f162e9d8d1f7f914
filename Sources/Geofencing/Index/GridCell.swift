/// Cells of GeoWake's hierarchical latitude/longitude grid.
///
/// Level L divides latitude into 2^L rows and longitude into 2^(L+1) columns of
/// ``size(level:)`` = 180/2^L degrees (level 16: 0.0027°, about 305 m north–south). Each cell of
/// level L is exactly four cells of level L+1, so a point's cells at all levels nest.
enum GridCell {
  /// The finest level: cells of 1.07e-5° (about 1.2 m).
  static let maximumLevel = 24

  /// Cell edge in degrees at `level`.
  @inline(__always) static func size(level: Int) -> Double { 180 / Double(1 << level) }

  /// Fractional row coordinate: (latitude + 90) in cells.
  @inline(__always) static func rowCoordinate(latitude: Double, level: Int) -> Double {
    (latitude + 90) * Double(1 << level) / 180
  }

  /// Fractional column coordinate: (longitude + 180) in cells (not wrapped).
  @inline(__always) static func columnCoordinate(longitude: Double, level: Int) -> Double {
    (longitude + 180) * Double(1 << level) / 180
  }

  @inline(__always) static func row(latitude: Double, level: Int) -> Int {
    min(max(Int(rowCoordinate(latitude: latitude, level: level).rounded(.down)), 0), (1 << level) - 1)
  }

  /// Column of a longitude in `-180..<180`.
  @inline(__always) static func column(longitude: Double, level: Int) -> Int {
    let columns = 1 << (level + 1)
    let c = Int(columnCoordinate(longitude: longitude, level: level).rounded(.down))
    return ((c % columns) + columns) % columns
  }

  @inline(__always) static func key(level: Int, row: Int, column: Int) -> UInt64 {
    UInt64(level) << 56 | UInt64(row) << 28 | UInt64(column)
  }

  @inline(__always) static func key(latitude: Double, longitude: Double, level: Int) -> UInt64 {
    key(level: level, row: row(latitude: latitude, level: level), column: column(longitude: longitude, level: level))
  }

  /// The cell's rectangle: south, north, west, east edges in degrees.
  static func box(key: UInt64) -> GeoBox {
    let level = Int(key >> 56)
    let row = Int((key >> 28) & 0xFFF_FFFF)
    let column = Int(key & 0xFFF_FFFF)
    let size = size(level: level)
    return GeoBox(
      south: -90 + Double(row) * size, north: -90 + Double(row + 1) * size,
      west: -180 + Double(column) * size, east: -180 + Double(column + 1) * size)
  }

  /// The finest level whose cells are at least as large as the box in both directions, so that
  /// the box touches at most 2 × 2 cells there.
  static func level(for box: GeoBox) -> Int {
    let span = max(box.north - box.south, box.east - box.west)
    guard span > 0 else { return maximumLevel }
    var level = 0
    while level < maximumLevel && size(level: level + 1) >= span { level += 1 }
    return level
  }

  /// Padding, in cells, that absorbs rounding when a box edge sits on a cell edge.
  static let edgePadding = 1e-6

  /// Calls `body` with the key of every cell at `level` that the box touches.
  static func forEachKey(in box: GeoBox, level: Int, _ body: (UInt64) -> Void) {
    let rows = 1 << level
    let columns = 1 << (level + 1)
    let r0 = max(0, Int((rowCoordinate(latitude: box.south, level: level) - edgePadding).rounded(.down)))
    let r1 = min(rows - 1, Int((rowCoordinate(latitude: box.north, level: level) + edgePadding).rounded(.down)))
    guard r0 <= r1 else { return }
    var c0 = 0
    var c1 = columns - 1
    if !box.spansAllLongitudes {
      c0 = Int((columnCoordinate(longitude: box.west, level: level) - edgePadding).rounded(.down))
      c1 = Int((columnCoordinate(longitude: box.east, level: level) + edgePadding).rounded(.down))
      if c1 - c0 >= columns { c0 = 0; c1 = columns - 1 }
    }
    for r in r0...r1 {
      for c in c0...c1 {
        body(key(level: level, row: r, column: ((c % columns) + columns) % columns))
      }
    }
  }

  /// How many cells `forEachKey(in:level:_:)` would visit.
  static func cellCount(in box: GeoBox, level: Int) -> Int {
    let rows = 1 << level
    let columns = 1 << (level + 1)
    let r0 = max(0, Int((rowCoordinate(latitude: box.south, level: level) - edgePadding).rounded(.down)))
    let r1 = min(rows - 1, Int((rowCoordinate(latitude: box.north, level: level) + edgePadding).rounded(.down)))
    guard r0 <= r1 else { return 0 }
    if box.spansAllLongitudes { return (r1 - r0 + 1) * columns }
    let c0 = Int((columnCoordinate(longitude: box.west, level: level) - edgePadding).rounded(.down))
    let c1 = Int((columnCoordinate(longitude: box.east, level: level) + edgePadding).rounded(.down))
    return (r1 - r0 + 1) * min(columns, c1 - c0 + 1)
  }
}
