public import Geodesy

/// A significant location change the app is told about, or one it is not (with the reason).
public struct SignificantChangeEvent: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable {
    /// Delivered: the app is woken with ``location``.
    case significantChange
    /// A handoff that did not become an event (``SignificantChangeEvent/reason`` says why).
    case significantChangeSuppressed
  }

  public enum Trigger: String, Hashable, Sendable, Codable {
    /// The first event when monitoring starts: the most recent location.
    case start
    /// A serving-cell handoff.
    case handoff
    /// The optional periodic wake without movement.
    case periodic
  }

  public var kind: Kind
  public var trigger: Trigger
  /// When it happened (the handoff time, or the fix time): seconds since the Unix epoch.
  public var time: Double
  /// The location delivered (the device's position at `time`, with cell-level accuracy).
  public var location: LocationFix
  /// The handoff behind it, if any.
  public var handoff: ServingCellChange?
  /// Metres from the last delivered location (0 for the first).
  public var distanceFromLast: Double
  public var reason: String

  public init(
    kind: Kind, trigger: Trigger, time: Double, location: LocationFix, handoff: ServingCellChange?, distanceFromLast: Double,
    reason: String
  ) {
    self.kind = kind
    self.trigger = trigger
    self.time = time
    self.location = location
    self.handoff = handoff
    self.distanceFromLast = distanceFromLast
    self.reason = reason
  }
}
