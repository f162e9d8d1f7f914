import Geodesy

/// Where the cells are: a tower map, or the synthetic hexagonal layout anchored at the first fix.
public enum CellLayout: Sendable {
  case towers(TowerMap)
  /// ``HexagonalCellLayout`` with this spacing (metres), anchored at the first fix tracked.
  case hexagonal(spacing: Double)
}

/// A cell layout that cannot be used, with what was expected.
public struct CellLayoutError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The spacing given, in metres.
  public var spacing: Double

  public init(spacing: Double) { self.spacing = spacing }

  public var description: String {
    "hexagonal cell spacing \(spacing) m: expected a finite spacing of 100 m to 100 km"
  }
}
