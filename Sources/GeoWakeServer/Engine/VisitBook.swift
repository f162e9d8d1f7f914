#if Server
import GeoWake
import Geofencing
import SeededRandom

/// A device's visits: one id from the event that puts it inside a region (an enter, or a `state`
/// inside) to the event that takes it out (an exit, a `state` outside), dwells included, as
/// Tile38's `group`. A pass-through is a visit of its own. Ids are drawn from the device, the
/// region and the time the visit began, so a restart that replays the same fixes gives the
/// same ids.
struct VisitBook: Codable, Sendable, Hashable {
  /// Region → the open visit's id.
  var open: [String: String] = [:]

  /// The visit `event` belongs to, if it is a region's event (and the book after it).
  mutating func visit(of event: TimelineEvent, device: String) -> String? {
    guard case .region(let e) = event else { return nil }
    let region = e.region.rawValue
    switch e.kind {
    case .enter:
      return begin(region, device: device, at: e.crossedAt)
    case .state where e.state == .inside:
      return begin(region, device: device, at: e.crossedAt)
    case .state:
      return open.removeValue(forKey: region)
    case .exit:
      return open.removeValue(forKey: region) ?? Self.id(device, region, e.crossedAt, "exit")
    case .dwell:
      return open[region] ?? begin(region, device: device, at: e.crossedAt)
    case .passThrough:
      return Self.id(device, region, e.crossedAt, "through")
    case .monitoringFailed:
      return nil
    }
  }

  /// Forgets the visits of regions no longer in `regions` (a region removed ends its visit
  /// without an event).
  mutating func keep(only regions: RegionSet) {
    open = open.filter { (try? RegionIdentifier($0.key)).map(regions.contains) ?? false }
  }

  private mutating func begin(_ region: String, device: String, at time: Double) -> String {
    let id = Self.id(device, region, time, "visit")
    open[region] = id
    return id
  }

  static func id(_ device: String, _ region: String, _ time: Double, _ kind: String) -> String {
    var hash = StableHash()
    for part in [device, region, kind] {
      hash.combine(part)
      hash.combine(UInt64(0xff))
    }
    hash.combine(time.bitPattern)
    let hex = String(hash.value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}
#endif
