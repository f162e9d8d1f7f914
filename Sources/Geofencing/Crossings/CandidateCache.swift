import Geodesy

/// The regions that can matter while the device stays in one grid cell, in struct-of-arrays form
/// for the per-fix scan, with their last containment state and margin.
///
/// **Temporal coherence.** `margin[k]` is how far the device must move before region k's state
/// can change (distance of its chord to the uncertainty band). Chord distance to a centre changes
/// by at most the distance moved, and every path between fixes inside one cell is bounded by
/// `stepBound`, so while the summed step bounds since the last scan stay below `minimumMargin`
/// no circle in the cell can change state — not even by a pass-through between fixes — and the
/// scan is skipped.
struct CandidateCache {
  /// Key of the cell the cache describes, `nil` when invalid.
  var key: UInt64?
  /// The index generation the cache was built from.
  var generation = -1
  /// The cell's rectangle.
  var box = GeoBox(south: 0, north: 0, west: 0, east: 0)
  /// M_max and p_max over the cell's latitudes (metres), for step bounds.
  var meridionalRadius = 0.0
  var parallelRadius = 0.0

  // Circles: struct of arrays.
  var slots: [Int32] = []
  var x: [Double] = []
  var y: [Double] = []
  var z: [Double] = []
  var inner: [Double] = []
  var outer: [Double] = []
  var inside: [Bool] = []
  var margin: [Double] = []

  /// Polygons whose boundary passes through the cell (the others have one state in the cell).
  var polygonSlots: [Int32] = []
  var polygonInside: [Bool] = []

  /// Smallest circle margin at the last scan, and the movement bound accumulated since.
  var minimumMargin = 0.0
  var travelled = 0.0

  mutating func removeAll() {
    slots.removeAll(keepingCapacity: true)
    x.removeAll(keepingCapacity: true)
    y.removeAll(keepingCapacity: true)
    z.removeAll(keepingCapacity: true)
    inner.removeAll(keepingCapacity: true)
    outer.removeAll(keepingCapacity: true)
    inside.removeAll(keepingCapacity: true)
    margin.removeAll(keepingCapacity: true)
    polygonSlots.removeAll(keepingCapacity: true)
    polygonInside.removeAll(keepingCapacity: true)
  }

  mutating func append(slot: Int, circle: CircleGeometry, inside isInside: Bool, margin m: Double) {
    slots.append(Int32(slot))
    x.append(circle.centerCartesian.x)
    y.append(circle.centerCartesian.y)
    z.append(circle.centerCartesian.z)
    inner.append(circle.innerChord)
    outer.append(circle.outerChord)
    inside.append(isInside)
    margin.append(m)
  }

  /// Upper bound (metres) on the path length between two fixes inside this cell.
  @inline(__always)
  func stepBound(deltaLatitude: Double, deltaLongitude: Double) -> Double {
    let dPhi = meridionalRadius * deltaLatitude * (Double.pi / 180)
    let dLambda = parallelRadius * deltaLongitude * (Double.pi / 180)
    return (dPhi * dPhi + dLambda * dLambda).squareRoot() * (1 + 1e-12) + 1e-9
  }
}
