import CellHandoff
import Geodesy
import SyntheticData
import Foundation
import Testing

func coordinate(_ latitude: Double, _ longitude: Double) -> Coordinate {
  try! Coordinate(latitude: latitude, longitude: longitude)
}

@Suite("Tower map")
struct TowerMapTests {
  /// Random towers (ranges 200 m – 60 km) around a centre; every query agrees with testing every tower.
  @Test(arguments: [(51.9, -8.4), (0.0, 179.95), (78.2, 15.6), (-33.9, 151.2), (89.7, 0.0)])
  func queriesMatchBruteForce(latitude: Double, longitude: Double) throws {
    var random = SeededGenerator(seed: UInt64(bitPattern: Int64(latitude * 1000 + longitude)))
    let centre = coordinate(latitude, longitude)
    let towers = (0..<3_000).map { k in
      let position = Geodesic.wgs84.direct(
        from: centre, azimuth: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...80_000, using: &random))!.destination
      let range = Double.random(in: 0...1, using: &random) < 0.8
        ? Double.random(in: 200...5_000, using: &random) : Double.random(in: 5_000...60_000, using: &random)
      return CellTower(identity: CellIdentity(radio: .lte, mcc: 272, net: 1, area: k / 100, cell: k), coordinate: position, range: range)
    }
    let map = try TowerMap(towers)
    var found: [Int32] = []
    for _ in 0..<150 {
      let point = Geodesic.wgs84.direct(
        from: centre, azimuth: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...90_000, using: &random))!.destination
      found.removeAll()
      map.towers(reaching: point, into: &found)
      let expected = towers.indices.filter { Ellipsoid.wgs84.chordDistance(towers[$0].coordinate, point) <= towers[$0].range }
      #expect(found.map(Int.init).sorted() == expected)
      // The chord is within a metre of the geodesic at these distances.
      for k in found.prefix(5) {
        let geodesic = Geodesic.wgs84.distance(from: towers[Int(k)].coordinate, to: point)
        let chord = map.distance(from: Int(k), to: point)
        #expect(chord <= geodesic + 1e-6 && geodesic - chord <= ChordBound.wgs84.maximumApproximationError(forChord: chord) + 1e-6)
      }
    }
  }

  @Test func duplicatesAndBadRangesAreRefused() {
    let id = CellIdentity(radio: .gsm, mcc: 242, net: 1, area: 11901, cell: 3722)
    let tower = CellTower(identity: id, coordinate: coordinate(59.9, 10.7), range: 3_570)
    #expect(throws: TowerMapError.duplicate(id, first: 0, second: 2)) {
      try TowerMap([tower, CellTower(identity: CellIdentity(radio: .lte, mcc: 242, net: 1, area: 11901, cell: 3722), coordinate: tower.coordinate, range: 1), tower])
    }
    for range in [0.0, -5, .nan, .infinity, 100_001] {
      var bad = tower
      bad.range = range
      do {
        _ = try TowerMap([bad])
        Issue.record("range \(range) accepted")
      } catch {
        guard case .invalidRange(let refused, _) = error else { Issue.record("wrong error \(error)"); continue }
        #expect(refused == id)
      }
    }
    #expect(TowerMapError.duplicate(id, first: 0, second: 2).description == "cell GSM 242-1-11901-3722 appears twice (towers 0 and 2): expected each cell once")
  }
}

@Suite("Hexagonal cell layout")
struct HexagonalCellLayoutTests {
  static let cork = coordinate(51.8985, -8.4756)

  /// Six neighbours at the spacing (to 0.1 % plus the east scale's drift); every point reached by its nearest tower, within
  /// 0.58 spacings, by at least 6 towers, and by exactly those a brute-force search of the
  /// lattice finds in range.
  /// A spacing out of range is an error, not a crash, for the layout and for a tracker given it.
  @Test(arguments: [5.0, 0, -1_500, 200_000, .nan, .infinity])
  func badSpacingIsAnError(spacing: Double) {
    #expect(throws: CellLayoutError.self) { try HexagonalCellLayout(anchor: Self.cork, spacing: spacing) }
    #expect(throws: CellLayoutError.self) { try ServingCellTracker(layout: .hexagonal(spacing: spacing)) }
  }

  @Test(arguments: [HexagonalCellLayout.urbanSpacing, HexagonalCellLayout.ruralSpacing])
  func latticeGeometry(spacing: Double) throws {
    let layout = try HexagonalCellLayout(anchor: Self.cork, spacing: spacing)
    let centre = layout.tower(i: 3, j: -2)
    let neighbours = [(4, -2), (2, -2), (3, -1), (2, -1), (3, -3), (4, -3)].map { layout.tower(i: $0.0, j: $0.1) }
    for n in neighbours {
      let d = Geodesic.wgs84.distance(from: centre.coordinate, to: n.coordinate)
      // The documented drift of the east scale, tan φ₀·Δφ, plus 0.1 %.
      let drift = abs(Double.tan(Self.cork.latitude * .pi / 180) * (n.coordinate.latitude - Self.cork.latitude) * .pi / 180)
      #expect(abs(d - spacing) / spacing < drift + 0.001, "neighbour at \(d) m")
    }
    #expect(HexagonalCellLayout.lattice(of: centre.identity) == (3, -2))
    var random = SeededGenerator(seed: 7)
    var reached: [CellTower] = []
    for _ in 0..<80 {
      let point = Geodesic.wgs84.direct(from: Self.cork, azimuth: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...40_000, using: &random))!.destination
      reached.removeAll()
      layout.towers(reaching: point, into: &reached)
      let nearest = reached.map { Geodesic.wgs84.distance(from: $0.coordinate, to: point) }.min() ?? .infinity
      #expect(nearest <= spacing / 3.0.squareRoot() * 1.01)
      #expect(reached.count >= 6)
      // Brute force over the lattice around the point.
      var all: [CellIdentity] = []
      for j in -40...40 {
        for i in -40...40 {
          let t = layout.tower(i: i, j: j)
          if Ellipsoid.wgs84.chordDistance(t.coordinate, point) <= layout.range { all.append(t.identity) }
        }
      }
      #expect(Set(reached.map(\.identity)) == Set(all))
    }
  }
}
