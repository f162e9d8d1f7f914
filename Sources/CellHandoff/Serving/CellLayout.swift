public import Geodesy

/// Where the cells are: a tower map, or the synthetic hexagonal layout anchored at the first fix.
public enum CellLayout: Sendable {
  case towers(TowerMap)
  /// ``HexagonalCellLayout`` with this spacing (metres), anchored at the first fix tracked.
  case hexagonal(spacing: Double)
}
