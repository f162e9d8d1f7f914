/// A moment read on the device's wall clock: the local day, the second of that day and the day
/// of the week, for a fixed offset from UTC (no time-zone database, no Foundation).
public struct LocalTime: Hashable, Sendable {
  /// Days since 1970-01-01 in local time.
  public var day: Int
  /// Seconds since local midnight, in 0 ..< 86 400.
  public var secondOfDay: Double
  /// The offset from UTC in seconds (east positive) the reading was made with.
  public var utcOffset: Int

  public static let secondsPerDay = 86_400.0

  /// `time` (seconds since the Unix epoch) on a clock `utcOffset` seconds ahead of UTC.
  public init(_ time: Double, utcOffset: Int) {
    let local = time + Double(utcOffset)
    let day = (local / Self.secondsPerDay).rounded(.down)
    self.day = Int(day)
    secondOfDay = local - day * Self.secondsPerDay
    self.utcOffset = utcOffset
  }

  /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
  public var weekday: Int { ((day + 4) % 7 + 7) % 7 }
  /// Saturday or Sunday.
  public var isWeekend: Bool { weekday == 0 || weekday == 6 }

  /// Seconds since the Unix epoch of `secondOfDay` on local day `day`.
  public static func time(day: Int, secondOfDay: Double, utcOffset: Int) -> Double {
    Double(day) * secondsPerDay + secondOfDay - Double(utcOffset)
  }
}
