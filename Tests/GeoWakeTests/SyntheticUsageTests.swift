import BackgroundRuntime
import SyntheticData
import Testing

/// The generated users behave as their archetypes say, over many seeds: one user per seed,
/// different users for different seeds, sessions that never overlap.
@Suite("Synthetic usage archetypes")
struct SyntheticUsageTests {
  /// 2024-04-22 00:00 local (UTC+2), a Monday.
  static let start = 1_713_736_800.0
  static let offset = 7_200

  static func launches(_ kind: SyntheticUsage, seed: UInt64, days: Int = 28) -> [UserLaunch] {
    kind.launches(from: start, days: days, utcOffset: offset, seed: seed)
  }

  static func local(_ l: UserLaunch) -> LocalTime { LocalTime(l.time, utcOffset: l.utcOffset) }

  @Test(arguments: SyntheticUsage.allCases)
  func deterministicOrderedAndNeverOverlapping(_ kind: SyntheticUsage) {
    for seed in UInt64(1)...20 {
      let a = Self.launches(kind, seed: seed)
      #expect(a == Self.launches(kind, seed: seed))
      #expect(!a.isEmpty)
      for (p, q) in zip(a, a.dropFirst()) { #expect(q.time >= p.time + p.duration + 60, "\(kind) seed \(seed)") }
    }
    #expect(Self.launches(kind, seed: 1) != Self.launches(kind, seed: 2))
  }

  @Test func commutersOpenTheAppTwiceOnWorkdaysAndAtMostOnceAtWeekends() {
    for seed in UInt64(1)...20 {
      let byDay = Dictionary(grouping: Self.launches(.commuter, seed: seed)) { Self.local($0).day }
      var workdays = 0
      var twice = 0
      for (day, launches) in byDay {
        if LocalTime.isWeekend(day: day) {
          #expect(launches.count == 1)
        } else {
          workdays += 1
          if launches.count == 2 { twice += 1 }
          #expect(launches.allSatisfy { (6.5 * 3_600...20.5 * 3_600).contains(Self.local($0).secondOfDay) })
        }
      }
      #expect(twice * 10 >= workdays * 6, "seed \(seed): \(twice) of \(workdays)")
    }
  }

  @Test func travellersMoveTheirClockForAWeekOrSo() {
    for seed in UInt64(1)...20 {
      let launches = Self.launches(.traveller, seed: seed)
      let away = launches.filter { $0.utcOffset != Self.offset }
      #expect(!away.isEmpty)
      let ahead = Set(away.map { $0.utcOffset - Self.offset })
      #expect(ahead.count == 1 && (5 * 3_600...9 * 3_600).contains(ahead.first!))
      let days = Set(away.map { Self.local($0).day })
      #expect((4...10).contains(days.count), "seed \(seed): \(days.count) days away")
      // Local habits kept: the morning launches stay in the morning on the trip's clock.
      #expect(away.allSatisfy { (6 * 3_600...21 * 3_600).contains(Self.local($0).secondOfDay) })
    }
  }

  @Test func lapsingUsersStopOpeningTheAppDaily() {
    for seed in UInt64(1)...20 {
      let days = Self.launches(.lapsing, seed: seed).map { Self.local($0).day }
      let first = days[0]
      let late = days.filter { $0 >= first + 14 }
      // The second half of 28 days: a launch every 5–9 days at most.
      #expect(late.count <= 3, "seed \(seed): \(late.count) launches in the last 14 days")
      #expect(Set(days.filter { $0 < first + 7 }).count >= 6)
    }
  }

  @Test func shiftWorkersAlternateEarlyAndLateWeeks() {
    for seed in UInt64(1)...20 {
      let launches = Self.launches(.shiftWorker, seed: seed)
      let first = Self.local(launches[0]).day
      func earliest(week: Int) -> Double {
        launches.filter { (Self.local($0).day - first) / 7 == week }.map { Self.local($0).secondOfDay }.min() ?? 0
      }
      let weeks = (0..<4).map(earliest)
      // Early weeks start before 06:00, late weeks after 12:00, alternating.
      #expect(zip(weeks, weeks.dropFirst()).allSatisfy { ($0 < 6 * 3_600) != ($1 < 6 * 3_600) }, "seed \(seed): \(weeks)")
    }
  }

  @Test func irregularUsersOpenTheAppOneToFiveTimesADayInTheDaytime() {
    for seed in UInt64(1)...20 {
      let byDay = Dictionary(grouping: Self.launches(.irregular, seed: seed)) { Self.local($0).day }
      #expect(byDay.count == 28)
      #expect(byDay.values.allSatisfy { (1...5).contains($0.count) })
      #expect(byDay.values.joined().allSatisfy { Self.local($0).secondOfDay >= 9 * 3_600 })
    }
  }
}
