import BackgroundRuntime
import CellHandoff
import GeoWake
import Geodesy
import Geofencing
import SeededRandom
import SyntheticData

/// Devices drawn from a seed, for the tests of whole timelines: tracks and regions, profiles,
/// cell layouts with and without significant changes, and apps with every kind of input — pushes
/// of every priority and type, launches for fetch, the user's sessions and force-quits, offline
/// and Low Power Mode periods, handlers that finish, use a background task or overrun.
enum DevicePopulation {
  static let center = try! Coordinate(latitude: 35.66, longitude: 139.70)

  /// A random tower map around the centre: ranges 700 m to 3 km, so that the track hands off.
  static func towers(seed: UInt64) throws -> TowerMap {
    var random = SeededGenerator(seed: seed)
    let towers = try (0..<80).map { k in
      let coordinate = try Coordinate(
        latitude: center.latitude + random.uniform(-0.06...0.06), longitude: center.longitude + random.uniform(-0.07...0.07))
      return CellTower(
        identity: CellIdentity(radio: .lte, mcc: 440, net: 10, area: 7, cell: 100 + k), coordinate: coordinate,
        range: random.uniform(700...3_000))
    }
    return try TowerMap(towers)
  }

  struct Setup {
    var fixes: [LocationFix]
    var regions: RegionSet
    var profile: RegionMonitoringProfile
    var seed: UInt64
    var cells: CellTimeline.Configuration?
    var app: DeviceTimeline.App?

    func timeline() throws -> DeviceTimeline {
      try DeviceTimeline(regions: regions, profile: profile, seed: seed, cells: cells, app: app)
    }

    func restored(_ snapshot: DeviceTimeline.Snapshot) throws -> DeviceTimeline {
      try DeviceTimeline(restoring: snapshot, regions: regions, profile: profile, seed: seed, cells: cells, app: app)
    }

    /// Every event of an uninterrupted run.
    func events() throws -> [TimelineEvent] {
      var timeline = try timeline()
      var events: [TimelineEvent] = []
      for fix in fixes { timeline.process(fix, into: &events) }
      try timeline.finish(into: &events)
      return events
    }
  }

  static let token = String(repeating: "ab", count: 32)

  /// A provider request of a random kind: silent (priority 5 or 1, now and then a mistaken 10),
  /// an alert (priority 10, 5 or 1, some content-available, some with a collapse ID).
  static func request(at time: Double, _ random: inout SeededGenerator) -> ProviderRequest {
    var headers: [ProviderRequest.Header] = [.init("apns-topic", "com.example.news")]
    let payload: String
    switch random.next(below: 10) {
    case 0..<5:
      headers += [.init("apns-push-type", "background"), .init("apns-priority", ["5", "5", "5", "1", "10"][Int(random.next(below: 5))])]
      payload = #"{"aps":{"content-available":1}}"#
    case 5..<8:
      headers += [.init("apns-push-type", "alert"), .init("apns-priority", ["10", "5", "1"][Int(random.next(below: 3))])]
      payload = random.next(below: 3) == 0 ? #"{"aps":{"alert":"news","content-available":1}}"# : #"{"aps":{"alert":"news"}}"#
    default:
      headers += [.init("apns-push-type", "alert"), .init("apns-priority", "10"), .init("apns-collapse-id", "score")]
      payload = #"{"aps":{"alert":"score"}}"#
    }
    if random.next(below: 10) == 0 { headers.append(.init("apns-expiration", "0")) }
    return ProviderRequest(time: time, token: token, headers: headers, payload: Array(payload.utf8))
  }

  /// A handler: quick, slow, with a background task (ended or not on expiration), or overrunning.
  static func behaviour(_ random: inout SeededGenerator) -> HandlerBehaviour {
    switch random.next(below: 6) {
    case 0: return HandlerBehaviour(work: random.uniform(0.5...3))
    case 1: return HandlerBehaviour(work: random.uniform(3...8), variation: 0.3)
    case 2: return HandlerBehaviour(work: random.uniform(2...6), backgroundTask: random.uniform(5...40))
    case 3: return HandlerBehaviour(work: 4, backgroundTask: 45, endsTaskOnExpiration: false)
    case 4: return HandlerBehaviour(work: random.uniform(12...40))
    default: return HandlerBehaviour(work: random.uniform(1...5), failureRate: 0.3)
    }
  }

  /// A population of devices: profiles, cell layouts (synthetic and a tower map, with and
  /// without significant changes), apps with and without pushes, launches, sessions,
  /// force-quits and conditions, all from `seed`.
  static func setup(seed: UInt64) throws -> Setup {
    var random = SeededGenerator(seed: seed &* 7919)
    let fixes = SyntheticTrack(
      seed: seed, count: 1_500 + Int(random.next(below: 1_500)), center: center, halfSide: 4_000, interval: random.uniform(1...6)
    ).map(\.fix)
    let regions = SyntheticRegions(seed: seed, count: 10 + Int(random.next(below: 20)), center: center, radii: 120...700)
      .generate(near: fixes.map(\.coordinate))
    let profiles: [RegionMonitoringProfile] = [.ios, .android, .server, .iosDocumented]
    let profile = profiles[Int(random.next(below: UInt64(profiles.count)))]
    let cells: CellTimeline.Configuration?
    switch random.next(below: 4) {
    case 0: cells = nil
    case 1: cells = .init(layout: .hexagonal(spacing: random.uniform(600...2_000)), significantChanges: .ios, description: "synthetic")
    case 2: cells = .init(layout: .towers(try towers(seed: seed)), significantChanges: .iosWithPeriodicWake, description: "towers")
    default: cells = .init(layout: .towers(try towers(seed: seed)), significantChanges: nil, description: "towers")
    }
    var app: DeviceTimeline.App?
    if random.next(below: 5) != 0 {
      let configuration = AppConfiguration(backgroundModes: [.fetch, .remoteNotification, .location], fetchPolicy: .minimum)
      let start = fixes[0].time
      let span = fixes[fixes.count - 1].time - start
      var sessions: [(start: Double, duration: Double)] = []
      var forceQuits: [Double] = []
      if random.next(below: 2) == 0 {
        var t = start + random.uniform(0...(span / 3))
        while t < start + span {
          let duration = random.uniform(20...300)
          sessions.append((t, duration))
          if random.next(below: 3) == 0 { forceQuits.append(t + duration + random.uniform(5...600)) }
          t += duration + random.uniform(900...3_000)
        }
      }
      let scenario = AppScenario(
        seed: seed,
        behaviours: [.location: behaviour(&random), .fetch: behaviour(&random), .remoteNotification: behaviour(&random)],
        sessions: sessions, forceQuits: forceQuits, configuration: configuration)
      let pushes = random.next(below: 2) == 0 ? nil : (0..<Int(2 + random.next(below: 12))).map { _ in
        request(at: start + random.uniform(0...span), &random)
      }.sorted { $0.time < $1.time }
      let launches = random.next(below: 2) == 0 ? nil : ((0..<6).map { k in UserLaunch(time: start - 86_400 + Double(k) * 3_600, duration: 60) }
        + [UserLaunch(time: start + span / 2, duration: 45)])
      var conditions = DeviceConditions()
      if random.next(below: 2) == 0 {
        conditions = DeviceConditions((0..<3).map { _ in
          let from = start + random.uniform(0...span)
          return .init(start: from, end: from + random.uniform(60...1_200), condition: random.next(below: 2) == 0 ? .offline : .lowPowerMode)
        })
      }
      app = .init(scenario: scenario, pushes: pushes, launches: launches, conditions: conditions)
    }
    return Setup(fixes: fixes, regions: RegionSet(regions), profile: profile, seed: seed, cells: cells, app: app)
  }
}
