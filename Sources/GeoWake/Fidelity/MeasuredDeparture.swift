public import Geodesy
public import Geofencing

/// One measured geofence departure: a phone waiting in a circular fence, the moment its user
/// left, the time the phone reported the exit (if it did), and where the user really went.
public struct MeasuredDeparture: Sendable {
  /// The platform a departure was measured on, which picks the profiles it is replayed with.
  public enum Platform: String, Sendable, CaseIterable, Comparable {
    case ios, android

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  }

  public var id: String
  public var platform: Platform
  /// When the user left (seconds since 1970).
  public var departureTime: Double
  /// When the phone reported the exit; `nil`: it did not within the observation window.
  public var exitTime: Double?
  /// When the fence was created, if known: the replay starts no earlier.
  public var fenceCreatedTime: Double?
  /// Whether the measured exit is one the replay can model. `false` for exits the data set flags
  /// as premature (a fence centred on a stale fix fires as it is created): they are listed, and
  /// left out of the distributions.
  public var isComparable: Bool
  public var fence: CircularRegion
  /// The ground truth: where the user was, in time order.
  public var track: [LocationFix]
  /// The phone's operating system and version (`Android 6.0.1`), when known: picks the profile
  /// of its version where the platform's rules changed.
  public var os: String?

  public init(
    id: String, platform: Platform, departureTime: Double, exitTime: Double?, fenceCreatedTime: Double? = nil,
    isComparable: Bool = true, fence: CircularRegion, track: [LocationFix], os: String? = nil
  ) {
    self.os = os
    self.id = id
    self.platform = platform
    self.departureTime = departureTime
    self.exitTime = exitTime
    self.fenceCreatedTime = fenceCreatedTime
    self.isComparable = isComparable
    self.fence = fence
    self.track = track
  }

  /// The measured delay from the departure to the exit, in seconds; `nil`: no exit.
  public var exitDelay: Double? { exitTime.map { $0 - departureTime } }
}
