public import Geodesy

/// The serving cell changed (or the device attached, or lost service).
public struct ServingCellChange: Hashable, Sendable, Codable {
  public enum Cause: Hashable, Sendable, Codable {
    /// The first cell the device camped on (or the first after a loss of service).
    case attach
    /// A neighbour was stronger than the serving cell by at least the hysteresis (dB margin at
    /// the fix that confirmed it) for the time-to-trigger: an A3 handoff.
    case strongerNeighbour(margin: Double)
    /// The serving cell no longer reached the device; it moved to the strongest cell there.
    case servingOutOfRange
    /// No cell reaches the device.
    case noService
    /// The fix named its serving cell (a drive log); `from` is `nil` for the first one.
    case reported
  }

  /// When it happened: seconds since the Unix epoch.
  public var time: Double
  /// Where the device was (the fix that decided it).
  public var coordinate: Coordinate
  /// The cell left (`nil` for an attach).
  public var from: CellIdentity?
  /// The cell now serving (`nil` when service was lost).
  public var to: CellIdentity?
  /// The tower of `to`, when its position is known (not for cells named by a drive log).
  public var toTower: CellTower?
  public var cause: Cause

  public init(time: Double, coordinate: Coordinate, from: CellIdentity?, to: CellIdentity?, toTower: CellTower?, cause: Cause) {
    self.time = time
    self.coordinate = coordinate
    self.from = from
    self.to = to
    self.toTower = toTower
    self.cause = cause
  }

  /// A sentence saying what happened and why.
  public var explanation: String {
    switch cause {
    case .attach: return "attached to \(to.map { "\($0)" } ?? "-"), the strongest cell here"
    case .strongerNeighbour(let margin):
      return "A3 handoff: \(to.map { "\($0)" } ?? "-") was \(NumberFormat.oneDecimal(margin)) dB stronger than \(from.map { "\($0)" } ?? "-") (hysteresis and time-to-trigger met)"
    case .servingOutOfRange: return "\(from.map { "\($0)" } ?? "-") no longer reaches the device: moved to \(to.map { "\($0)" } ?? "-"), the strongest cell here"
    case .noService: return "no cell reaches the device: service lost"
    case .reported: return "the log names \(to.map { "\($0)" } ?? "-") as the serving cell"
    }
  }

  /// Whether this is a handoff between two cells (not an attach or a loss of service).
  public var isHandoff: Bool { from != nil && to != nil }
}

/// Deterministic short number text for explanations.
enum NumberFormat {
  static func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
  }
}
