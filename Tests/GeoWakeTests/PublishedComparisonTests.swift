import BackgroundRuntime
import CellHandoff
import Geofencing
import Testing

@testable import GeoWake

/// The calibrated profiles against published measurements of phones, on the synthetic
/// experiments of docs/fidelity.md (two data seeds, four replay seeds each).
@Suite("Published measurements reproduced")
struct PublishedComparisonTests {
  /// Rows the profiles reproduce within ±20 %: detection by radius, where exits reach the app,
  /// how far before (iOS) or after (Android) the crossing entries reach it, the distance moved at
  /// significant-change wakes, the silent-push budget.
  static let reproduced = [
    "entries reported, 10 m fences", "exits reported, 10 m fences", "entries reported, 50 m fences",
    "exits reported, 50 m fences", "entries reported, 100 m fences", "exits reported, 100 m fences",
    "exits reach the app, mean distance from the centre", "iOS entries, metres before the crossing",
    "Android entries, metres after the crossing", "significant changes, median distance moved",
    "significant changes, 90th percentile distance moved", "silent pushes that wake the app, per hour",
    "silent pushes, shortest time between two wakes", "silent pushes, longest time without a wake",
  ]

  /// Rows docs/fidelity.md reports as not reproduced within ±20 % on every seed, with the band the
  /// profiles fall in: entries reach the app at the centre where S&R's walkers were still
  /// walking, and the times of entries follow the walkers' speeds.
  static let gaps: [String: ClosedRange<Double>] = [
    "entries reach the app, mean distance from the centre": -0.5 ... -0.15,
    "iOS entries, seconds before the crossing": -0.5...0,
    "Android entries, seconds after the crossing": 0...0.5,
  ]

  @Test(arguments: [3, 4] as [UInt64])
  func calibratedProfilesReproduceThePublishedFigures(seed: UInt64) throws {
    let comparison = try PublishedComparison(seed: seed, seeds: [1, 2, 3, 4])
    #expect(comparison.measurements.count == Self.reproduced.count + Self.gaps.count)
    for m in comparison.measurements {
      let difference = try #require(m.difference, "\(m.name): no value")
      if Self.reproduced.contains(m.name) {
        #expect(m.isWithin(0.2), "\(m.name): \(m.reproduced!) against \(m.published), \(Int(difference * 100)) %")
      } else {
        let band = try #require(Self.gaps[m.name], "\(m.name) is neither reproduced nor a documented gap")
        #expect(band.contains(difference), "\(m.name): \(Int(difference * 100)) %")
      }
    }
  }

  /// The documented profiles are far from the same figures: Apple's rules put iOS entries after
  /// the crossing and report every crossing; the token bucket gives 2 silent wakes an hour.
  @Test func documentedProfilesDoNot() throws {
    let comparison = try PublishedComparison(
      seed: 3, seeds: [1, 2], ios: .iosDocumented, android: .androidDocumented, push: .iosDocumented)
    let rows = Dictionary(uniqueKeysWithValues: comparison.measurements.map { ($0.name, $0) })
    #expect(try #require(rows["iOS entries, metres before the crossing"]?.reproduced) < 0)
    #expect(try #require(rows["entries reported, 10 m fences"]?.isWithin(0.2)) == false)
    #expect(try #require(rows["silent pushes that wake the app, per hour"]?.reproduced).rounded() == 2)
  }

  /// Same seeds, same figures.
  @Test func deterministic() throws {
    let a = try PublishedComparison(seed: 5, seeds: [7])
    let b = try PublishedComparison(seed: 5, seeds: [7])
    #expect(a.measurements == b.measurements)
    #expect(try PublishedComparison(seed: 6, seeds: [7]).measurements != a.measurements)
  }

  /// The tolerance is relative to the nearer end of a published range, and 0 inside it.
  @Test func differenceToARange() {
    func row(_ value: Double?) -> PublishedMeasurement {
      PublishedMeasurement(name: "x", source: "s", unit: "km", published: 2.5...5, reproduced: value, reproducedBy: "r")
    }
    #expect(row(3).difference == 0 && row(3).isWithin(0))
    #expect(row(6).difference == 0.2 && row(6).isWithin(0.2) && !row(6.01).isWithin(0.2))
    #expect(row(2).difference == -0.2 && !row(1.9).isWithin(0.2))
    #expect(row(nil).difference == nil && !row(nil).isWithin(1))
  }
}
