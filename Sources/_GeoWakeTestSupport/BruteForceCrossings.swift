public import Geodesy
public import Geofencing
import RealModule

/// A slow, obviously-correct crossing reference: samples the path between fixes densely, decides
/// containment exactly at every sample, and bisects every change of state.
public enum BruteForceCrossings {
  public struct Crossing: Hashable, Sendable {
    public var region: RegionIdentifier
    public var enter: Bool
    public var time: Double
  }

  /// The position at parameter u on the path from `a` to `b` (linear in latitude and in longitude
  /// the short way round), the model `CrossingDetector` documents.
  public static func point(_ a: Coordinate, _ b: Coordinate, _ u: Double) -> Coordinate {
    var dLon = (b.longitude - a.longitude).remainder(dividingBy: 360)
    if dLon >= 180 { dLon -= 360 }
    let latitude = min(90, max(-90, a.latitude + u * (b.latitude - a.latitude)))
    return Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(a.longitude + u * dLon))
  }

  /// Every crossing of `regions` by the track, with `samples` samples per segment.
  public static func crossings(
    fixes: [LocationFix], regions: [Region], samples: Int, contains: (Region, Coordinate) -> Bool
  ) -> [Crossing] {
    var out: [Crossing] = []
    for region in regions {
      guard var state = fixes.first.map({ contains(region, $0.coordinate) }) else { continue }
      for i in 1..<fixes.count {
        let a = fixes[i - 1]
        let b = fixes[i]
        var u0 = 0.0
        for s in 1...samples {
          let u1 = Double(s) / Double(samples)
          let next = contains(region, point(a.coordinate, b.coordinate, u1))
          if next != state {
            var lo = u0
            var hi = u1
            for _ in 0..<60 {
              let mid = (lo + hi) / 2
              if contains(region, point(a.coordinate, b.coordinate, mid)) == state { lo = mid } else { hi = mid }
            }
            let u = (lo + hi) / 2
            out.append(Crossing(region: region.identifier, enter: next, time: a.time + u * (b.time - a.time)))
            state = next
          }
          u0 = u1
        }
      }
    }
    return out.sorted { ($0.time, $0.region) < ($1.time, $1.region) }
  }

  /// Exact containment: the geodesic distance for circles, the region's own test for polygons.
  public static func exactlyContains(_ region: Region, _ point: Coordinate) -> Bool {
    switch region {
    case .circle(let c): return Geodesic.wgs84.distance(from: c.center, to: point) <= c.radius
    case .polygon(let p): return p.contains(point)
    }
  }
}

extension Coordinate {
  /// The point `distance` metres from here along the geodesic leaving at `azimuth` degrees.
  public func moved(_ distance: Double, azimuth: Double) -> Coordinate {
    Geodesic.wgs84.direct(from: self, azimuth: azimuth, distance: distance)?.destination ?? self
  }
}

/// Containment decided without anything of the geometry core: a circle by Karney's geodesic
/// distance to its centre, a polygon by the even-odd rule over every ring in longitude and
/// latitude (GeoJSON's straight edges), longitudes unwrapped around the polygon's first vertex.
/// Points exactly on a boundary may go either way: dense sampling never lands on one.
public enum IndependentContainment {
  public static func contains(_ region: Region, _ point: Coordinate) -> Bool {
    switch region {
    case .circle(let c):
      return Geodesic.wgs84.distance(from: c.center, to: point) <= c.radius
    case .polygon(let p):
      let origin = p.polygons[0].exterior[0].longitude
      func x(_ longitude: Double) -> Double {
        var d = (longitude - origin).remainder(dividingBy: 360)
        if d < -180 { d += 360 }
        return origin + d
      }
      let px = x(point.longitude)
      let py = point.latitude
      var inside = false
      for polygon in p.polygons {
        for ring in [polygon.exterior] + polygon.holes {
          var j = ring.count - 1
          for i in ring.indices {
            let (xi, yi) = (x(ring[i].longitude), ring[i].latitude)
            let (xj, yj) = (x(ring[j].longitude), ring[j].latitude)
            if (yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi { inside.toggle() }
            j = i
          }
        }
      }
      return inside
    }
  }
}
