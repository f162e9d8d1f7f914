/// A latitude/longitude rectangle, in degrees. `west` may be below -180 and `east` above 180 so
/// that a box crossing the antimeridian stays one interval (`west` 179, `east` 181); a box with
/// `east − west ≥ 360` spans every longitude.
struct GeoBox: Hashable, Sendable {
  var south: Double
  var north: Double
  var west: Double
  var east: Double

  var spansAllLongitudes: Bool { east - west >= 360 }

  /// Whether the boxes overlap (edges touching count), with longitudes compared modulo 360.
  @inline(__always)
  func intersects(_ other: GeoBox) -> Bool {
    guard south <= other.north, other.south <= north else { return false }
    // Both strictly inside (-180, 180): no wrap to consider.
    if west > -180 && east < 180 && other.west > -180 && other.east < 180 {
      return west <= other.east && other.west <= east
    }
    if spansAllLongitudes || other.spansAllLongitudes { return true }
    // The smallest whole-turn shift k that puts other's east edge at or past our west edge; only it
    // can overlap, since both boxes are narrower than a turn.
    let k = ((west - other.east) / 360).rounded(.up)
    return other.west + 360 * k <= east
  }

  /// Whether the point (latitude, longitude in -180..<180) lies in the box.
  func contains(latitude: Double, longitude: Double) -> Bool {
    guard latitude >= south, latitude <= north else { return false }
    if spansAllLongitudes { return true }
    var lon = longitude
    while lon < west { lon += 360 }
    while lon - 360 >= west { lon -= 360 }
    return lon <= east
  }
}
