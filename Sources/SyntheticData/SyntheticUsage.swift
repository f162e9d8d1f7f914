public import BackgroundRuntime

/// Deterministic app users for fetch simulations: who opens the app when: among
/// them a user who checks the app every morning and one who checks every hour.
public enum SyntheticUsage: String, Sendable, CaseIterable {
  /// Opens the app once a day: weekdays at 07:45 ± 6 min (uniform), weekends at 09:15 ± 12 min,
  /// for 3–5 minutes.
  case morning
  /// Opens it about ten past every hour from 08:10 to 22:10, ± 4 min (uniform), for 60–120 s,
  /// and skips one hour in ten.
  case hourly

  /// The launches of `days` local days from the day of `start`, on a clock `utcOffset` seconds
  /// ahead of UTC, drawn from `seed`.
  public func launches(from start: Double, days: Int, utcOffset: Int, seed: UInt64) -> [UserLaunch] {
    var random = SeededGenerator(seed: seed)
    let first = LocalTime(start, utcOffset: utcOffset).day
    var launches: [UserLaunch] = []
    for day in first..<(first + days) {
      switch self {
      case .morning:
        let weekend = LocalTime.isWeekend(day: day)
        let centre = weekend ? 9 * 3_600 + 15 * 60 : 7 * 3_600 + 45 * 60
        let spread = weekend ? 12 * 60.0 : 6 * 60.0
        let second = (Double(centre) + random.uniform(-spread...spread)).rounded()
        let duration = random.uniform(180...300).rounded()
        launches.append(UserLaunch(time: LocalTime.time(day: day, secondOfDay: second, utcOffset: utcOffset), duration: duration, utcOffset: utcOffset))
      case .hourly:
        for hour in 8...22 {
          let second = (Double(hour * 3_600 + 10 * 60) + random.uniform(-240...240)).rounded()
          let duration = random.uniform(60...120).rounded()
          guard random.uniform(0...1) >= 0.1 else { continue }
          launches.append(UserLaunch(time: LocalTime.time(day: day, secondOfDay: second, utcOffset: utcOffset), duration: duration, utcOffset: utcOffset))
        }
      }
    }
    return launches
  }
}
