public import Geodesy

/// A cell as OpenCellID describes it: where its tower is and how far it reaches.
public struct CellTower: Hashable, Sendable, Codable {
  public var identity: CellIdentity
  /// The estimated position of the cell's antenna.
  public var coordinate: Coordinate
  /// Metres from ``coordinate`` within which the cell was measured (OpenCellID's `range`): the
  /// cell can serve a device only within it.
  public var range: Double
  /// Measurements behind the estimate (OpenCellID's `samples`).
  public var samples: Int
  /// Whether the position was computed from measurements (OpenCellID's `changeable` = 1) rather
  /// than given exactly by an operator.
  public var isEstimated: Bool
  /// Unix seconds when the cell was first seen and last updated.
  public var created: Int
  public var updated: Int
  /// OpenCellID's `averageSignal` in dBm (0 when unknown, as in most exports).
  public var averageSignal: Int

  public init(
    identity: CellIdentity, coordinate: Coordinate, range: Double, samples: Int = 0, isEstimated: Bool = true,
    created: Int = 0, updated: Int = 0, averageSignal: Int = 0
  ) {
    self.identity = identity
    self.coordinate = coordinate
    self.range = range
    self.samples = samples
    self.isEstimated = isEstimated
    self.created = created
    self.updated = updated
    self.averageSignal = averageSignal
  }
}
