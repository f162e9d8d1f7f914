import GeoWake
import Geodesy
import Geofencing
import SyntheticData
import Testing

@Suite("Fidelity replays")
struct FidelityTests {
  /// Quantiles against a direct reading of the type-7 definition, and the KS distance against
  /// the largest difference of the two step functions evaluated at every sample point.
  @Test(arguments: [UInt64(1), 2, 3])
  func statisticsAgreeWithBruteForce(seed: UInt64) {
    var g = SeededGenerator(seed: seed)
    for _ in 0..<200 {
      let a = (0..<Int(g.next(below: 40)) + 1).map { _ -> Double? in g.unit() < 0.1 ? nil : (g.unit() * 600).rounded() }
      let b = (0..<Int(g.next(below: 40)) + 1).map { _ -> Double? in g.unit() < 0.1 ? nil : (g.unit() * 600).rounded() }
      let da = DelayDistribution(a), db = DelayDistribution(b)
      #expect(da.missed == a.filter { $0 == nil }.count && da.count == a.count)
      let sorted = a.compactMap { $0 }.sorted()
      for p in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1] {
        guard !sorted.isEmpty else { #expect(da.quantile(p) == nil); continue }
        let h = Double(sorted.count - 1) * p
        let k = Int(h)
        let expected = k + 1 < sorted.count ? sorted[k] + (h - Double(k)) * (sorted[k + 1] - sorted[k]) : sorted[k]
        #expect(abs(da.quantile(p)! - expected) < 1e-9)
      }
      let points = da.delays + db.delays
      guard !da.delays.isEmpty, !db.delays.isEmpty else { #expect(da.kolmogorovSmirnovDistance(to: db) == nil); continue }
      func share(_ s: [Double], _ x: Double) -> Double { Double(s.filter { $0 <= x }.count) / Double(s.count) }
      let brute = points.map { abs(share(da.delays, $0) - share(db.delays, $0)) }.max()!
      #expect(abs(da.kolmogorovSmirnovDistance(to: db)! - brute) < 1e-12)
      #expect(da.kolmogorovSmirnovDistance(to: da) == 0)
    }
  }

  static let centre = try! Coordinate(latitude: 37.39, longitude: -122.08)

  /// A walk east from the centre of a 100 m fence at `speed`, one fix a second from `start`
  /// seconds after the departure at t = 1,000,000.
  static func departure(speed: Double, start: Double, exit: Double? = nil) -> MeasuredDeparture {
    let fence = try! CircularRegion(identifier: "home", center: centre, radius: 100)
    let track = stride(from: start, through: 1_800, by: 1).map { t in
      LocationFix(
        time: 1_000_000 + t, coordinate: Geodesic.wgs84.direct(from: centre, azimuth: 90, distance: speed * max(0, t))!.destination,
        horizontalAccuracy: nil)
    }
    return MeasuredDeparture(
      id: "walk", platform: .ios, departureTime: 1_000_000, exitTime: exit.map { 1_000_000 + $0 }, fence: fence, track: track)
  }

  /// With the server profile (no depth, no latency) the predicted exit is the first fix beyond
  /// the boundary: 100 m at 1.25 m/s is 80 s; whether the track begins before the departure or
  /// only 300 s after it (then the user walks in a straight line to its first fix).
  @Test func serverProfilePredictsTheGeometricExit() throws {
    let replay = DepartureReplay()
    let early = try replay.predictedExitDelay(Self.departure(speed: 1.25, start: -300), profile: .server, seed: 1)
    #expect(early == 80 || early == 81)
    let late = Self.departure(speed: 1.25, start: 300)
    let fixes = replay.fixes(late)
    #expect(fixes.first!.time == 1_000_000 - 60 && fixes.first!.coordinate == Self.centre)
    #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $1.time == $0.time + 1 })
    let predicted = try #require(try replay.predictedExitDelay(late, profile: .server, seed: 1))
    #expect(predicted == 80 || predicted == 81)
    // A user who never leaves: no exit.
    #expect(try replay.predictedExitDelay(Self.departure(speed: 0, start: -300), profile: .server, seed: 1) == nil)
  }

  /// The calibrated iOS profile on a walk: the exit comes after the 20 s confirmation, the drawn
  /// depth and the drawn latency, so between the geometric exit and its latency cap; seeds spread
  /// it, one seed repeats it.
  @Test func calibratedDelaysAreSeededAndBounded() throws {
    let replay = DepartureReplay()
    let walk = Self.departure(speed: 1.4, start: -300)
    // Without missed exits first: every seed gives one.
    var reporting = RegionMonitoringProfile.ios
    reporting.reportingRate = nil
    let delays = try (1...40).map { try #require(try replay.predictedExitDelay(walk, profile: reporting, seed: UInt64($0))) }
    #expect(delays.allSatisfy { $0 >= 100 / 1.4 + 20 && $0 <= 200 / 1.4 + 20 + 10 + 900 })
    #expect(Set(delays).count > 30)
    #expect(try replay.predictedExitDelay(walk, profile: reporting, seed: 7) == delays[6])
    // The calibrated profile misses about 5 % of exits from 100 m fences, the same seeds otherwise.
    let measured = try (1...400).map { try replay.predictedExitDelay(walk, profile: .ios, seed: UInt64($0)) }
    let missed = measured.filter { $0 == nil }.count
    #expect((4...40).contains(missed), "\(missed) of 400")
    #expect(zip(measured.prefix(40), delays).allSatisfy { $0 == nil || $0 == $1 })
    let run = try FidelityRun(departures: [walk, Self.departure(speed: 10, start: 100, exit: 200)], profiles: [.ios: .ios], seeds: [1, 2, 3])
    #expect(run.platforms.count == 1 && run.platforms[0].predicted.count == 6 && run.platforms[0].observed.count == 2)
  }
}
