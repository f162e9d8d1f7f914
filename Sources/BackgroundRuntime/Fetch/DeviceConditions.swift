/// A device state in which the system grants no background fetch (docs/platform-rules.md, background fetch).
public enum DeviceCondition: String, Hashable, Sendable, Codable, CaseIterable {
  /// Low Power Mode is on.
  case lowPowerMode
  /// The user switched Background App Refresh off (for the app or the device).
  case backgroundRefreshOff
  /// No network.
  case offline

  /// The condition in a sentence ("Low Power Mode is on").
  public var sentence: String {
    switch self {
    case .lowPowerMode: return "Low Power Mode is on"
    case .backgroundRefreshOff: return "Background App Refresh is off"
    case .offline: return "the device is offline"
    }
  }

  /// Its end in words ("Low Power Mode went off").
  public var ending: String {
    switch self {
    case .lowPowerMode: return "Low Power Mode went off"
    case .backgroundRefreshOff: return "Background App Refresh came back on"
    case .offline: return "the device came online"
    }
  }
}

/// When the device was in which ``DeviceCondition``: intervals, possibly overlapping.
public struct DeviceConditions: Hashable, Sendable {
  public struct Interval: Hashable, Sendable {
    /// Seconds since the Unix epoch; the interval is `start ..< end`.
    public var start: Double
    public var end: Double
    public var condition: DeviceCondition
    public init(start: Double, end: Double, condition: DeviceCondition) {
      self.start = start
      self.end = end
      self.condition = condition
    }
  }

  /// Sorted by start.
  public private(set) var intervals: [Interval]

  public init(_ intervals: [Interval] = []) {
    self.intervals = intervals.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
  }

  /// The first condition that blocks fetching at `time`, and when the blocking ends (the end of
  /// the chain of blocking intervals that covers `time`); nil when nothing blocks.
  public func blocking(at time: Double) -> (condition: DeviceCondition, until: Double)? {
    var found: DeviceCondition?
    var until = time
    for i in intervals {
      if i.start > until { break }
      if i.end > until, i.start <= until {
        if found == nil, i.start <= time { found = i.condition }
        if found != nil { until = i.end }
      }
    }
    guard let found else { return nil }
    return (found, until)
  }
}
