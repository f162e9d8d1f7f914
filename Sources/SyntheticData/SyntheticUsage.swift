public import BackgroundRuntime
import SeededRandom

/// Deterministic app users for fetch simulations: who opens the app when. Each kind of user is
/// an archetype; the seed draws one user of that kind — their own habit times, spreads and
/// regularity — and then their launches, so a population of one archetype is many different
/// users, not one user repeated.
public enum SyntheticUsage: String, Sendable, CaseIterable {
  /// Opens the app once a day: weekdays at 07:45 ± 6 min (uniform), weekends at 09:15 ± 12 min,
  /// for 3–5 minutes.
  case morning
  /// Opens it about ten past every hour from 08:10 to 22:10, ± 4 min (uniform), for 60–120 s,
  /// and skips one hour in ten.
  case hourly
  /// Weekdays: on the way to work (a centre between 07:15 and 08:45, σ 5–15 min) and back (17:15
  /// to 19:30, σ 8–20 min), each on 85–98 % of days; weekends: once in a late morning (09:30 to
  /// 11:30, σ 30–50 min) on 60–85 % of days.
  case commuter
  /// Reads in the evening (a centre between 20:00 and 22:30, σ 10–25 min) on 70–95 % of days,
  /// now and then a second time within the hour.
  case evening
  /// Opens the app 1–5 times a day (3 on average) at random times between 09:00 and 23:00.
  case irregular
  /// Weekends: around noon (σ 30–60 min) and in the evening (18:00–20:30, σ 30–60 min), with one
  /// more launch at random in the afternoon on half of them; weekdays: at night (21:00–22:30, σ
  /// 20–40 min) on 25–50 % of days.
  case weekendHeavy
  /// Shifts rotating weekly: early weeks open the app before the shift (05:00–05:40, σ 5–10 min)
  /// and after it (14:15–15:00, σ 10–20 min); late weeks before (12:30–13:30) and after (22:30 to
  /// 23:30), seven days a week.
  case shiftWorker
  /// A commuter's habits, on local time wherever they are: for 6–10 days in the middle of the
  /// period the device clock is 5–9 hours ahead (a trip across time zones).
  case traveller
  /// Uses the app morning and evening (as a commuter, every day) until a day between a quarter and
  /// half-way through the period, then opens it only every 5–9 days.
  case lapsing

  /// The archetypes a population is drawn from: every kind except the two fixed examples.
  public static let populationKinds: [SyntheticUsage] = [.commuter, .evening, .irregular, .weekendHeavy, .shiftWorker, .traveller, .lapsing, .morning]

  /// The launches of `days` local days from the day of `start`, on a clock `utcOffset` seconds
  /// ahead of UTC (the traveller's moves during the trip), drawn from `seed`, in time order.
  public func launches(from start: Double, days: Int, utcOffset: Int, seed: UInt64) -> [UserLaunch] {
    var random = SeededGenerator(seed: seed)
    let first = LocalTime(start, utcOffset: utcOffset).day
    var launches: [UserLaunch] = []
    func add(day: Int, second: Double, offset: Int = utcOffset, duration: ClosedRange<Double> = 60...300) {
      let clamped = min(max(second.rounded(), 0), 86_399)
      launches.append(UserLaunch(
        time: LocalTime.time(day: day, secondOfDay: clamped, utcOffset: offset), duration: random.uniform(duration).rounded(), utcOffset: offset))
    }
    func normal(_ centre: Double, _ sigma: Double) -> Double {
      centre + sigma * StandardNormal.quantile(min(max(random.unit(), 0x1p-53), 1 - 0x1p-53))
    }
    func hours(_ h: Double) -> Double { h * 3_600 }
    func minutes(_ m: Double) -> Double { m * 60 }
    switch self {
    case .morning:
      for day in first..<(first + days) {
        let weekend = LocalTime.isWeekend(day: day)
        let centre = weekend ? 9 * 3_600 + 15 * 60 : 7 * 3_600 + 45 * 60
        let spread = weekend ? 12 * 60.0 : 6 * 60.0
        let second = (Double(centre) + random.uniform(-spread...spread)).rounded()
        let duration = random.uniform(180...300).rounded()
        launches.append(UserLaunch(time: LocalTime.time(day: day, secondOfDay: second, utcOffset: utcOffset), duration: duration, utcOffset: utcOffset))
      }
    case .hourly:
      for day in first..<(first + days) {
        for hour in 8...22 {
          let second = (Double(hour * 3_600 + 10 * 60) + random.uniform(-240...240)).rounded()
          let duration = random.uniform(60...120).rounded()
          guard random.uniform(0...1) >= 0.1 else { continue }
          launches.append(UserLaunch(time: LocalTime.time(day: day, secondOfDay: second, utcOffset: utcOffset), duration: duration, utcOffset: utcOffset))
        }
      }
    case .commuter, .traveller, .lapsing:
      let morning = (random.uniform(hours(7.25)...hours(8.75)), random.uniform(minutes(5)...minutes(15)), random.uniform(0.85...0.98))
      let evening = (random.uniform(hours(17.25)...hours(19.5)), random.uniform(minutes(8)...minutes(20)), random.uniform(0.85...0.98))
      let weekend = (random.uniform(hours(9.5)...hours(11.5)), random.uniform(minutes(30)...minutes(50)), random.uniform(0.6...0.85))
      let tripLength = Int(random.uniform(6...10).rounded())
      let tripStart = first + max(1, (days - tripLength) / 2)
      let tripOffset = utcOffset + Int(random.uniform(5...9).rounded()) * 3_600
      let lapseDay = first + Int(random.uniform(Double(days) / 4...Double(days) / 2).rounded())
      let lapseEvery = Int(random.uniform(5...9).rounded())
      for day in first..<(first + days) {
        let offset = self == .traveller && day >= tripStart && day < tripStart + tripLength ? tripOffset : utcOffset
        if self == .lapsing && day >= lapseDay {
          if (day - lapseDay) % lapseEvery == lapseEvery - 1 { add(day: day, second: normal(evening.0, evening.1)) }
          continue
        }
        if LocalTime.isWeekend(day: day) && self != .lapsing {
          if random.unit() < weekend.2 { add(day: day, second: normal(weekend.0, weekend.1), offset: offset) }
        } else {
          if random.unit() < morning.2 { add(day: day, second: normal(morning.0, morning.1), offset: offset) }
          if random.unit() < evening.2 { add(day: day, second: normal(evening.0, evening.1), offset: offset) }
        }
      }
    case .evening:
      let centre = random.uniform(hours(20)...hours(22.5))
      let sigma = random.uniform(minutes(10)...minutes(25))
      let regularity = random.uniform(0.7...0.95)
      for day in first..<(first + days) where random.unit() < regularity {
        let second = normal(centre, sigma)
        add(day: day, second: second)
        if random.unit() < 0.15 { add(day: day, second: second + random.uniform(minutes(10)...minutes(60))) }
      }
    case .irregular:
      for day in first..<(first + days) {
        let count = 1 + Int(random.next(below: 5))
        for second in (0..<count).map({ _ in random.uniform(hours(9)...hours(23)) }).sorted() { add(day: day, second: second) }
      }
    case .weekendHeavy:
      let noon = (random.uniform(hours(11.5)...hours(13)), random.uniform(minutes(30)...minutes(60)))
      let evening = (random.uniform(hours(18)...hours(20.5)), random.uniform(minutes(30)...minutes(60)))
      let night = (random.uniform(hours(21)...hours(22.5)), random.uniform(minutes(20)...minutes(40)), random.uniform(0.25...0.5))
      for day in first..<(first + days) {
        if LocalTime.isWeekend(day: day) {
          var seconds = [normal(noon.0, noon.1), normal(evening.0, evening.1)]
          if random.unit() < 0.5 { seconds.append(random.uniform(hours(14)...hours(17))) }
          for second in seconds.sorted() { add(day: day, second: second) }
        } else if random.unit() < night.2 {
          add(day: day, second: normal(night.0, night.1))
        }
      }
    case .shiftWorker:
      let early = (random.uniform(hours(5)...hours(5 + 2.0 / 3)), random.uniform(minutes(5)...minutes(10)), random.uniform(hours(14.25)...hours(15)), random.uniform(minutes(10)...minutes(20)))
      let late = (random.uniform(hours(12.5)...hours(13.5)), random.uniform(minutes(5)...minutes(10)), random.uniform(hours(22.5)...hours(23.5)), random.uniform(minutes(10)...minutes(20)))
      let firstWeekEarly = random.next(below: 2) == 0
      for day in first..<(first + days) {
        let isEarly = (((day - first) / 7) % 2 == 0) == firstWeekEarly
        let shift = isEarly ? early : late
        if random.unit() < 0.95 { add(day: day, second: normal(shift.0, shift.1)) }
        if random.unit() < 0.9 { add(day: day, second: normal(shift.2, shift.3)) }
      }
    }
    // A session starts at least a minute after the previous one ends.
    launches.sort { $0.time < $1.time }
    for k in launches.indices.dropFirst() where launches[k].time < launches[k - 1].time + launches[k - 1].duration + 60 {
      launches[k].time = launches[k - 1].time + launches[k - 1].duration + 60
    }
    return launches
  }
}
