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
  /// The projected rings.
  package let planar: PlanarPolygons

  /// Creates a polygonal region.
  /// - Throws: ``RegionError`` naming the polygon and ring that is too short or encircles a pole
  ///   as a hole, or saying that the polygons span more than 360° of longitude.
  public init(identifier: RegionIdentifier, polygons: [Polygon]) throws(RegionError) {
    let planar = try PlanarPolygons(identifier: identifier.rawValue, polygons: polygons)
    self.identifier = identifier
    self.polygons = polygons
    self.planar = planar
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

/// Rings of a polygonal region in GeoWake's polygon projection (see ``PolygonRegion``): flat
/// (x, y) pairs, x = unwrapped longitude, y = latitude, each ring closed.
package struct PlanarPolygons: Sendable {
  /// `rings[p][0]` is the exterior of polygon p, the rest its holes; each is [x0, y0, x1, y1, …].
  package let rings: [[[Double]]]
  /// The bounding box in (unwrapped longitude, latitude).
  let box: GeoBox

  init(identifier: String, polygons: [PolygonRegion.Polygon]) throws(RegionError) {
    guard !polygons.isEmpty, polygons.allSatisfy({ !$0.exterior.isEmpty }) else {
      throw RegionError(identifier: identifier, reason: .emptyPolygon)
    }
    let origin = polygons[0].exterior[0].longitude
    var all: [[[Double]]] = []
    for (p, polygon) in polygons.enumerated() {
      var rings: [[Double]] = []
      for (r, ring) in ([polygon.exterior] + polygon.holes).enumerated() {
        rings.append(try Self.project(ring, origin: origin, identifier: identifier, polygon: p, ring: r))
      }
      all.append(rings)
    }
    var south = Double.infinity
    var north = -Double.infinity
    var west = Double.infinity
    var east = -Double.infinity
    for rings in all {
      let shell = rings[0]
      for i in stride(from: 0, to: shell.count, by: 2) {
        west = min(west, shell[i])
        east = max(east, shell[i])
        south = min(south, shell[i + 1])
        north = max(north, shell[i + 1])
      }
    }
    if east - west > 360 {
      throw RegionError(
        identifier: identifier,
        reason: .invalidPolygon("the polygons span more than 360° of longitude once unwrapped; split them into regions"))
    }
    rings = all
    box = GeoBox(south: south, north: north, west: west, east: east)
  }

  /// Unwraps one ring and closes it (through a pole if it encircles one).
  static func project(_ ring: [Coordinate], origin: Double, identifier: String, polygon: Int, ring index: Int)
    throws(RegionError) -> [Double]
  {
    var points = ring
    if let first = points.first, let last = points.last, points.count > 1, first == last { points.removeLast() }
    var distinct = 0
    for (i, p) in points.enumerated() where i == 0 || p != points[i - 1] { distinct += 1 }
    guard distinct >= 3 else {
      throw RegionError(identifier: identifier, reason: .ringTooShort(polygon: polygon, ring: index, positions: distinct))
    }
    var xy: [Double] = []
    xy.reserveCapacity(points.count * 2 + 6)
    var x = origin + wrapped(points[0].longitude - origin)
    xy.append(x)
    xy.append(points[0].latitude)
    for i in 1..<points.count {
      x += wrapped(points[i].longitude - points[i - 1].longitude)
      xy.append(x)
      xy.append(points[i].latitude)
    }
    let closingX = x + wrapped(points[0].longitude - points[points.count - 1].longitude)
    let turn = closingX - xy[0]
    if abs(turn) > 180 {
      // The ring winds once around the pole: close it along the pole's "parallel".
      guard index == 0 else { throw RegionError(identifier: identifier, reason: .holeEncirclesPole(polygon: polygon, ring: index)) }
      let pole = turn > 0 ? 90.0 : -90.0
      xy += [closingX, points[0].latitude, closingX, pole, xy[0], pole]
    }
    xy.append(xy[0])
    xy.append(xy[1])
    return xy
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
