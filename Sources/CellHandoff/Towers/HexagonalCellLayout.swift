public import Geodesy
import RealModule

/// The synthetic cell layout used when no tower file is given: one tower every ``spacing``
/// metres on a hexagonal lattice (every tower has six neighbours at that distance), each reaching
/// ``range`` metres.
///
/// The lattice lies on the plane tangent to the WGS84 ellipsoid at ``anchor`` (usually the
/// track's first fix), mapped equirectangularly with the ellipsoid's radii there: east
/// x = p₀·Δλ (p₀ the radius of the parallel), north y = M₀·Δφ (M₀ the meridional radius).
/// North-south distances in that plane match the ground to 0.1 % within 300 km; east-west ones
/// drift by about tan φ₀·Δφ (Δφ in radians: 0.3 % 15 km north or south of the anchor at 52°, 2 %
/// at 100 km). The layout is a model, not a survey: the signal model measures true distances to
/// the towers it places, wherever they are.
///
/// Towers are generated on demand, never stored: any track length costs nothing. Each has radio
/// LTE, MCC 001 and MNC 01 (the ITU test network), area 1, and a cell identity encoding its
/// lattice coordinates (i, j) as (i + 2²⁰)·2²¹ + (j + 2²⁰), so it is stable for a given anchor
/// and spacing.
public struct HexagonalCellLayout: Hashable, Sendable {
  /// Urban macro-cell spacing: 1.5 km.
  public static let urbanSpacing = 1_500.0
  /// Rural spacing: 8 km.
  public static let ruralSpacing = 8_000.0
  /// Range of a tower, as a multiple of the spacing: 1.5 (every point is reached by its nearest
  /// tower, at most 0.58 spacings away, and by its ring of neighbours).
  public static let rangeFactor = 1.5
  /// Lattice coordinates are kept within ±2²⁰ of the anchor (±1.5 million km at 1.5 km spacing).
  private static let latticeLimit = 1 << 20

  public let anchor: Coordinate
  /// Metres between neighbouring towers.
  public let spacing: Double
  /// Metres a tower reaches: ``spacing`` × ``rangeFactor``.
  public var range: Double { spacing * Self.rangeFactor }

  /// - Throws: ``CellLayoutError`` unless `spacing` is finite, at least 100 m and at most 100 km
  ///   (``isValidSpacing(_:)``).
  public init(anchor: Coordinate, spacing: Double) throws(CellLayoutError) {
    guard Self.isValidSpacing(spacing) else { throw CellLayoutError(spacing: spacing) }
    self.init(validAnchor: anchor, spacing: spacing)
  }

  /// A layout for a spacing already checked.
  init(validAnchor anchor: Coordinate, spacing: Double) {
    self.anchor = anchor
    self.spacing = spacing
    let radians = anchor.latitude * .pi / 180
    let (sin, cos) = (Double.sin(radians), Double.cos(radians))
    metresPerRadianNorth = Ellipsoid.wgs84.meridionalRadius(sinLatitude: sin)
    metresPerRadianEast = max(1e-3, Ellipsoid.wgs84.parallelRadius(sinLatitude: sin, cosLatitude: cos))
  }

  private let metresPerRadianNorth: Double
  private let metresPerRadianEast: Double

  /// Whether `spacing` metres makes a layout: finite, 100 m to 100 km.
  public static func isValidSpacing(_ spacing: Double) -> Bool { spacing.isFinite && spacing >= 100 && spacing <= 100_000 }

  /// Appends every tower whose range reaches `point`.
  public func towers(reaching point: Coordinate, into towers: inout [CellTower]) {
    self.towers(reaching: point, margin: 0, into: &towers)
  }

  /// Appends every tower whose range plus `margin` metres reaches `point` (by chord distance).
  public func towers(reaching point: Coordinate, margin: Double, into towers: inout [CellTower]) {
    let (x, y) = plane(point)
    let rowHeight = spacing * 3.0.squareRoot() / 2
    let reach = range + max(0, margin)
    let j0 = Int((y / rowHeight).rounded())
    // The plane's scale is within a few percent of the ground's wherever a layout is used: 10 %
    // more rows and columns cover it.
    let rows = Int((reach * 1.1 / rowHeight).rounded(.up)) + 1
    let columns = Int((reach * 1.1 / spacing).rounded(.up)) + 1
    for j in (j0 - rows)...(j0 + rows) {
      let i0 = Int((x / spacing - Double(j) / 2).rounded())
      for i in (i0 - columns)...(i0 + columns) {
        guard abs(i) < Self.latticeLimit, abs(j) < Self.latticeLimit else { continue }
        let tower = self.tower(i: i, j: j)
        if Ellipsoid.wgs84.chordDistance(tower.coordinate, point) <= reach { towers.append(tower) }
      }
    }
  }

  /// The tower at lattice coordinates (i, j).
  public func tower(i: Int, j: Int) -> CellTower {
    let x = (Double(i) + Double(j) / 2) * spacing
    let y = Double(j) * spacing * 3.0.squareRoot() / 2
    let cell = (i + Self.latticeLimit) << 21 | (j + Self.latticeLimit)
    return CellTower(
      identity: CellIdentity(radio: .lte, mcc: 1, net: 1, area: 1, cell: cell), coordinate: coordinate(x, y), range: range,
      samples: 0, isEstimated: false)
  }

  /// The lattice coordinates of a tower of this layout, from its identity.
  public static func lattice(of identity: CellIdentity) -> (i: Int, j: Int) {
    ((identity.cell >> 21) - latticeLimit, (identity.cell & ((1 << 21) - 1)) - latticeLimit)
  }

  // MARK: - Plane

  private func plane(_ c: Coordinate) -> (Double, Double) {
    let dLon = (c.longitude - anchor.longitude).remainder(dividingBy: 360)
    return (metresPerRadianEast * dLon * .pi / 180, metresPerRadianNorth * (c.latitude - anchor.latitude) * .pi / 180)
  }

  private func coordinate(_ x: Double, _ y: Double) -> Coordinate {
    let latitude = min(90, max(-90, anchor.latitude + y / metresPerRadianNorth * 180 / .pi))
    let longitude = (anchor.longitude + x / metresPerRadianEast * 180 / .pi + 180).truncatingRemainder(dividingBy: 360)
    return Coordinate(uncheckedLatitude: latitude, longitude: (longitude < 0 ? longitude + 360 : longitude) - 180)
  }
}
