import Foundation
import Geodesy
import Geofencing
import TrackIO

/// Input that was read without an error but cannot be what the user meant: no fix used, no region,
/// a track far from every region, many fixes rejected, towers that never reach the track, times
/// outside the years a phone or receiver can have logged, fixes or regions at 0°, 0°. Each becomes
/// a warning on standard error that names the cause; a run with nothing to analyse ends with
/// status 65 (after writing its output).
struct InputChecks {
  /// A track this far from every region (metres) is taken for a mismatch: the regions are for
  /// another place, or latitude and longitude are swapped.
  static let farDistance = 50_000.0
  /// More than this share of the fixes rejected is worth a warning, not only a summary line.
  static let rejectedShare = 0.10

  /// Times before this (2000-01-01T00:00:00Z) are taken for a clock that was not set: a receiver
  /// without a time fix reports 1970-01-01 (time 0) or 1980-01-06 (the GPS epoch), and one that
  /// mishandles the GPS week number's rollover reports dates 1,024 weeks (19.6 years) early.
  static let earliestPlausibleTime = 946_684_800.0
  /// Times from this (2100-01-01T00:00:00Z) on are taken for a misread unit or a corrupt clock.
  static let latestPlausibleTime = 4_102_444_800.0

  /// The bounding box of the fixes seen (degrees), before any fix: nil.
  private(set) var box: (south: Double, north: Double, west: Double, east: Double)?
  /// The earliest and latest times of the fixes seen.
  private(set) var earliest = Double.infinity
  private(set) var latest = -Double.infinity
  /// Fixes seen, and those exactly at 0°, 0°: what a receiver without a position reports.
  private(set) var fixes = 0
  private(set) var fixesAtZero = 0

  /// Takes one fix read.
  @inline(__always) mutating func add(_ fix: LocationFix) {
    earliest = min(earliest, fix.time)
    latest = max(latest, fix.time)
    let (lat, lon) = (fix.coordinate.latitude, fix.coordinate.longitude)
    fixes += 1
    if lat == 0 && lon == 0 { fixesAtZero += 1 }
    guard var b = box else {
      box = (lat, lat, lon, lon)
      return
    }
    if lat < b.south { b.south = lat }
    if lat > b.north { b.north = lat }
    if lon < b.west { b.west = lon }
    if lon > b.east { b.east = lon }
    box = b
  }

  /// The distance (metres, on a sphere of the Earth's mean radius) from the fixes' box to the
  /// nearest of `regions`, when every region is farther than ``farDistance``; nil when some
  /// region is nearer, or there are no fixes or regions.
  func distanceWhenFar(from regions: some Sequence<Region>) -> Double? {
    guard let box else { return nil }
    var least = Double.infinity
    for region in regions {
      let d = Self.distance(from: box, to: region)
      if d <= Self.farDistance { return nil }
      least = min(least, d)
    }
    // No region at all: nothing is far.
    return least < .infinity ? least : nil
  }

  /// The warning for times of `what` (such as "the fixes of track.gpx") from `earliest` to
  /// `latest` when some lie outside ``earliestPlausibleTime`` ..< ``latestPlausibleTime``;
  /// `positioned`: the times come from a positioning receiver (its GPS failures are named).
  static func timeWarning(_ what: String, earliest: Double, latest: Double, positioned: Bool = true) -> String? {
    guard earliest <= latest else { return nil }
    let span = "from \(TimestampText.iso8601(earliest)) to \(TimestampText.iso8601(latest))"
    if earliest < earliestPlausibleTime {
      return "warning: \(what) are dated \(span), before 2000: "
        + (positioned
          ? "a clock that was not set (1970-01-01 is time 0, 1980-01-06 the GPS epoch) or a GPS week-number rollover (dates 19.6 years early)?"
          : "a clock or a field that was not set (1970-01-01 is time 0)?")
    }
    if latest >= latestPlausibleTime {
      return "warning: \(what) are dated \(span), after 2100: times in another unit, or a corrupt clock?"
    }
    return nil
  }

  /// The warnings about the fixes seen themselves: their times
  /// (``timeWarning(_:earliest:latest:positioned:)``), and those exactly at 0°, 0°, where a receiver
  /// or an app without a position writes zeros (the track jumps to the Gulf of Guinea and back).
  func fixWarnings(track: String) -> [String] {
    var warnings: [String] = []
    if let time = Self.timeWarning("the fixes of \(track)", earliest: earliest, latest: latest) { warnings.append(time) }
    if let zero = Self.zeroWarning(fixesAtZero, of: fixes, "fixes of \(track)") { warnings.append(zero) }
    return warnings
  }

  /// The warning for `count` of `total` points (`what`, such as "fixes of track.gpx") at exactly
  /// 0°, 0°, if any: where a receiver or an app without a position writes zeros.
  static func zeroWarning(_ count: Int, of total: Int, _ what: String) -> String? {
    guard count > 0 else { return nil }
    return "warning: \(count) of the \(total) \(what) \(count == 1 ? "is" : "are") at exactly 0°, 0°, "
      + "where a receiver without a position writes zeros: placeholders, not positions?"
  }

  /// ``fixWarnings(track:)`` for a track summarised by `info`: a file without any point, the
  /// times of its track points (earliest to latest wherever they lie in the file, and points
  /// dated before the point ahead of them), and those at exactly 0°, 0°.
  static func trackPointWarnings(_ statistics: TrackStatistics, track: String) -> [String] {
    var warnings: [String] = []
    if statistics.trackPoints == 0 && statistics.routePoints == 0 && statistics.waypoints == 0 {
      warnings.append("warning: \(track) holds no point (no track point, route point or waypoint)")
    }
    let back = statistics.trackPointsBackInTime
    if back > 0 {
      warnings.append(
        "warning: \(back) of the \(statistics.trackPoints) track points of \(track) \(back == 1 ? "is" : "are") dated earlier than "
          + "the point before \(back == 1 ? "it in its" : "them in their") segment: a clock that jumped back, or points out of order? "
          + "(the duration is the span of each segment's times)")
    }
    if let earliest = statistics.earliestTime, let latest = statistics.latestTime,
      let time = timeWarning("the track points of \(track)", earliest: earliest, latest: latest)
    {
      warnings.append(time)
    }
    if let zero = zeroWarning(statistics.trackPointsAtZero, of: statistics.trackPoints, "track points of \(track)") {
      warnings.append(zero)
    }
    return warnings
  }

  /// The warning for regions of the file `path` that read but cannot be meant, if any: regions
  /// at exactly 0°, 0° (a circle's centre or a polygon's vertex), where a missing position is
  /// written as zeros. (A radius beyond 10,000 km is already an error.)
  static func regionWarning(_ path: String, regions: [Region]) -> String? {
    var atZero: [RegionIdentifier] = []
    for region in regions {
      switch region {
      case .circle(let c):
        if c.center.latitude == 0 && c.center.longitude == 0 { atZero.append(c.identifier) }
      case .polygon(let p):
        let rings = p.polygons.flatMap { [$0.exterior] + $0.holes }
        if rings.contains(where: { $0.contains { $0.latitude == 0 && $0.longitude == 0 } }) { atZero.append(p.identifier) }
      }
    }
    guard let first = atZero.first else { return nil }
    return "warning: \(atZero.count) of the \(regions.count) regions of \(path) \(atZero.count == 1 ? "lies" : "lie") at exactly 0°, 0° "
      + "(a circle's centre or a polygon's vertex), where a missing position is written as zeros: placeholders? (the first: \(first.rawValue))"
  }

  /// The warning for a region file without regions.
  static func noRegionWarning(regions: String) -> String { "warning: \(regions) holds no region" }

  /// The warning for a track none of whose fixes was used.
  static func noFixWarning(track: String) -> String { "warning: no fix of \(track) was used, so nothing was analysed" }

  /// The warning for a track far from every region, if it is.
  func farWarning(track: String, regions: String, _ list: some Sequence<Region>) -> String? {
    guard let d = distanceWhenFar(from: list) else { return nil }
    return "warning: every fix of \(track) is more than \(Int(Self.farDistance / 1000)) km from every region of \(regions) "
      + "(the nearest is \(Int((d / 1000).rounded())) km away): are the regions for another place, or latitude and longitude swapped?"
  }

  /// The warning for many rejected fixes, if more than ``rejectedShare`` of them were.
  static func rejectedWarning(track: String, used: Int, rejections: [String: Int], pointsWithoutTime: Int) -> String? {
    var causes = rejections.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
    if pointsWithoutTime > 0 { causes.append("\(pointsWithoutTime) without a time") }
    let rejected = rejections.values.reduce(0, +) + pointsWithoutTime
    let total = used + rejected
    guard total > 0, Double(rejected) > rejectedShare * Double(total) else { return nil }
    let percent = (Double(rejected) / Double(total) * 1000).rounded() / 10
    return "warning: \(rejected) of the \(total) fixes of \(track) (\(percent) %) were rejected: \(causes.joined(separator: ", "))"
  }

  /// The warnings about one device of a many-device run: its fixes far from every region, many
  /// of its fixes rejected.
  static func deviceNotes(
    device: String, checks: InputChecks, regionFile: String?, regions: [Region], used: Int, rejections: [String: Int],
    pointsWithoutTime: Int
  ) -> [String] {
    var notes: [String] = []
    let track = "device \(device)"
    if let regionFile, let far = checks.farWarning(track: track, regions: regionFile, regions) { notes.append(far) }
    notes += checks.fixWarnings(track: track)
    if let rejected = rejectedWarning(track: track, used: used, rejections: rejections, pointsWithoutTime: pointsWithoutTime) {
      notes.append(rejected)
    }
    return notes
  }

  /// About the metres from a box of fixes to a region (a warning's estimate, not a geodesic
  /// bound): from a circle's centre to the nearest point of the box, less the radius; between
  /// near points of the boxes of the fixes and of a polygon's vertices.
  static func distance(from box: (south: Double, north: Double, west: Double, east: Double), to region: Region) -> Double {
    switch region {
    case .circle(let c):
      let (lat, lon) = (c.center.latitude, c.center.longitude)
      let nearest = (min(max(lat, box.south), box.north), min(max(lon, box.west), box.east))
      return max(0, haversine(lat, lon, nearest.0, nearest.1) - c.radius)
    case .polygon(let p):
      var south = 90.0, north = -90.0, west = 180.0, east = -180.0
      for polygon in p.polygons {
        for v in polygon.exterior {
          south = min(south, v.latitude)
          north = max(north, v.latitude)
          west = min(west, v.longitude)
          east = max(east, v.longitude)
        }
      }
      // A polygon over the antimeridian has a box of every longitude: never far.
      if east - west > 180 { return 0 }
      // Near points of the two boxes: the polygon box's middle clamped into the fixes' box, and
      // that point clamped into the polygon's box (0 when they overlap).
      let p = (min(max((south + north) / 2, box.south), box.north), min(max((west + east) / 2, box.west), box.east))
      let q = (min(max(p.0, south), north), min(max(p.1, west), east))
      return haversine(p.0, p.1, q.0, q.1)
    }
  }

  /// Great-circle distance on a sphere of the Earth's mean radius (metres).
  static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let r = Double.pi / 180
    let dLat = (lat2 - lat1) * r
    var dLon = abs(lon2 - lon1)
    if dLon > 180 { dLon = 360 - dLon }
    let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dLon * r / 2) * sin(dLon * r / 2)
    return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
  }
}
