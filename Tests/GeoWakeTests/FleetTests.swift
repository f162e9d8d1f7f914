import BackgroundRuntime
import GeoWake
import Geodesy
import Geofencing
import SeededRandom
import SyntheticData
import Testing

/// Many devices over one region set: each device's events are those of its own timeline,
/// whatever the other devices, their order, the interleaving of their fixes or the number of
/// tasks; a device's fixes out of time order are put in order first.
@Suite("Fleet")
struct FleetTests {
  static let center = try! Coordinate(latitude: 51.50, longitude: -0.12)

  static func devices(seed: UInt64, count: Int) -> [(name: String, fixes: [LocationFix])] {
    (0..<count).map { k in
      ("dev-\(seed)-\(k)", SyntheticTrack(seed: seed &+ UInt64(k), count: 600, center: center, halfSide: 2_500, interval: 3).map(\.fix))
    }
  }

  static func fleet(seed: UInt64, platform: Platform) -> Fleet {
    let all = devices(seed: seed, count: 6).flatMap(\.fixes)
    let regions = SyntheticRegions(seed: seed, count: 25, center: center, radii: 100...500).generate(near: all.map(\.coordinate))
    return Fleet(regions: RegionSet(regions), platform: platform, seed: seed)
  }

  @Test(arguments: [(UInt64(1), Platform.Name.ios), (2, .android), (3, .server), (4, .iosDocumented)])
  func everyDeviceIsItsOwnTimelineWhateverTheRun(seed: UInt64, platform: Platform.Name) async throws {
    let fleet = Self.fleet(seed: seed, platform: .named(platform))
    let devices = Self.devices(seed: seed, count: 6)
    // The fixes interleaved as a fleet's log in time order would be.
    var random = SeededGenerator(seed: seed)
    var log: [(device: String, fix: LocationFix)] = devices.flatMap { d in d.fixes.map { (device: d.name, fix: $0) } }
    log.sort { ($0.fix.time, $0.device) < ($1.fix.time, $1.device) }
    let tracks = Fleet.tracks(of: log)
    #expect(tracks.map(\.device).sorted() == devices.map(\.name).sorted())
    let one = try await fleet.run(tracks, jobs: 1) { track, events, _ in Pair(device: track.device, events: events) }
    let many = try await fleet.run(tracks, jobs: 3) { track, events, _ in Pair(device: track.device, events: events) }
    #expect(one == many)
    // Each device alone, seeded from the fleet's seed and its name, gives the same events; so does
    // the fleet with the devices in another order.
    for pair in one {
      var alone = try fleet.timeline(for: pair.device)
      var events: [TimelineEvent] = []
      for fix in devices.first(where: { $0.name == pair.device })!.fixes { alone.process(fix, into: &events) }
      try alone.finish(into: &events)
      #expect(events == pair.events, "\(pair.device)")
    }
    var shuffled = tracks
    shuffled.shuffle(using: &random)
    let again = try await fleet.run(shuffled, jobs: 2) { track, events, _ in Pair(device: track.device, events: events) }
    #expect(again.sorted { $0.device < $1.device } == one.sorted { $0.device < $1.device })
    #expect(one.contains { !$0.events.isEmpty })
  }

  /// A device's fixes out of time order are sorted stably before its timeline sees them: the
  /// events are those of the sorted track, and the run counts the fixes that moved.
  @Test(arguments: UInt64(1)...4)
  func aTrackOutOfOrderIsSortedStably(seed: UInt64) async throws {
    let fleet = Self.fleet(seed: seed, platform: .ios)
    let fixes = Self.devices(seed: seed, count: 1)[0].fixes
    var random = SeededGenerator(seed: seed)
    var shuffled = fixes
    // Swap some neighbours, and repeat a time (which must keep its order).
    for _ in 0..<40 {
      let k = Int(random.next(below: UInt64(fixes.count - 1)))
      shuffled.swapAt(k, k + 1)
    }
    let track = Fleet.Track(device: "d", fixes: shuffled)
    let ordered = track.ordered()
    #expect(ordered.fixes == fixes)
    #expect(ordered.moved > 0 && ordered.moved <= 80)
    #expect(Fleet.Track(device: "d", fixes: fixes).ordered().moved == 0)
    let same = [LocationFix(time: 5, coordinate: Self.center), LocationFix(time: 5, coordinate: try Coordinate(latitude: 1, longitude: 1)), LocationFix(time: 1, coordinate: Self.center)]
    #expect(Fleet.Track(device: "d", fixes: same).ordered().fixes.map(\.coordinate) == [same[2], same[0], same[1]].map(\.coordinate))
    let fromShuffled = try await fleet.run([track], jobs: 1) { _, events, _ in events }
    let fromSorted = try await fleet.run([Fleet.Track(device: "d", fixes: fixes)], jobs: 1) { _, events, _ in events }
    #expect(fromShuffled == fromSorted)
  }

  /// The per-device seed depends on the fleet's seed and the device's name only.
  @Test func theSeedRuleIsStable() {
    #expect(Fleet.seed(7, device: "van-1") == Fleet.seed(7, device: "van-1"))
    #expect(Fleet.seed(7, device: "van-1") != Fleet.seed(7, device: "van-2"))
    #expect(Fleet.seed(7, device: "van-1") != Fleet.seed(8, device: "van-1"))
    // Pinned, from an independent computation (FNV-1a over the seed's eight bytes and the name's
    // UTF-8, then SplitMix64's finaliser, in Python): a change to the rule changes every device's
    // draws — the Dask integration's partitions rely on it — and must be seen.
    #expect(Fleet.seed(7, device: "van-1") == 11_241_322_656_872_940_624)
  }

  struct Pair: Sendable, Equatable {
    var device: String
    var events: [TimelineEvent]
  }
}
