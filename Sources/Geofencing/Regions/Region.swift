/// A monitored area: a geodesic circle or a polygon.
public enum Region: Hashable, Sendable {
  case circle(CircularRegion)
  case polygon(PolygonRegion)

  /// The region's name.
  public var identifier: RegionIdentifier {
    switch self {
    case .circle(let c): return c.identifier
    case .polygon(let p): return p.identifier
    }
  }
}
