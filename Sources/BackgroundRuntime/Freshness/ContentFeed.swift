/// When new content is published for the app: the publication times of its feed, sorted.
public struct ContentFeed: Hashable, Sendable {
  /// Seconds since the Unix epoch, ascending.
  public let publications: [Double]

  /// Publications at `times` (any order).
  public init(_ times: [Double]) { publications = times.sorted() }

  /// News every `every` seconds in the daytime: on each local day from `from` for `days` days,
  /// at `firstHour`:00 and every `every` seconds after it while before or at `lastHour`:00 (local
  /// time, `utcOffset` seconds ahead of UTC). The default — every 30 min from 06:00 to 22:00 —
  /// is the documented generator the bundled examples use.
  /// - Throws: ``InvalidSchedule`` when `start` is not finite, `every` is not a positive number of
  ///   seconds, `days` is negative, or the hours are not 0...24 with `firstHour` ≤ `lastHour`.
  public static func daytimeNews(
    from start: Double, days: Int, utcOffset: Int, every: Double = 1_800, firstHour: Int = 6, lastHour: Int = 22
  ) throws(InvalidSchedule) -> ContentFeed {
    guard start.isFinite else { throw InvalidSchedule(field: "start", value: "\(start)", expected: "a finite time") }
    guard every > 0, every.isFinite else {
      throw InvalidSchedule(field: "every", value: "\(every)", expected: "seconds > 0")
    }
    guard days >= 0 else { throw InvalidSchedule(field: "days", value: "\(days)", expected: "a count ≥ 0") }
    guard (0...24).contains(firstHour), (0...24).contains(lastHour), firstHour <= lastHour else {
      throw InvalidSchedule(
        field: "firstHour, lastHour", value: "\(firstHour), \(lastHour)", expected: "hours in 0...24, first ≤ last")
    }
    let first = LocalTime(start, utcOffset: utcOffset).day
    var times: [Double] = []
    for day in first..<(first + days) {
      var second = Double(firstHour) * 3_600
      while second <= Double(lastHour) * 3_600 {
        times.append(LocalTime.time(day: day, secondOfDay: second, utcOffset: utcOffset))
        second += every
      }
    }
    return ContentFeed(times)
  }

  /// A parameter of ``daytimeNews(from:days:utcOffset:every:firstHour:lastHour:)`` out of range.
  public struct InvalidSchedule: Error, Hashable, Sendable, CustomStringConvertible {
    public let field: String
    public let value: String
    public let expected: String
    public var description: String { "content feed: \(field) is \(value): expected \(expected)" }
  }

  /// The index of the first publication after `time`.
  public func index(after time: Double) -> Int {
    var lo = 0
    var hi = publications.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if publications[mid] <= time { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  /// Publications in `after <.. through`: how many, and the oldest.
  public func unfetched(after: Double, through: Double) -> (count: Int, oldest: Double?) {
    let first = index(after: after)
    let end = index(after: through)
    return (max(0, end - first), first < end ? publications[first] : nil)
  }
}

/// Staleness at launch over a run: how long the oldest unfetched publication had waited when the
/// user opened the app (0 when nothing was waiting).
public struct StalenessSummary: Hashable, Sendable {
  public var launches: Int
  /// Launches with nothing waiting.
  public var fresh: Int
  /// Nearest-rank percentiles and the maximum, in seconds (0 without launches).
  public var p50: Double
  public var p90: Double
  public var p99: Double
  public var maximum: Double
  public var mean: Double

  /// From the staleness of each launch, in seconds.
  public init(_ staleness: [Double]) {
    let sorted = staleness.sorted()
    launches = sorted.count
    fresh = sorted.lazy.filter { $0 == 0 }.count
    func rank(_ p: Double) -> Double {
      guard !sorted.isEmpty else { return 0 }
      let k = Int((p * Double(sorted.count)).rounded(.up))
      return sorted[max(0, min(sorted.count - 1, k - 1))]
    }
    p50 = rank(0.5)
    p90 = rank(0.9)
    p99 = rank(0.99)
    maximum = sorted.last ?? 0
    mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
  }

  /// The share of launches with zero staleness, 0 … 1 (1 without launches).
  public var freshShare: Double { launches == 0 ? 1 : Double(fresh) / Double(launches) }
}
