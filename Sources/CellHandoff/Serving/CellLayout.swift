public import Geodesy

/// Where the cells are: a tower map, or the synthetic hexagonal layout anchored at the first fix.
public enum CellLayout: Sendable {
  case towers(TowerMap)
  /// ``HexagonalCellLayout`` with this spacing (metres), anchored at the first fix tracked.
  case hexagonal(spacing: Double)
}

/// A cell that can serve the device at a fix, with the signal it would give.
public struct ServingCandidate: Hashable, Sendable {
  public var tower: CellTower
  /// Metres from the tower (chord).
  public var distance: Double
  /// dBm, from the profile's ``PathLossModel``.
  public var signal: Double
}
