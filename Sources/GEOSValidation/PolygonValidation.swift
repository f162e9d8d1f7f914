internal import CGEOS
public import Geofencing

extension PolygonRegion {
  /// Checks that the region is a valid polygon or multipolygon in the OGC sense — rings that do
  /// not cross themselves or each other, holes inside their shell, parts that do not overlap —
  /// with GEOS (`GEOSisValidReason_r`) on GeoWake's projected rings.
  ///
  /// The geometry core accepts any polygon whose rings are long enough and decides containment by
  /// the even-odd rule, which is the usual meaning only for valid polygons; call this on polygons
  /// from outside (files, users) to reject the others with GEOS's explanation.
  ///
  /// A polygon that is certainly valid (`PlanarPolygons.isCertainlyValid`: orientation signs,
  /// beyond any rounding, show every ring simple, no two rings touching, each hole inside its
  /// exterior ring and in no other hole, no part inside another) passes without a GEOS geometry
  /// being built: GEOS finds every such polygon valid. The others, and every invalid polygon, are
  /// decided and explained by GEOS.
  /// - Throws: ``RegionError`` with ``RegionError/Reason/invalidPolygon(_:)`` quoting GEOS's
  ///   reason and location (projected coordinates: longitude unwrapped, latitude, in degrees), or
  ///   ``RegionError/Reason/geometryEngine(_:)`` if GEOS itself fails.
  public func validateWithGEOS() throws(RegionError) {
    if planar.isCertainlyValid { return }
    let reason: String?
    do throws(GEOSError) {
      let context = try GEOSContext()
      reason = try GEOSGeometry.polygonal(context, planar: planar).invalidityReason()
    } catch {
      throw RegionError(identifier: identifier.rawValue, reason: .geometryEngine(error.description))
    }
    if let reason { throw RegionError(identifier: identifier.rawValue, reason: .invalidPolygon(reason)) }
  }
}

extension Region {
  /// ``PolygonRegion/validateWithGEOS()`` for a polygon; nothing to check for a circle.
  public func validateWithGEOS() throws(RegionError) {
    if case .polygon(let polygon) = self { try polygon.validateWithGEOS() }
  }
}
