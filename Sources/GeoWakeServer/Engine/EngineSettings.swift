#if Server
import Foundation
import JSONBytes
public import GeoWake
import Geodesy
public import Geofencing

/// The settings a live engine runs under; the state in its data directory was made under the
/// same (the store refuses other regions, platform or seed).
public struct EngineSettings: Sendable {
  public var regions: [Region]
  /// Identifies the fence set (a hash of its file), stored with the state.
  public var regionsFingerprint: String
  public var platform: Platform
  /// The platform's rules tuned from their preset (`--dwell`, …), by name: stored with the state.
  public var rules: [String: String]
  public var notifications: [RegionIdentifier: RegionNotifications]
  public var seed: UInt64
  public var dataDirectory: String
  /// How often the device states are checkpointed (seconds): a restart replays the fixes since.
  public var checkpointInterval: Double

  public init(
    regions: [Region], regionsFingerprint: String, platform: Platform, rules: [String: String] = [:],
    notifications: [RegionIdentifier: RegionNotifications] = [:],
    seed: UInt64 = 0, dataDirectory: String, checkpointInterval: Double = 30
  ) {
    self.regions = regions
    self.regionsFingerprint = regionsFingerprint
    self.platform = platform
    self.rules = rules
    self.notifications = notifications
    self.seed = seed
    self.dataDirectory = dataDirectory
    self.checkpointInterval = checkpointInterval
  }
}
#endif
