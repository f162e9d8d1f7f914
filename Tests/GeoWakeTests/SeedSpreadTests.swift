import Geodesy
import Geofencing
import Testing

@testable import GeoWake

@Suite struct SeedSpreadTests {
  static let here = Coordinate(uncheckedLatitude: 35.68, longitude: 139.76)

  static func event(_ kind: RegionEvent.Kind, _ region: String, crossed: Double, delivered: Double?, missed: Bool = false) throws -> RegionEvent {
    RegionEvent(
      kind: kind, region: try RegionIdentifier(region), crossedAt: crossed, deliveredAt: delivered, coordinate: here,
      cause: .crossingConfirmed(fromFix: 0, toFix: 1, confirmedByFix: 1), withheld: delivered == nil ? (missed ? .missed : .notRequested) : nil,
      reason: "")
  }

  /// Counts per seed, missed crossings over all seeds, delays from the crossing; state and other
  /// events ignored; regions in identifier order.
  @Test func tallies() throws {
    let seed1 = [
      try Self.event(.enter, "b", crossed: 10, delivered: 40), try Self.event(.exit, "b", crossed: 100, delivered: nil, missed: true),
      try Self.event(.enter, "a", crossed: 5, delivered: 5),
    ]
    let seed2 = [
      try Self.event(.enter, "b", crossed: 10, delivered: 70), try Self.event(.exit, "b", crossed: 100, delivered: 160),
      try Self.event(.passThrough, "a", crossed: 7, delivered: 7),
    ]
    let spread = SeedSpread(seeds: [1, 2], events: [seed1, seed2])
    #expect(spread.regions.map(\.region.rawValue) == ["a", "b"])
    let a = spread.regions[0], b = spread.regions[1]
    #expect(a.enters == [1, 0] && a.exits == [0, 0] && a.confirmed == 1 && a.missed == 0 && a.enterDelays == [0])
    #expect(b.enters == [1, 1] && b.exits == [0, 1] && b.confirmed == 4 && b.missed == 1)
    #expect(b.enterDelays == [30, 60] && b.exitDelays == [60])
    #expect(SeedSpread.quantile(b.enterDelays, 0.5) == 45)
  }
}
