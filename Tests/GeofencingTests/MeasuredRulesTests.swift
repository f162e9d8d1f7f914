import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// The rules the calibrated profiles add to the vendors' ones: early entries, missed crossings,
/// geofences evaluated every so often.
@Suite("Measured rules: early entries, missed crossings, evaluation interval")
struct MeasuredRulesTests {
  /// Fixes once a second along a straight line through `points` (metres east of `origin`, then
  /// north), at `speed` m/s.
  static func path(_ from: (Double, Double), _ to: (Double, Double), speed: Double, start: Double = 1_000_000, accuracy: Double = 5)
    -> [LocationFix]
  {
    let dx = to.0 - from.0, dy = to.1 - from.1
    let length = (dx * dx + dy * dy).squareRoot()
    let steps = Int((length / speed).rounded(.up))
    return (0...steps).map { k in
      let f = Double(k) / Double(steps)
      let x = from.0 + f * dx, y = from.1 + f * dy
      let east = offset(origin, 90, abs(x))
      let point = x < 0 ? offset(origin, 270, -x) : east
      let placed = y == 0 ? point : offset(point, y < 0 ? 180 : 0, abs(y))
      return LocationFix(time: start + Double(k), coordinate: placed, horizontalAccuracy: accuracy)
    }
  }

  static func distance(_ fix: LocationFix, from c: CircularRegion) -> Double {
    Geodesic.wgs84.distance(from: c.center, to: fix.coordinate)
  }

  /// Walking straight in and out through the centre under a profile with an entry lead: the entry
  /// is confirmed by a fix no farther than the radius plus the largest lead (plus the walk during
  /// the confirmation time), some come before the geometric crossing, and enters and exits
  /// alternate over many seeds.
  @Test func earlyEntriesComeWithinTheLead() throws {
    var profile = RegionMonitoringProfile.ios
    profile.reportingRate = nil
    let lead = profile.entryLead!.bounds.upperBound
    let circle = try CircularRegion(identifier: "c", center: origin, radius: 100)
    let fixes = Self.path((-800, 0), (800, 0), speed: 1)
    var early = 0
    for seed in UInt64(1)...60 {
      let (_, events) = try monitor(fixes, [.circle(circle)], profile, seed: seed)
      #expect(transitionsAlternate(events))
      let enters = events.filter { $0.kind == .enter }
      #expect(enters.count == 1, "seed \(seed): \(events.map(\.reason))")
      guard let enter = enters.first else { continue }
      guard case .leadReached(let at, let by) = enter.cause else {
        Issue.record("seed \(seed): the entry was not early: \(enter.reason)")
        continue
      }
      #expect(Self.distance(fixes[at], from: circle) <= 100 + lead + 1)
      #expect(Self.distance(fixes[by], from: circle) <= 100 + lead + 1)
      // The geometric crossing is 700 s in.
      if enter.deliveredAt! < fixes[0].time + 700 { early += 1 }
      #expect(events.filter { $0.kind == .exit }.count == 1)
    }
    #expect(early > 10 && early < 60, "\(early) of 60 entries before the crossing")
  }

  /// A walk passing the circle 50 m outside, within the lead but never inside: an early entry,
  /// then an exit once beyond the lead again (with the trigger depth), both with the lead cause.
  /// Without a lead, nothing.
  @Test func passingByWithinTheLeadEntersAndLeaves() throws {
    var profile = RegionMonitoringProfile.ios
    profile.reportingRate = nil
    profile.entryLead = .fixed(100)
    let circle = try CircularRegion(identifier: "c", center: origin, radius: 100)
    let fixes = Self.path((-1_000, 150), (1_000, 150), speed: 1.4)
    let (_, events) = try monitor(fixes, [.circle(circle)], profile, seed: 5)
    #expect(events.map(\.kind) == [.enter, .exit], "\(events.map(\.reason))")
    for e in events {
      guard case .leadReached(let at, let by) = e.cause else {
        Issue.record("\(e.kind): \(e.cause)")
        continue
      }
      #expect(at <= by)
      if e.kind == .enter { #expect(Self.distance(fixes[at], from: circle) <= 200 + 1e-6) }
      if e.kind == .exit { #expect(Self.distance(fixes[at], from: circle) > 200) }
    }
    #expect(events.first?.reason.contains("enters circles early") == true)
    var plain = profile
    plain.entryLead = nil
    #expect(try monitor(fixes, [.circle(circle)], plain, seed: 5).1.isEmpty)
  }

  /// Over 1,000 walks through a 50 m circle, the share of entries and exits never reported is
  /// the profile's rate within binomial bounds (4 standard deviations); a missed one keeps its
  /// event, undelivered, and the state still changes (enters and exits alternate).
  @Test func missedCrossingsFollowTheRate() throws {
    var profile = RegionMonitoringProfile.server
    profile.reportingRate = ReportingRate(radii: [10, 100], enter: [0.5, 0.9], exit: [0.4, 0.8])
    let circle = try CircularRegion(identifier: "c", center: origin, radius: 50)
    // At 50 m: enter 0.5 + 0.4 × (40 / 90), exit 0.4 + 0.4 × (40 / 90).
    let expected = (enter: 0.5 + 0.4 * 40 / 90, exit: 0.4 + 0.4 * 40 / 90)
    #expect(abs(profile.reportingRate!.rate(radius: 50, exit: false) - expected.enter) < 1e-12)
    #expect(profile.reportingRate!.rate(radius: 5, exit: true) == 0.4 && profile.reportingRate!.rate(radius: 500, exit: true) == 0.8)
    var missed = (enter: 0, exit: 0)
    let walks = 1_000
    for k in 0..<walks {
      let fixes = Self.path((-200, 0), (200, 0), speed: 2, start: 1_000_000 + Double(k) * 1_000)
      let (_, events) = try monitor(fixes, [.circle(circle)], profile, seed: 9)
      #expect(transitionsAlternate(events))
      for e in events where e.kind == .enter || e.kind == .exit {
        guard e.deliveredAt == nil else { continue }
        #expect(e.withheld == .missed && e.reason.contains("never reported"))
        if e.kind == .enter { missed.enter += 1 } else { missed.exit += 1 }
      }
    }
    for (count, rate) in [(missed.enter, expected.enter), (missed.exit, expected.exit)] {
      let mean = Double(walks) * (1 - rate)
      let sd = (Double(walks) * rate * (1 - rate)).squareRoot()
      #expect(abs(Double(count) - mean) <= 4 * sd, "\(count) missed, expected about \(mean)")
    }
  }

  /// With an evaluation interval, a crossing is confirmed only at the first fix at or after an
  /// evaluation instant: the delay from the crossing to the confirming fix is under the interval
  /// plus a fix, and over seeds (phases) it averages about half the interval.
  @Test func evaluationIntervalDelaysConfirmation() throws {
    var profile = RegionMonitoringProfile.server
    profile.evaluationInterval = 120
    let circle = try CircularRegion(identifier: "c", center: origin, radius: 200)
    let fixes = Self.path((-600, 0), (0, 0), speed: 1)
    var delays: [Double] = []
    for seed in UInt64(1)...200 {
      let (_, events) = try monitor(fixes, [.circle(circle)], profile, seed: seed)
      let enter = try #require(events.first { $0.kind == .enter })
      guard case .crossingConfirmed(_, _, let by) = enter.cause else { continue }
      let delay = fixes[by].time - enter.crossedAt
      #expect(delay >= 0 && delay <= 121, "seed \(seed): \(delay)")
      delays.append(delay)
    }
    let mean = delays.reduce(0, +) / Double(delays.count)
    #expect(delays.count == 200 && mean > 45 && mean < 75, "mean delay \(mean)")
    #expect(Set(delays.map { Int($0) }).count > 50)
  }

  /// Under every profile, on random walks through random circles with long-tailed latencies, a
  /// region's events reach the app in the order they happened.
  @Test(arguments: [31, 32, 33] as [UInt64])
  func eventsOfARegionArriveInOrder(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let regions: [Region] = try (0..<15).map { k in
      .circle(try CircularRegion(
        identifier: RegionIdentifier("r\(k)"), center: offset(origin, rng.uniform(0...360), rng.uniform(0...1_500)),
        radius: rng.uniform(50...300)))
    }
    var position = origin
    var fixes: [LocationFix] = []
    var time = 1_700_000_000.0
    for _ in 0..<3_000 {
      position = offset(position, rng.uniform(0...360), rng.uniform(0...25))
      time += rng.uniform(1...10)
      fixes.append(LocationFix(time: time, coordinate: position, horizontalAccuracy: rng.uniform(5...30)))
    }
    var checked = 0
    for profile in RegionMonitoringProfile.named.values.sorted(by: { $0.name < $1.name }) {
      let (_, events) = try monitor(fixes, regions, profile, seed: seed)
      var last: [RegionIdentifier: Double] = [:]
      for e in events where e.kind != .state {
        guard let delivered = e.deliveredAt else { continue }
        if let previous = last[e.region] { #expect(delivered >= previous, "\(profile.name): \(e.reason)") }
        last[e.region] = delivered
        checked += 1
      }
    }
    #expect(checked > 100)
  }

  /// The calibrated Android profile by the phone's version: before 8 (and for a version not
  /// read), `android`; from 8 on, `android8`, which evaluates every 120 s.
  @Test func androidProfileByVersion() {
    #expect(RegionMonitoringProfile.android(version: "Android 6.0.1").name == "android")
    #expect(RegionMonitoringProfile.android(version: "7.1.2").name == "android")
    #expect(RegionMonitoringProfile.android(version: "Android 8.0").name == "android8")
    #expect(RegionMonitoringProfile.android(version: "14").name == "android8")
    #expect(RegionMonitoringProfile.android(version: "unknown").name == "android")
    #expect(RegionMonitoringProfile.android8.evaluationInterval == 120 && RegionMonitoringProfile.android.evaluationInterval == nil)
    #expect(RegionMonitoringProfile.androidDocumented.evaluationInterval == nil && RegionMonitoringProfile.androidDocumented.reportingRate == nil)
    #expect(RegionMonitoringProfile.iosDocumented.entryLead == nil && RegionMonitoringProfile.iosDocumented.reportingRate == nil)
  }

  /// Profile values the monitor cannot use are refused, naming the field.
  @Test func invalidMeasuredFieldsAreRefused() {
    var profile = RegionMonitoringProfile.ios
    profile.reportingRate = ReportingRate(radii: [50, 10], enter: [1, 1], exit: [1, 1])
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try profile.validate() }
    profile.reportingRate = ReportingRate(radii: [10], enter: [1.2], exit: [1])
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try profile.validate() }
    profile.reportingRate = ReportingRate(radii: [10, 20], enter: [1], exit: [1, 1])
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try profile.validate() }
    profile = .android8
    profile.evaluationInterval = 0
    do {
      try profile.validate()
      Issue.record("accepted")
    } catch {
      #expect(error.field == "evaluationInterval")
    }
    profile = .ios
    profile.entryLead = .uniform(-5...10)
    #expect(throws: RegionMonitoringProfile.InvalidValue.self) { try profile.validate() }
  }
}
