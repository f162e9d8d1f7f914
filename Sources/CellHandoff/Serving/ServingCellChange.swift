public import Geodesy

/// The serving cell changed (or the device attached, or lost service).
public struct ServingCellChange: Hashable, Sendable {
  public enum Cause: Hashable, Sendable {
    /// The first cell the device camped on (or the first after a loss of service).
    case attach
    /// A neighbour was stronger than the serving cell by at least the hysteresis (dB margin at
    /// the fix that confirmed it) for the time-to-trigger: an A3 handoff.
    case strongerNeighbour(margin: Double)
    /// The serving cell no longer reached the device; it moved to the strongest cell there.
    case servingOutOfRange
    /// No cell reaches the device.
    case noService
    /// The fix named its serving cell (a drive log).
    case reported
  }

  /// When it happened: seconds since the Unix epoch.
  public var time: Double
  /// Where the device was (the fix that decided it).
  public var coordinate: Coordinate
  public var from: CellTower?
  public var to: CellTower?
  public var cause: Cause

  public init(time: Double, coordinate: Coordinate, from: CellTower?, to: CellTower?, cause: Cause) {
    self.time = time
    self.coordinate = coordinate
    self.from = from
    self.to = to
    self.cause = cause
  }

  /// Whether this is a handoff between two cells (not an attach or a loss of service).
  public var isHandoff: Bool { from != nil && to != nil }
}
