public import Geodesy

/// A polygonal region: one polygon with optional holes, or several (a MultiPolygon), in the
/// GeoJSON sense.
///
/// **Edges and projection.** Edges are straight lines in longitude/latitude (RFC 7946 §3.1.1),
/// the convention of GeoJSON, shapely and GEOS on geographic data. GeoWake works in the
/// projection x = longitude *unwrapped* (each vertex's longitude is shifted by whole turns to stay
/// within 180° of the previous one, starting within 180° of the first vertex of the first ring),
/// y = latitude. This is an exact translation of longitude/latitude space for ordinary polygons, so
/// containment equals shapely's; it also makes rings that cross the antimeridian (179° → −179°)
/// one continuous shape. An exterior ring whose unwrapped longitude turns a full 360° encircles a
/// pole: it is closed through the pole it has on its left (counter-clockwise, east-going rings
/// enclose the north pole; west-going ones the south pole), so a cap such as "everything north of
/// 80°" is one ring.
///
/// **Boundary.** Points on the boundary belong to the region, as for ``CircularRegion``.
///
/// **Validity.** The initialiser checks what containment needs: at least three distinct positions
/// a ring, holes that do not encircle a pole, no more than 360° of longitude. Containment is the
/// even-odd rule over all rings, which for a valid polygon (OGC simple features: rings that do not
/// cross, holes inside their shell, parts that do not overlap) is the usual meaning. Whether a
/// polygon is valid in that full sense is checked by the `GEOSValidation` module
/// (`PolygonRegion.geosInvalidityReason()`), which GeoWake's command-line tool applies to every
/// polygon it reads; it needs the GEOS library, the core does not.
public struct PolygonRegion: Hashable, Sendable {
  /// One polygon: an exterior ring and zero or more holes. A ring may repeat its first position
  /// at the end (GeoJSON) or not; either way it is closed.
  public struct Polygon: Hashable, Sendable {
    public let exterior: [Coordinate]
    public let holes: [[Coordinate]]

    public init(exterior: [Coordinate], holes: [[Coordinate]] = []) {
      self.exterior = exterior
      self.holes = holes
    }
  }

  /// The region's name, unique within a ``RegionIndex``.
  public let identifier: RegionIdentifier
  /// The polygons (one for a Polygon, several for a MultiPolygon).
  public let polygons: [Polygon]

  /// Creates a polygonal region.
  /// - Throws: ``RegionError`` naming the polygon and ring that is too short or encircles a pole
  ///   as a hole, or saying that the polygons span more than 360° of longitude.
  public init(identifier: RegionIdentifier, polygons: [Polygon]) throws(RegionError) {
    _ = try PlanarPolygons(identifier: identifier.rawValue, polygons: polygons)
    self.identifier = identifier
    self.polygons = polygons
  }

  /// A region of polygons already checked (``RegionIndex`` rebuilding one it held,
  /// ``PlanarPolygons/regionPolygons``).
  init(validIdentifier identifier: RegionIdentifier, polygons: [Polygon]) {
    self.identifier = identifier
    self.polygons = polygons
  }

  /// The projected rings, made from ``polygons`` when asked for (a region holds its positions
  /// once; a ``RegionIndex`` keeps the projected rings of the polygons it holds).
  package var planar: PlanarPolygons {
    // The initialiser checked that these polygons project.
    do {
      return try PlanarPolygons(identifier: identifier.rawValue, polygons: polygons).sharingPositions(polygons)
    } catch {
      preconditionFailure("a checked polygon failed to project: \(error)")
    }
  }

  /// Creates a single-polygon region.
  public init(identifier: RegionIdentifier, exterior: [Coordinate], holes: [[Coordinate]] = []) throws(RegionError) {
    try self.init(identifier: identifier, polygons: [Polygon(exterior: exterior, holes: holes)])
  }

  /// Creates a single-polygon region from a raw identifier string.
  public init(identifier: String, exterior: [Coordinate], holes: [[Coordinate]] = []) throws(RegionError) {
    try self.init(identifier: RegionIdentifier(identifier), exterior: exterior, holes: holes)
  }

  /// Whether `point` is inside or on the boundary.
  ///
  /// Indexes the edges on every call; to test many points, put the region in a ``RegionIndex``,
  /// which indexes them once.
  public func contains(_ point: Coordinate) -> Bool {
    PolygonGeometry(planar).contains(point)
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.identifier == rhs.identifier && lhs.polygons == rhs.polygons
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(identifier)
    hasher.combine(polygons)
  }
}

/// Rings of a polygonal region in GeoWake's polygon projection (see ``PolygonRegion``): x =
/// unwrapped longitude, y = latitude, each ring closed, all of them in one flat array — or, for
/// the common polygon whose projection is its own positions (one closed ring, no hole, no turn of
/// longitude), the region's positions themselves, so that its vertices are stored once. A
/// ``RegionIndex`` holding rings in one flat array that give back the region's positions exactly
/// (``reproduces(_:)``) keeps only them, and rebuilds the region from them
/// (``regionPolygons``).
package struct PlanarPolygons: Sendable {
  /// Where the vertices are: every ring's vertices, ring after ring, polygon after polygon, each
  /// ring closed (its first vertex repeated at its end).
  enum Vertices: Sendable {
    /// [x0, y0, x1, y1, …].
    case projected([Double])
    /// A region's closed exterior ring whose longitudes and latitudes are exactly its projection.
    case positions([Coordinate])
  }

  private var vertices: Vertices
  /// Per ring, one past the index of its last vertex; negative (the end's bitwise complement) for
  /// an exterior ring, which starts a polygon. Empty for a single exterior ring (no allocation).
  private let ringEnds: [Int32]
  /// The bounding box in (unwrapped longitude, latitude).
  let box: GeoBox

  /// The same rings stored as `exterior` when that is exactly what they are: one polygon of one
  /// ring, given closed, each projected vertex bit for bit the position's longitude and latitude.
  func sharingPositions(_ polygons: [PolygonRegion.Polygon]) -> PlanarPolygons {
    guard case .projected = vertices, polygons.count == 1, polygons[0].holes.isEmpty, reproduces(polygons) else {
      return self
    }
    let exterior = polygons[0].exterior
    var shared = self
    shared.vertices = .positions(exterior)
    return shared
  }

  init(identifier: String, polygons: [PolygonRegion.Polygon]) throws(RegionError) {
    guard !polygons.isEmpty, polygons.allSatisfy({ !$0.exterior.isEmpty }) else {
      throw RegionError(identifier: identifier, reason: .emptyPolygon)
    }
    if polygons.count == 1, polygons[0].holes.isEmpty, let box = Self.boxIfOwnProjection(polygons[0].exterior) {
      vertices = .positions(polygons[0].exterior)
      ringEnds = []
      self.box = box
      return
    }
    let origin = polygons[0].exterior[0].longitude
    var xy: [Double] = []
    xy.reserveCapacity(
      polygons.reduce(0) { total, p in p.holes.reduce(total + 2 * p.exterior.count + 8) { $0 + 2 * $1.count + 2 } })
    var ringEnds: [Int32] = []
    var south = Double.infinity
    var north = -Double.infinity
    var west = Double.infinity
    var east = -Double.infinity
    for (p, polygon) in polygons.enumerated() {
      // Exterior first, then the holes (without making an array of them).
      for r in 0...polygon.holes.count {
        let ring = r == 0 ? polygon.exterior : polygon.holes[r - 1]
        let first = xy.count
        try Self.project(ring, origin: origin, identifier: identifier, polygon: p, ring: r, into: &xy)
        if r == 0 {
          for i in stride(from: first, to: xy.count, by: 2) {
            west = min(west, xy[i])
            east = max(east, xy[i])
            south = min(south, xy[i + 1])
            north = max(north, xy[i + 1])
          }
        }
        let end = Int32(xy.count / 2)
        ringEnds.append(r == 0 ? ~end : end)
      }
    }
    if east - west > 360 {
      throw RegionError(
        identifier: identifier,
        reason: .invalidPolygon("the polygons span more than 360° of longitude once unwrapped; split them into regions")
      )
    }
    vertices = .projected(xy)
    self.ringEnds = ringEnds.count == 1 ? [] : ringEnds
    box = GeoBox(south: south, north: north, west: west, east: east)
  }

  /// The box of `ring` when the general construction would project it to its own positions, bit
  /// for bit (what ``sharingPositions(_:)`` then finds): given closed, at least three distinct
  /// positions, each longitude the previous one's plus the wrapped step between them, not
  /// around a pole. The usual GeoJSON polygon, read without making its projected copy; `nil`
  /// for any other ring, which the general construction takes.
  private static func boxIfOwnProjection(_ ring: [Coordinate]) -> GeoBox? {
    let count = ring.count - 1
    guard count >= 3 else { return nil }
    return ring.withUnsafeBufferPointer { ring -> GeoBox? in
      let first = ring[0]
      let last = ring[count]
      guard last.longitude.bitPattern == first.longitude.bitPattern,
        last.latitude.bitPattern == first.latitude.bitPattern
      else { return nil }
      // As the general construction starts, from the ring's own first longitude (−0 becomes +0).
      var x = first.longitude + wrapped(first.longitude - first.longitude)
      guard x.bitPattern == first.longitude.bitPattern else { return nil }
      var south = first.latitude
      var north = first.latitude
      var west = x
      var east = x
      var distinct = 1
      for i in 1..<count {
        let position = ring[i]
        let before = ring[i - 1]
        x += wrapped(position.longitude - before.longitude)
        guard x.bitPattern == position.longitude.bitPattern else { return nil }
        if position != before { distinct += 1 }
        west = min(west, x)
        east = max(east, x)
        south = min(south, position.latitude)
        north = max(north, position.latitude)
      }
      guard distinct >= 3, abs(x + wrapped(first.longitude - ring[count - 1].longitude) - first.longitude) <= 180 else {
        return nil
      }
      return GeoBox(south: south, north: north, west: west, east: east)
    }
  }

  /// Whether ``regionPolygons`` gives back `polygons`, the polygons these rings were made from,
  /// exactly: each ring's positions, bit for bit and in order, are its projected vertices (given
  /// closed, no turn of longitude, not closed through a pole). A ``RegionIndex`` then keeps only
  /// these rings, not the region's.
  func reproduces(_ polygons: [PolygonRegion.Polygon]) -> Bool {
    // The region's own positions (``sharingPositions(_:)`` compared them bit for bit).
    if case .positions = vertices { return true }
    // The next ring given: polygon p's exterior when h is 0, else its hole h − 1.
    var p = 0
    var h = 0
    var same = true
    forEachRingXY { xy, exterior in
      guard same, p < polygons.count, exterior == (h == 0) else {
        same = false
        return
      }
      let ring = h == 0 ? polygons[p].exterior : polygons[p].holes[h - 1]
      if h == polygons[p].holes.count {
        p += 1
        h = 0
      } else {
        h += 1
      }
      guard 2 * ring.count == xy.count else {
        same = false
        return
      }
      for (i, position) in ring.enumerated()
      where xy[2 * i].bitPattern != position.longitude.bitPattern
        || xy[2 * i + 1].bitPattern != position.latitude.bitPattern
      {
        same = false
        return
      }
    }
    return same && p == polygons.count
  }

  /// The polygons whose projection these rings are, when ``reproduces(_:)`` said so: each ring's
  /// vertices as positions.
  var regionPolygons: [PolygonRegion.Polygon] {
    if case .positions(let positions) = vertices { return [PolygonRegion.Polygon(exterior: positions)] }
    var polygons: [PolygonRegion.Polygon] = []
    var exterior: [Coordinate]?
    var holes: [[Coordinate]] = []
    forEachRingXY { xy, isExterior in
      let ring = (0..<xy.count / 2).map { Coordinate(uncheckedLatitude: xy[2 * $0 + 1], longitude: xy[2 * $0]) }
      if isExterior {
        if let exterior { polygons.append(PolygonRegion.Polygon(exterior: exterior, holes: holes)) }
        exterior = ring
        holes = []
      } else {
        holes.append(ring)
      }
    }
    // Every polygon starts with an exterior ring.
    if let exterior { polygons.append(PolygonRegion.Polygon(exterior: exterior, holes: holes)) }
    return polygons
  }

  /// Whether the vertices are the region's own positions (``sharingPositions(_:)``).
  package var sharesPositions: Bool {
    if case .positions = vertices { return true }
    return false
  }

  /// The number of vertices (ring closings included).
  var vertexCount: Int {
    switch vertices {
    case .projected(let xy): xy.count / 2
    case .positions(let positions): positions.count
    }
  }

  /// Reads vertex i's x and y wherever the vertices are stored: `stride` bytes a vertex, x and y
  /// at their offsets in it.
  struct VertexReader {
    let base: UnsafeRawPointer
    let stride: Int
    let xOffset: Int
    let yOffset: Int

    /// Edge i as (x0, y0, x1, y1): from vertex i to vertex i + 1.
    @inline(__always)
    func edge(_ i: Int) -> SIMD4<Double> {
      let p = base + i &* stride
      let q = p + stride
      return SIMD4(
        p.load(fromByteOffset: xOffset, as: Double.self), p.load(fromByteOffset: yOffset, as: Double.self),
        q.load(fromByteOffset: xOffset, as: Double.self), q.load(fromByteOffset: yOffset, as: Double.self))
    }
  }

  /// Calls `body` with a reader of the vertices, valid only inside it.
  @inline(__always)
  func withVertices<R>(_ body: (VertexReader) -> R) -> R {
    switch vertices {
    case .projected(let xy):
      return xy.withUnsafeBytes { raw in
        body(
          VertexReader(base: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, stride: 16, xOffset: 0, yOffset: 8))
      }
    case .positions(let positions):
      return positions.withUnsafeBytes { raw in
        body(
          VertexReader(
            base: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, stride: MemoryLayout<Coordinate>.stride,
            xOffset: MemoryLayout<Coordinate>.offset(of: \.longitude)!,
            yOffset: MemoryLayout<Coordinate>.offset(of: \.latitude)!))
      }
    }
  }

  /// Calls `body(first, end)` for each ring: its vertices are `first..<end` (the last repeating
  /// the first), so its edges start at `first..<end - 1`.
  @inline(__always)
  func forEachRing(_ body: (Int, Int) -> Void) {
    if ringEnds.isEmpty { return body(0, vertexCount) }
    var first = 0
    for encoded in ringEnds {
      let end = Int(encoded < 0 ? ~encoded : encoded)
      body(first, end)
      first = end
    }
  }

  /// The number of rings.
  var ringCount: Int { max(1, ringEnds.count) }

  /// Each ring's vertices `first..<end` (the last repeating the first) and whether it is an
  /// exterior ring (it starts a polygon; the rings after it up to the next exterior are its
  /// holes), ring after ring.
  var ringLayout: [(first: Int, end: Int, exterior: Bool)] {
    if ringEnds.isEmpty { return [(0, vertexCount, true)] }
    var layout: [(first: Int, end: Int, exterior: Bool)] = []
    layout.reserveCapacity(ringEnds.count)
    var first = 0
    for encoded in ringEnds {
      let end = Int(encoded < 0 ? ~encoded : encoded)
      layout.append((first, end, encoded < 0))
      first = end
    }
    return layout
  }

  /// Calls `body` with each ring's vertices as [x0, y0, x1, y1, …] (closed), ring after ring,
  /// and whether the ring is an exterior one (it starts a polygon; the rest are its holes). The
  /// buffer is valid only inside `body`; projected vertices are passed where they lie, a region's
  /// own positions through one scratch copy.
  package func forEachRingXY(_ body: (UnsafeBufferPointer<Double>, _ exterior: Bool) -> Void) {
    func rings(_ xy: UnsafeBufferPointer<Double>) {
      // One exterior ring: no list of ends.
      if ringEnds.isEmpty { return body(xy, true) }
      var first = 0
      for encoded in ringEnds {
        let end = Int(encoded < 0 ? ~encoded : encoded)
        body(UnsafeBufferPointer(rebasing: xy[2 * first..<2 * end]), encoded < 0)
        first = end
      }
    }
    switch vertices {
    case .projected(let xy):
      xy.withUnsafeBufferPointer { rings($0) }
    case .positions(let positions):
      var xy: [Double] = []
      xy.reserveCapacity(2 * positions.count)
      for position in positions {
        xy.append(position.longitude)
        xy.append(position.latitude)
      }
      xy.withUnsafeBufferPointer { rings($0) }
    }
  }

  /// The rings as `rings[p][0]` the exterior of polygon p, the rest its holes, each
  /// [x0, y0, x1, y1, …] (for GEOS).
  package var rings: [[[Double]]] {
    var all: [[[Double]]] = []
    var first = 0
    let ends = ringEnds.isEmpty ? [~Int32(vertexCount)] : ringEnds
    withVertices { vertices in
      for encoded in ends {
        let end = Int(encoded < 0 ? ~encoded : encoded)
        if encoded < 0 { all.append([]) }
        var ring: [Double] = []
        ring.reserveCapacity(2 * (end - first))
        for i in first..<end - 1 {
          let e = vertices.edge(i)
          ring.append(e.x)
          ring.append(e.y)
        }
        let last = vertices.edge(end - 2)
        ring.append(last.z)
        ring.append(last.w)
        all[all.count - 1].append(ring)
        first = end
      }
    }
    return all
  }

  /// Unwraps one ring, closes it (through a pole if it encircles one) and appends it to `xy`.
  static func project(
    _ ring: [Coordinate], origin: Double, identifier: String, polygon: Int, ring index: Int, into xy: inout [Double]
  ) throws(RegionError) {
    var count = ring.count
    if count > 1, ring[0] == ring[count - 1] { count -= 1 }
    var distinct = 0
    for i in 0..<count where i == 0 || ring[i] != ring[i - 1] { distinct += 1 }
    guard distinct >= 3 else {
      throw RegionError(
        identifier: identifier, reason: .ringTooShort(polygon: polygon, ring: index, positions: distinct))
    }
    let first = xy.count
    var x = origin + wrapped(ring[0].longitude - origin)
    xy.append(x)
    xy.append(ring[0].latitude)
    for i in 1..<count {
      x += wrapped(ring[i].longitude - ring[i - 1].longitude)
      xy.append(x)
      xy.append(ring[i].latitude)
    }
    let closingX = x + wrapped(ring[0].longitude - ring[count - 1].longitude)
    let turn = closingX - xy[first]
    if abs(turn) > 180 {
      // The ring winds once around the pole: close it along the pole's "parallel".
      guard index == 0 else {
        throw RegionError(identifier: identifier, reason: .holeEncirclesPole(polygon: polygon, ring: index))
      }
      let pole = turn > 0 ? 90.0 : -90.0
      xy += [closingX, ring[0].latitude, closingX, pole, xy[first], pole]
    }
    xy.append(xy[first])
    xy.append(xy[first + 1])
  }

  /// Reduces a longitude difference to `-180..<180`.
  @inline(__always)
  static func wrapped(_ d: Double) -> Double {
    // Differences of normalised longitudes lie in (-360, 360): one step usually suffices.
    if d >= -180 && d < 180 { return d }
    if d >= 180 && d < 540 { return d - 360 }
    if d < -180 && d >= -540 { return d + 360 }
    let r = d.remainder(dividingBy: 360)
    return r >= 180 ? r - 360 : r
  }

  /// The projected x of a longitude: shifted by whole turns to lie within 180° of the middle of
  /// the polygons' longitude range, which puts every point of the polygons at its own x.
  func x(longitude: Double) -> Double {
    longitude + turns(longitude: longitude)
  }

  /// The whole turns (a multiple of 360, exact) that ``x(longitude:)`` adds to `longitude`.
  @inline(__always)
  func turns(longitude: Double) -> Double {
    let middle = (box.west + box.east) / 2
    return 360 * ((middle - longitude) / 360).rounded(.toNearestOrEven)
  }

  /// The middle of the projected longitude range.
  var middleX: Double { (box.west + box.east) / 2 }
}
