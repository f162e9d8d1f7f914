import Geodesy
import Testing
import _GeoWakeTestSupport

@testable import Geofencing

/// Polygon depth, which confirms polygon crossings the way depth confirms circle crossings.
@Suite("Polygon depth")
struct PolygonDepthTests {
  /// A quadrilateral around `center`: corners at the given (east, north) metre offsets.
  static func polygon(_ id: String, around center: Coordinate, _ corners: [(Double, Double)]) throws -> PolygonRegion {
    let ring = corners.map { east, north in
      offset(offset(center, 90, east), 0, north)
    }
    return try PolygonRegion(identifier: RegionIdentifier(id), exterior: ring)
  }

  /// Brute force: the smallest geodesic distance to the boundary densified every `step` metres
  /// (edges are straight in latitude and longitude, as the geometry takes them).
  static func bruteForceDistance(_ point: Coordinate, _ ring: [Coordinate], step: Double) -> Double {
    var best = Double.infinity
    for k in 0..<ring.count {
      let a = ring[k]
      let b = ring[(k + 1) % ring.count]
      let length = Geodesic.wgs84.distance(from: a, to: b)
      let pieces = max(1, Int((length / step).rounded(.up)))
      for i in 0...pieces {
        let u = Double(i) / Double(pieces)
        let p = Coordinate(
          uncheckedLatitude: a.latitude + u * (b.latitude - a.latitude), longitude: a.longitude + u * (b.longitude - a.longitude))
        best = min(best, Geodesic.wgs84.distance(from: point, to: p))
      }
    }
    return best
  }

  /// Within 0.1 % of brute force (plus the densification's own error) for points inside and
  /// outside, up to 2 km from an irregular quadrilateral, at latitudes 0°, 45° and 70°, and never
  /// below it by more than that error: the result is the distance to a boundary point.
  @Test(arguments: [0.0, 45, 70])
  func boundaryDistanceAgreesWithBruteForce(latitude: Double) throws {
    let center = try Coordinate(latitude: latitude, longitude: 10)
    let corners: [(Double, Double)] = [(-900, -700), (1_100, -500), (800, 900), (-600, 1_200)]
    let region = try Self.polygon("quad", around: center, corners)
    let geometry = PolygonGeometry(region.planar)
    let ring = corners.map { east, north in offset(offset(center, 90, east), 0, north) }
    var checked = 0
    for azimuth in stride(from: 0.0, to: 360, by: 37) {
      for distance in [0.0, 150, 600, 1_400, 2_900] {
        let point = offset(center, azimuth, distance)
        let ours = geometry.boundaryDistance(to: point)
        let reference = Self.bruteForceDistance(point, ring, step: 0.5)
        // Densified every 0.5 m: the brute force overestimates by at most 0.25²/(2·d) + ε.
        #expect(ours >= reference - 0.01, "\(point): \(ours) < \(reference)")
        #expect(ours <= reference * 1.001 + 0.01, "\(point): \(ours) vs \(reference)")
        checked += 1
      }
    }
    #expect(checked == 50)
  }

  /// The largest inscribed circle: half the side of a square, the radius of a many-sided polygon
  /// approximating a circle, half the width of a thin strip.
  @Test func inscribedRadius() throws {
    let center = try Coordinate(latitude: 52, longitude: 4)
    let square = try PolygonGeometry(
      Self.polygon("square", around: center, [(-500, -500), (500, -500), (500, 500), (-500, 500)]).planar)
    #expect(abs(square.inscribedRadius() - 500) < 2)
    let strip = try PolygonGeometry(
      Self.polygon("strip", around: center, [(-1_000, -10), (1_000, -10), (1_000, 10), (-1_000, 10)]).planar)
    #expect(abs(strip.inscribedRadius() - 10) < 2)
    let ring = stride(from: 0.0, to: 360, by: 5).map { offset(center, $0, 300) }
    let round = try PolygonGeometry(PolygonRegion(identifier: "round", exterior: ring).planar)
    #expect(abs(round.inscribedRadius() - 300) < 3)
  }

  /// iOS rules on a polygon: walking north across a 2 km square's south edge, noise near the edge
  /// does not enter; the entry is confirmed once 200 m + accuracy deep (and 20 s later), its
  /// reason saying how deep; the exit likewise once 210 m outside.
  @Test func iosConfirmsPolygonCrossingsByDepth() throws {
    let square = try Self.polygon("square", around: origin, [(-1_000, 0), (1_000, 0), (1_000, 2_000), (-1_000, 2_000)])
    // From 300 m south, dithering across the edge, 600 m in, then back out to 400 m south.
    var norths: [Double] = Array(stride(from: -300.0, through: 0, by: 5))
    norths += [5, -5, 8, -3, 6]
    norths += Array(stride(from: 10.0, through: 600, by: 5))
    norths += Array(stride(from: 600.0, through: -400, by: -5))
    let fixes = walk(norths)
    let (_, events) = try monitor(fixes, [.polygon(square)], .iosDocumented)
    let transitions = events.filter { $0.kind == .enter || $0.kind == .exit }
    #expect(transitions.map(\.kind) == [.enter, .exit])
    let enter = try #require(transitions.first)
    #expect(enter.reason.contains("m inside (needed 210 m)"), "\(enter.reason)")
    // Fix 106 (61 on the way, 5 dithering, then 10 m, 15 m, … 210 m) is the first 210 m in; the
    // entry is confirmed 20 s (20 fixes) later, still deep enough.
    #expect(norths[106] == 210)
    #expect(enter.reason.contains("confirmed at fix 126, 310 m inside"), "\(enter.reason)")
    let exit = try #require(transitions.last)
    #expect(exit.reason.contains("m outside (needed 210 m)"), "\(exit.reason)")
    #expect(transitionsAlternate(events))
  }

  /// A polygon smaller than the confirmation distance can still be entered: the depth asked for
  /// is capped at half its inscribed radius (40 m for an 80 m-wide square), as for a circle.
  @Test func smallPolygonCanBeEntered() throws {
    let kiosk = try Self.polygon("kiosk", around: offset(origin, 0, 100), [(-40, -40), (40, -40), (40, 40), (-40, 40)])
    let fixes = walk(Array(stride(from: 0.0, through: 100, by: 2)) + Array(repeating: 100, count: 30), accuracy: 5)
    let (_, events) = try monitor(fixes, [.polygon(kiosk)], .iosDocumented)
    let enter = try #require(events.first { $0.kind == .enter })
    #expect(enter.reason.contains("needed 20 m"), "\(enter.reason)")
  }
}
