import Geodesy
import RealModule

/// The path a device is assumed to take between two consecutive fixes: latitude and longitude
/// change linearly with time, the longitude the short way round (|Δλ| ≤ 180°).
///
/// This is the same straight-in-longitude/latitude convention as polygon edges, so crossings with
/// polygons are exact line intersections; for the 1–100 m between typical fixes it differs from
/// the geodesic by micrometres.
struct PathSegment {
  let latitude0: Double
  let longitude0: Double
  let deltaLatitude: Double
  /// In `-180..<180`.
  let deltaLongitude: Double
  let time0: Double
  let time1: Double
  /// The end as given: `latitude0 + deltaLatitude` may differ from it by a unit in the last place,
  /// and a decision at the end must be the decision at the fix.
  let end: Coordinate

  init(from start: Coordinate, at time0: Double, to end: Coordinate, at time1: Double) {
    latitude0 = start.latitude
    longitude0 = start.longitude
    self.end = end
    deltaLatitude = end.latitude - start.latitude
    deltaLongitude = PlanarPolygons.wrapped(end.longitude - start.longitude)
    self.time0 = time0
    self.time1 = time1
  }

  /// The position at parameter u ∈ [0, 1]; exactly the end at 1.
  @inline(__always)
  func point(at u: Double) -> Coordinate {
    if u == 1 { return end }
    let latitude = min(90, max(-90, latitude0 + u * deltaLatitude))
    return Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(longitude0 + u * deltaLongitude))
  }

  /// The time at parameter u.
  @inline(__always)
  func time(at u: Double) -> Double { time0 + u * (time1 - time0) }

  /// The latitude/longitude box of the whole segment (longitudes unwrapped from `longitude0`).
  var box: GeoBox {
    let east = longitude0 + deltaLongitude
    return GeoBox(
      south: min(latitude0, latitude0 + deltaLatitude), north: max(latitude0, latitude0 + deltaLatitude),
      west: min(longitude0, east), east: max(longitude0, east))
  }

  /// An upper bound on the length in metres of the path between parameters u0 and u1.
  ///
  /// ds² = M(φ)² dφ² + p(φ)² dλ² with φ, λ linear in u, so the length is at most
  /// √((M_max Δφ)² + (p_max Δλ)²), M_max at the sub-path's latitude farthest from the equator
  /// (M grows with |φ|) and p_max at the nearest (the parallel radius shrinks with |φ|).
  func lengthBound(from u0: Double, to u1: Double) -> Double {
    let la = latitude0 + u0 * deltaLatitude
    let lb = latitude0 + u1 * deltaLatitude
    let dPhi = (u1 - u0) * deltaLatitude * (Double.pi / 180)
    let dLambda = (u1 - u0) * deltaLongitude * (Double.pi / 180)
    return Self.lengthBound(latitudeA: la, latitudeB: lb, dPhi: dPhi, dLambda: dLambda)
  }

  /// The bound of ``lengthBound(from:to:)`` for a step within the latitude band [a, b].
  static func lengthBound(latitudeA a: Double, latitudeB b: Double, dPhi: Double, dLambda: Double) -> Double {
    let (m, p) = radiusBounds(latitudeA: a, latitudeB: b)
    return lengthBound(meridional: m, parallel: p, dPhi: dPhi, dLambda: dLambda)
  }

  /// The same bound with M and p bounded by `meridional` and `parallel` over the path's latitudes
  /// (``radiusBounds(latitudeA:latitudeB:)`` of a range holding them).
  @inline(__always)
  static func lengthBound(meridional m: Double, parallel p: Double, dPhi: Double, dLambda: Double) -> Double {
    ((m * dPhi) * (m * dPhi) + (p * dLambda) * (p * dLambda)).squareRoot() * (1 + 1e-12) + 1e-9
  }

  /// (M_max, p_max) over the latitude band between a and b.
  static func radiusBounds(latitudeA a: Double, latitudeB b: Double) -> (meridional: Double, parallel: Double) {
    let ellipsoid = Ellipsoid.wgs84
    let far = max(abs(a), abs(b)) * (Double.pi / 180)
    let near = (a <= 0 && b >= 0) || (b <= 0 && a >= 0) ? 0 : min(abs(a), abs(b)) * (Double.pi / 180)
    let m = ellipsoid.meridionalRadius(sinLatitude: Double.sin(far))
    let p = ellipsoid.parallelRadius(sinLatitude: Double.sin(near), cosLatitude: Double.cos(near))
    return (m * (1 + 1e-12), p * (1 + 1e-12))
  }
}
