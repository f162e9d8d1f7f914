import Geodesy
@testable import Geofencing
import Testing
import _GeoWakeTestSupport

@Suite("One region set, many devices")
struct RegionSetTests {
  /// The sparse slot set behaves as `Set<Int32>` under random inserts and removes, including the
  /// removals that shift probe runs back.
  @Test(arguments: [UInt64(1), 2, 3])
  func slotSetMatchesStandardSet(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    var ours = SlotSet()
    var reference = Set<Int32>()
    // A small range makes collisions and long probe runs common.
    let range = seed == 3 ? 0...100_000 : 0...200
    for _ in 0..<20_000 {
      let slot = Int32(rng.integer(in: range))
      let insert = rng.unit() < 0.55
      ours[slot] = insert
      if insert { reference.insert(slot) } else { reference.remove(slot) }
      let probe = Int32(rng.integer(in: range))
      #expect(ours.contains(probe) == reference.contains(probe))
    }
    #expect(ours.count == reference.count)
    #expect(ours.sorted == reference.sorted())
    ours.removeAll()
    #expect(ours.isEmpty && ours.sorted.isEmpty && !ours.contains(0))
  }

  /// Moving polygon states between a cell's array and the set of slots the device is inside gives
  /// what a lookup of every one of the cell's polygons gives, whether the set has fewer buckets
  /// than the cell has polygons (its slots looked up in the cell's) or more (the cell's in the set).
  @Test(arguments: [UInt64(6), 7])
  func polygonStatesMoveAsPerSlotLookupsMove(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let center = try Coordinate(latitude: 48.85, longitude: 2.35)
    let regions = regionsAlong(
      syntheticFixes(seed: seed, count: 500, interval: 1, center: center), seed: seed, count: 400, polygonFraction: 1)
    let index = RegionIndex(regions)
    var scratch: [Int32] = []
    let cell = CellCandidates(
      key: GridCell.key(latitude: center.latitude, longitude: center.longitude, level: index.gridLevel), regions: index,
      scratch: &scratch)
    let slots = cell.polygonSlots
    try #require(slots.count >= 20, "the cell should have polygons of its own")
    let others = (0..<Int32(index.count)).filter { !slots.contains($0) }
    for members in [0, 1, 3, slots.count / 2, slots.count * 2] {
      // A set of `members` slots, some of the cell's polygons and some not.
      var set = SlotSet()
      for _ in 0..<members {
        let pool = rng.unit() < 0.5 ? slots : others
        set.insert(pool[rng.integer(in: 0...(pool.count - 1))])
      }
      var cache = CandidateCache()
      cache.setPolygonStates(cell, from: set)
      #expect(Array(cache.polygonInside.prefix(slots.count)) == slots.map { set.contains($0) }, "\(members) members")
      // New states for the cell's polygons, written back.
      for k in slots.indices { cache.polygonInside[k] = rng.unit() < 0.2 }
      var expected = set
      for k in slots.indices { expected[slots[k]] = cache.polygonInside[k] }
      cache.writePolygonStates(cell, into: &set, scratch: &scratch)
      #expect(set == expected, "\(members) members")
    }
  }

  /// Monitors sharing one set give exactly the events of monitors each built from the list.
  @Test(arguments: [UInt64(4), 5])
  func sharedSetGivesTheSameEvents(seed: UInt64) throws {
    let center = try Coordinate(latitude: 48.85, longitude: 2.35)
    let regions = regionsAlong(
      syntheticFixes(seed: seed, count: 2_000, interval: 1, center: center), seed: seed, count: 300, polygonFraction: 0.2)
    let set = RegionSet(regions)
    var enters = 0
    for device in 0..<4 {
      let fixes = syntheticFixes(seed: seed &* 10 &+ UInt64(device), count: 1_500, interval: 2, center: center)
      let (_, own) = try monitor(fixes, regions, .server, seed: UInt64(device))
      var shared = try RegionMonitor(regions: set, profile: .server, seed: UInt64(device))
      var events: [RegionEvent] = []
      for fix in fixes { shared.process(fix, into: &events) }
      shared.finish(into: &events)
      #expect(events == own)
      enters += own.count { $0.kind == .enter }
    }
    #expect(enters > 10, "the devices should enter regions")
  }

  /// The regions made one by one as they are reached are the list made at once, in slot order,
  /// a redefined identifier in its first place.
  @Test func lazyRegionsAreTheRegions() throws {
    let center = try Coordinate(latitude: 48.85, longitude: 2.35)
    let fixes = syntheticFixes(seed: 9, count: 500, interval: 1, center: center)
    var regions = regionsAlong(fixes, seed: 9, count: 200, polygonFraction: 0.3)
    regions.append(.circle(try CircularRegion(identifier: regions[3].identifier.rawValue, center: center, radius: 75)))
    let set = RegionSet(regions)
    #expect(Array(set.lazyRegions) == set.regions)
    #expect(set.regions.count == 200 && set.regions[3] == regions[200])
    #expect(Array(RegionSet([]).lazyRegions).isEmpty)
  }

  /// Devices over one set in concurrent tasks (the set is `Sendable`; its cells are built by
  /// whichever task enters them first) give the events they give one after another.
  @Test func concurrentDevicesAgreeWithSequentialOnes() async throws {
    let center = try Coordinate(latitude: -33.87, longitude: 151.21)
    let regions = regionsAlong(
      syntheticFixes(seed: 9, count: 3_000, interval: 1, center: center), seed: 9, count: 500, polygonFraction: 0.1)
    let set = RegionSet(regions)
    @Sendable func run(_ device: Int) throws -> [RegionEvent] {
      var m = try RegionMonitor(regions: set, profile: .server, seed: UInt64(device))
      var events: [RegionEvent] = []
      for fix in syntheticFixes(seed: 100 + UInt64(device), count: 1_000, interval: 1, center: center) {
        m.process(fix, into: &events)
      }
      m.finish(into: &events)
      return events
    }
    let sequential = try (0..<8).map { try run($0) }
    let concurrent = try await withThrowingTaskGroup(of: (Int, [RegionEvent]).self) { group in
      for device in 0..<8 { group.addTask { (device, try run(device)) } }
      var out = Array(repeating: [RegionEvent](), count: 8)
      for try await (device, events) in group { out[device] = events }
      return out
    }
    #expect(concurrent == sequential)
  }

  /// A detector's own state holds the regions the device is inside, not one entry per region of
  /// the set.
  @Test func detectorStateIsSizedByTheRegionsNearTheDevice() throws {
    let center = try Coordinate(latitude: 35.68, longitude: 139.77)
    let fixes = syntheticFixes(seed: 11, count: 3_000, interval: 1, center: center)
    let regions = SyntheticRegions(seed: 11, count: 20_000, center: center).generate(
      near: fixes.map(\.coordinate))
    var detector = CrossingDetector(regions: RegionSet(regions))
    var crossings: [RegionCrossing] = []
    var largest = 0
    for fix in fixes {
      try detector.process(fix, into: &crossings)
      largest = max(largest, detector.insideBySlot.count)
      let inside = detector.insideSlots().map { detector.regions.identifier(slot: $0) }
      #expect(inside == detector.regions.regions(containing: fix.coordinate))
    }
    #expect(largest < 200, "state for \(largest) slots of 20,000")
    #expect(detector.insideBySlot.memoryFootprint < 4_096)
  }

  /// Replacing a region keeps its place; removing and inserting reuses the place a removal left.
  @Test func replacementKeepsThePlace() throws {
    let a = try CircularRegion(identifier: "a", center: Coordinate(latitude: 0, longitude: 0), radius: 100)
    let b = try CircularRegion(identifier: "b", center: Coordinate(latitude: 0, longitude: 1), radius: 100)
    let c = try CircularRegion(identifier: "c", center: Coordinate(latitude: 0, longitude: 2), radius: 100)
    let bigger = try CircularRegion(identifier: "a", center: Coordinate(latitude: 0, longitude: 0), radius: 500)
    var set = RegionSet([.circle(a), .circle(b), .circle(a), .circle(c)])
    #expect(set.regions.map(\.identifier.rawValue) == ["a", "b", "c"])
    let shared = set
    #expect(set.insert(.circle(bigger)) == .circle(a))
    #expect(set.regions.map(\.identifier.rawValue) == ["a", "b", "c"])
    #expect(set.remove(try RegionIdentifier("b")) == .circle(b))
    #expect(set.regions.map(\.identifier.rawValue) == ["a", "c"])
    // The copy taken before the changes still has them all, with the first definition of `a`.
    #expect(shared.regions == [.circle(a), .circle(b), .circle(c)])
    // Built with a repeated identifier: its last definition, in the place of the first.
    let repeated = RegionSet([.circle(a), .circle(b), .circle(bigger), .circle(c)])
    #expect(repeated.regions == [.circle(bigger), .circle(b), .circle(c)])
    #expect(repeated.fingerprint == RegionSet([.circle(bigger), .circle(b), .circle(c)]).fingerprint)
  }

  /// The fingerprint is computed when first asked for; a set changed before or after that, and
  /// its copies, give the fingerprint of a set built from scratch with the same regions.
  @Test func fingerprintIsTheSameWhenEverItIsComputed() throws {
    var rng = SeededGenerator(seed: 11)
    var regions: [Region] = []
    for k in 0..<60 {
      let center = try Coordinate(latitude: rng.uniform(-60...60), longitude: rng.uniform(-180..<180))
      if k % 3 == 0 {
        let d = 0.01
        regions.append(.polygon(try PolygonRegion(identifier: "p\(k)", exterior: [
          center, try Coordinate(latitude: center.latitude + d, longitude: center.longitude),
          try Coordinate(latitude: center.latitude, longitude: center.longitude + d),
        ])))
      } else {
        regions.append(.circle(try CircularRegion(identifier: "c\(k)", center: center, radius: rng.uniform(10...5_000))))
      }
    }
    for askedFirst in [false, true] {
      var set = RegionSet(regions.prefix(40))
      let before = set
      if askedFirst { _ = set.fingerprint }
      for region in regions.dropFirst(40) { set.insert(region) }
      set.remove(regions[3].identifier)
      set.insert(regions[10])  // a replacement by an equal region
      let copy = set
      var expected = Array(regions)
      expected.remove(at: 3)
      #expect(set.fingerprint == RegionSet(expected).fingerprint, "asked first: \(askedFirst)")
      #expect(copy.fingerprint == set.fingerprint)
      #expect(before.fingerprint == RegionSet(regions.prefix(40)).fingerprint)
      #expect(before.fingerprint != set.fingerprint)
    }
  }
}
