/// A window of the day in which the user tends to open the app, learned from the launch history.
public struct LaunchHabit: Hashable, Sendable, Codable {
  /// Seconds after local midnight: the start of its span (where the expected launches per day
  /// within ±``FetchProfile/habitRadius`` first reach the support threshold), the habit's early
  /// edge (the ``FetchProfile/habitEarlyQuantile`` of its launches), its median launch, and the
  /// end of its span.
  public var start: Double
  public var earlyEdge: Double
  public var median: Double
  public var end: Double
  /// The largest expected launches per day within ±``FetchProfile/habitRadius`` of a minute of
  /// the span: how busy the window is at its busiest.
  public var peakDensity: Double
  /// Expected launches per day in the habit's span (decayed history).
  public var support: Double
  /// Launches seen in it.
  public var launches: Int
  /// The share of its launches (decayed) that came before the fetch served at its early edge
  /// on their own day: how often the user opens the app earlier than the history foretold.
  public var earlyShare: Double
  /// Whether it was learned from weekend days, weekdays, or all days pooled.
  public var dayKind: DayKind

  public enum DayKind: String, Hashable, Sendable, Codable {
    case weekday, weekend, all
  }
}

/// The user's launch history and the habits it shows (docs/platform-rules.md, background fetch: "fetch shortly before
/// predicted launches"; time-of-day and day-of-week patterns).
///
/// **Model.** Launches are kept for ``FetchProfile/historyDays``. A day *d* days before the day
/// planned for weighs 2^(−(d − 1)/``FetchProfile/historyHalfLifeDays``). Weekdays and weekends are
/// learned apart (once each kind has ``FetchProfile/minimumDaysPerKind`` observed days; before, all
/// days are pooled). For the planned day's kind, launches are binned by minute of local time; the
/// density at a minute is the weighted count within ±``FetchProfile/habitRadius`` divided by the
/// weight of the observed days of that kind, i.e. the expected launches per day around that minute.
/// A launch window is a maximal run of minutes whose density within ±``FetchProfile/windowRadius``
/// reaches ``FetchProfile/windowEdgeSupport`` (so that it takes in the tails of a habit, and a
/// sparse habit's launches make one window), split half-way between the habit cores it holds
/// (runs whose density within ±``FetchProfile/habitRadius`` reaches ``FetchProfile/habitSupport``,
/// more than two radii apart: the hours of an hourly user stay apart), and kept when its launches number at least
/// ``FetchProfile/habitSupport`` a day; its launches (those inside it) give its median and its
/// early edge (their ``FetchProfile/habitEarlyQuantile``, extended below the earliest launch when
/// they are too few to hold it: ``earlyEdge(_:_:median:quantile:)``), its densest minute within
/// ±``FetchProfile/habitRadius`` its peak. Runs do not wrap
/// around midnight. The observed period starts with the first launch's day.
public struct LaunchHistory: Sendable {
  public let profile: FetchProfile
  /// Launch times (seconds since the Unix epoch) and their local days, in time order, each with
  /// whether it came outside the launch windows its day had (``FetchProfile/launchLead`` before
  /// each until it closed) and whether it came in one before the fetch its early edge is served
  /// with (false on a day still learning).
  var launches: [(time: Double, day: Int, secondOfDay: Double, missed: Bool, early: Bool)] = []
  /// The first observed local day, and the clock offset of the latest launch.
  public internal(set) var firstDay: Int?
  public internal(set) var utcOffset = 0
  /// Habits already worked out, by day: a day's habits depend only on launches before it, so an
  /// entry stays valid until a launch on an earlier day is observed.
  private var cache: [(day: Int, habits: [LaunchHabit], outside: Double)] = []

  public init(profile: FetchProfile) { self.profile = profile }

  /// Launches held.
  public var count: Int { launches.count }

  /// Records a launch at `time` on a clock `utcOffset` seconds ahead of UTC (launches must come in
  /// time order).
  public mutating func observe(launchAt time: Double, utcOffset: Int) {
    let local = LocalTime(time, utcOffset: utcOffset)
    self.utcOffset = utcOffset
    if firstDay == nil { firstDay = local.day }
    // The day's windows come from the launches before it, so they are those planned with.
    let windows = habits(forDay: local.day)
    let learning = isLearning(day: local.day)
    let window = windows.first { local.secondOfDay >= $0.start - profile.launchLead && local.secondOfDay < $0.end }
    let early = !learning && window.map { local.secondOfDay < $0.earlyEdge - profile.launchLead } == true
    launches.append((time, local.day, local.secondOfDay, !learning && window == nil, early))
    cache.removeAll { $0.day > local.day }
    let oldest = local.day - profile.historyDays
    if let first = launches.first, first.day < oldest {
      launches.removeFirst(launches.firstIndex { $0.day >= oldest } ?? launches.count)
    }
  }

  /// The part of the day in which the user opens the app: from the 5th to the 95th percentile of
  /// the local times of the launches held (seconds after midnight); nil without launches.
  public var activeHours: ClosedRange<Double>? {
    guard !launches.isEmpty else { return nil }
    let seconds = launches.map(\.secondOfDay).sorted()
    func rank(_ p: Double) -> Double { seconds[max(0, min(seconds.count - 1, Int((p * Double(seconds.count)).rounded(.up)) - 1))] }
    return rank(0.05)...rank(0.95)
  }

  /// Whether fewer than ``FetchProfile/minimumHistoryDays`` days are observed before `day`: too
  /// few to learn windows from.
  public func isLearning(day: Int) -> Bool {
    observedDays(before: day) < profile.minimumHistoryDays
  }

  /// Days observed before local day `day` (at most ``FetchProfile/historyDays``).
  public func observedDays(before day: Int) -> Int {
    guard let firstDay else { return 0 }
    return max(0, min(profile.historyDays, day - firstDay))
  }

  /// The launch windows for local day `day`, in time-of-day order; empty while fewer than
  /// ``FetchProfile/minimumHistoryDays`` days are observed (see ``isLearning(day:)``).
  public mutating func habits(forDay day: Int) -> [LaunchHabit] {
    learned(forDay: day).habits
  }

  /// The launches a day that came outside the launch windows their own days had, on the days of
  /// `day`'s kind before it (decayed as the windows' history; 0 while learning): how often the
  /// windows fail to predict the user. Launches at no set time show here.
  public mutating func launchesOutsideWindows(forDay day: Int) -> Double {
    learned(forDay: day).outside
  }

  private mutating func learned(forDay day: Int) -> (habits: [LaunchHabit], outside: Double) {
    if let hit = cache.first(where: { $0.day == day }) { return (hit.habits, hit.outside) }
    let learned = learnHabits(forDay: day)
    if cache.count >= 4 { cache.removeFirst() }
    cache.append((day, learned.habits, learned.outside))
    return learned
  }

  private func learnHabits(forDay day: Int) -> (habits: [LaunchHabit], outside: Double) {
    let observed = observedDays(before: day)
    guard observed >= profile.minimumHistoryDays else { return ([], 0) }
    let weekend = LocalTime.isWeekend(day: day)
    var kindDays = 0
    for d in (day - observed)..<day where LocalTime.isWeekend(day: d) == weekend { kindDays += 1 }
    let kind: LaunchHabit.DayKind = kindDays >= profile.minimumDaysPerKind ? (weekend ? .weekend : .weekday) : .all
    func counts(_ d: Int) -> Bool { kind == .all || LocalTime.isWeekend(day: d) == weekend }
    func weight(_ d: Int) -> Double { Decay.pow2(-Double(day - d - 1) / profile.historyHalfLifeDays) }

    var dayWeight = 0.0
    for d in (day - observed)..<day where counts(d) { dayWeight += weight(d) }
    guard dayWeight > 0 else { return ([], 0) }
    let minutes = 1_440
    var bins = [Double](repeating: 0, count: minutes)
    for l in launches where l.day < day && l.day >= day - observed && counts(l.day) {
      bins[min(minutes - 1, Int(l.secondOfDay / 60))] += weight(l.day)
    }
    // Density: weighted launches within ±radius, per weighted day (a running window sum).
    func density(radius: Double) -> [Double] {
      let r = max(0, Int((radius / 60).rounded()))
      var density = [Double](repeating: 0, count: minutes)
      var window = 0.0
      for m in 0..<min(r, minutes) { window += bins[m] }
      for m in 0..<minutes {
        if m + r < minutes { window += bins[m + r] }
        if m - r - 1 >= 0 { window -= bins[m - r - 1] }
        density[m] = window / dayWeight
      }
      return density
    }
    // Windows are found with the wide radius (a sparse habit's launches make one window, not one
    // each); a wide run holding several habit cores (narrow runs reaching the support, as the
    // hourly launches of a frequent user) is split between them; how busy a window is comes
    // from the narrow radius.
    let wide = density(radius: profile.windowRadius)
    let narrow = density(radius: profile.habitRadius)
    var runs: [ClosedRange<Int>] = []
    var m = 0
    while m < minutes {
      guard wide[m] >= profile.windowEdgeSupport * (1 - 1e-12) else {
        m += 1
        continue
      }
      var end = m
      while end + 1 < minutes, wide[end + 1] >= profile.windowEdgeSupport * (1 - 1e-12) { end += 1 }
      var cores: [ClosedRange<Int>] = []
      var c = m
      while c <= end {
        guard narrow[c] >= profile.habitSupport * (1 - 1e-12) else {
          c += 1
          continue
        }
        var coreEnd = c
        while coreEnd + 1 <= end, narrow[coreEnd + 1] >= profile.habitSupport * (1 - 1e-12) { coreEnd += 1 }
        // Cores closer than two habit radii are one habit with an uneven history.
        if let last = cores.last, c - last.upperBound <= Int(2 * profile.habitRadius / 60) {
          cores[cores.count - 1] = last.lowerBound...coreEnd
        } else {
          cores.append(c...coreEnd)
        }
        c = coreEnd + 1
      }
      var lower = m
      for (a, b) in zip(cores, cores.dropFirst()) {
        let cut = (a.upperBound + b.lowerBound + 1) / 2
        runs.append(lower...(cut - 1))
        lower = cut
      }
      runs.append(lower...end)
      m = end + 1
    }
    var habits: [LaunchHabit] = []
    for run in runs {
      let start = Double(run.lowerBound * 60)
      let stop = Double((run.upperBound + 1) * 60)
      var inside: [(second: Double, weight: Double)] = []
      var early = 0.0
      for l in launches where l.day < day && l.day >= day - observed && counts(l.day) && l.secondOfDay >= start && l.secondOfDay < stop {
        inside.append((l.secondOfDay, weight(l.day)))
        if l.early { early += weight(l.day) }
      }
      if !inside.isEmpty, inside.reduce(0, { $0 + $1.weight }) / dayWeight >= profile.habitSupport * (1 - 1e-12) {
        inside.sort { $0.second < $1.second }
        let total = inside.reduce(0) { $0 + $1.weight }
        let median = Self.quantile(inside, total, 0.5)
        habits.append(LaunchHabit(
          start: start, earlyEdge: max(start, Self.earlyEdge(inside, total, median: median, quantile: profile.habitEarlyQuantile)),
          median: median, end: stop, peakDensity: narrow[run].max() ?? 0, support: total / dayWeight,
          launches: inside.count, earlyShare: early / total, dayKind: kind))
      }
    }
    var missed = 0.0
    for l in launches where l.missed && l.day < day && l.day >= day - observed && counts(l.day) { missed += weight(l.day) }
    return (habits, missed / dayWeight)
  }

  /// The early edge of the day's first launch on a day of `day`'s kind (seconds after local
  /// midnight): the ``FetchProfile/habitEarlyQuantile`` of the first launch of each past day of
  /// that kind with a launch (decayed as the windows' history, estimated as a window's early edge;
  /// weekdays and weekends apart once each has ``FetchProfile/minimumDaysPerKind`` days); nil
  /// while learning. The day's first launch finds everything published since the night before.
  public func firstLaunchEdge(forDay day: Int) -> Double? {
    firstLaunchSpan(forDay: day)?.lowerBound
  }

  /// When the day's first launch comes on a day of `day`'s kind (seconds after local midnight):
  /// from its early edge (``firstLaunchEdge(forDay:)``) to the ``FetchProfile/firstLaunchLateQuantile``
  /// of the first launches of the past days of that kind (decayed as the windows' history); nil
  /// while learning, ending earlier where the past first launches stop for more than two
  /// ``FetchProfile/quietWindowInterval``s. A user whose first launch comes at any hour of the
  /// morning has a wide span; one who opens the app in the morning or else in the evening has the
  /// morning's.
  public func firstLaunchSpan(forDay day: Int) -> ClosedRange<Double>? {
    let observed = observedDays(before: day)
    guard observed >= profile.minimumHistoryDays else { return nil }
    let weekend = LocalTime.isWeekend(day: day)
    var kindDays = 0
    for d in (day - observed)..<day where LocalTime.isWeekend(day: d) == weekend { kindDays += 1 }
    let pooled = kindDays < profile.minimumDaysPerKind
    var firsts: [(second: Double, weight: Double)] = []
    var lastDay: Int?
    for l in launches where l.day < day && l.day >= day - observed && (pooled || LocalTime.isWeekend(day: l.day) == weekend) {
      guard l.day != lastDay else { continue }
      lastDay = l.day
      firsts.append((l.secondOfDay, Decay.pow2(-Double(day - l.day - 1) / profile.historyHalfLifeDays)))
    }
    guard !firsts.isEmpty else { return nil }
    firsts.sort { $0.second < $1.second }
    let total = firsts.reduce(0) { $0 + $1.weight }
    let edge = Self.earlyEdge(firsts, total, median: Self.quantile(firsts, total, 0.5), quantile: profile.habitEarlyQuantile)
    // The span ends at the late quantile, or earlier where the first launches stop for more than
    // two quiet spacings (a day whose first launch is the evening's, the morning's skipped: the
    // evening has its own window, and fetches in the hours between would serve no launch).
    var late = Self.quantile(firsts, total, profile.firstLaunchLateQuantile)
    for (a, b) in zip(firsts, firsts.dropFirst()) where b.second - a.second > 2 * profile.quietWindowInterval {
      late = min(late, a.second)
      break
    }
    return edge...max(edge, late)
  }

  /// The launches a day the history expects in `habit`'s span after `second` (seconds after local
  /// midnight) on a day of `day`'s kind once the user has opened the app in it: over the past days
  /// with a launch in the span, the weighted launches after both `second` and the day's first one
  /// there, per such day. A habit of one launch a day expects none; launches at random times
  /// expect about as many as the rest of the span holds.
  public func launchesExpected(after second: Double, in habit: LaunchHabit, day: Int) -> Double {
    let observed = observedDays(before: day)
    let weekend = LocalTime.isWeekend(day: day)
    func counts(_ d: Int) -> Bool { habit.dayKind == .all || LocalTime.isWeekend(day: d) == weekend }
    var openedDays = 0.0
    var later = 0.0
    var current: (day: Int, later: Int)?
    func close() {
      guard let c = current else { return }
      let w = Decay.pow2(-Double(day - c.day - 1) / profile.historyHalfLifeDays)
      openedDays += w
      later += w * Double(c.later)
    }
    for l in launches where l.day < day && l.day >= day - observed && counts(l.day) && l.secondOfDay >= habit.start && l.secondOfDay < habit.end {
      if current?.day != l.day {
        close()
        current = (l.day, 0)  // the day's first launch in the span
      } else if l.secondOfDay > second {
        current?.later += 1
      }
    }
    close()
    return openedDays > 0 ? later / openedDays : 0
  }

  /// The `q`-quantile of a habit's launch times (sorted, weighted), estimated so that a few
  /// launches do not put it late. The earliest of n launches sits near the 1/(n + 1) quantile, so
  /// a sample too small to hold the q-quantile (q < 1/(n + 1), n the weighted sample's effective
  /// size (Σw)²/Σw²) would give its earliest launch; the quantile function is then taken as
  /// straight between that launch at 1/(n + 1) and the median at 1/2, and followed down to q
  /// (exact on average for launches spread evenly; for normally spread ones it takes back half
  /// to two thirds of the sample's lateness, `HabitEarlyEdgeTests`). A sample large enough gives
  /// its own quantile.
  static func earlyEdge(_ values: [(second: Double, weight: Double)], _ total: Double, median: Double, quantile q: Double) -> Double {
    let sample = quantile(values, total, q)
    guard let earliest = values.first?.second else { return sample }
    let squares = values.reduce(0) { $0 + $1.weight * $1.weight }
    let effective = squares > 0 ? total * total / squares : 0
    let level = 1 / (effective + 1)
    guard q < level, level < 0.5 else { return sample }
    return earliest - (median - earliest) * (level - q) / (0.5 - level)
  }

  /// The weighted `q`-quantile of sorted values (the first whose cumulative weight reaches q).
  static func quantile(_ values: [(second: Double, weight: Double)], _ total: Double, _ q: Double) -> Double {
    var sum = 0.0
    for v in values {
      sum += v.weight
      if sum >= q * total * (1 - 1e-12) { return v.second }
    }
    return values.last?.second ?? 0
  }
}

extension LocalTime {
  /// Whether local day `day` (days since 1970-01-01) is a Saturday or a Sunday.
  public static func isWeekend(day: Int) -> Bool {
    let weekday = ((day + 4) % 7 + 7) % 7
    return weekday == 0 || weekday == 6
  }
}

/// Exponential decay without libm's `exp2`.
enum Decay {
  /// 2^x for x ≤ 0: halvings for the whole part, a Taylor series of e^(f ln 2) for the fraction
  /// (relative error below 1e-15 for f in 0 ..< 1).
  static func pow2(_ x: Double) -> Double {
    var result = 1.0
    var whole = x.rounded(.down)
    let fraction = x - whole
    while whole < 0 {
      result *= 0.5
      whole += 1
      if result < 1e-300 { return 0 }
    }
    let y = fraction * 0.693_147_180_559_945_3
    var term = 1.0
    var sum = 1.0
    for k in 1...20 {
      term *= y / Double(k)
      sum += term
    }
    return result * sum
  }
}

extension LaunchHistory {
  /// What a history holds: the launches kept, the first observed day and the latest clock
  /// offset (the habits worked out are recomputed when asked for).
  struct Snapshot: Codable, Sendable, Hashable {
    struct Launch: Codable, Sendable, Hashable {
      var time: Double
      var day: Int
      var secondOfDay: Double
      /// Nil in snapshots written before launches were marked.
      var missed: Bool?
      var early: Bool?
    }

    var launches: [Launch]
    var firstDay: Int?
    var utcOffset: Int
  }

  var snapshot: Snapshot {
    Snapshot(launches: launches.map { Snapshot.Launch(time: $0.time, day: $0.day, secondOfDay: $0.secondOfDay, missed: $0.missed, early: $0.early) }, firstDay: firstDay, utcOffset: utcOffset)
  }

  init(restoring snapshot: Snapshot, profile: FetchProfile) {
    self.init(profile: profile)
    launches = snapshot.launches.map { ($0.time, $0.day, $0.secondOfDay, $0.missed ?? false, $0.early ?? false) }
    firstDay = snapshot.firstDay
    utcOffset = snapshot.utcOffset
  }
}
