internal import CGEOS
package import Geofencing

/// An owned GEOS geometry (`GEOSGeom_destroy_r` on deinit). Keeps its context alive.
/// - Important: Confine to one task, like its ``GEOSContext``.
package final class GEOSGeometry {
  package let context: GEOSContext
  package let handle: OpaquePointer

  /// Takes ownership of `handle`.
  package init(context: GEOSContext, owning handle: OpaquePointer) {
    self.context = context
    self.handle = handle
  }

  deinit { GEOSGeom_destroy_r(context.handle, handle) }

  /// A linear ring from (x, y) pairs; the first pair must equal the last.
  /// Wraps `GEOSCoordSeq_copyFromBuffer_r` and `GEOSGeom_createLinearRing_r`.
  package static func ringHandle(_ context: GEOSContext, xy: [Double]) throws(GEOSError) -> OpaquePointer {
    try xy.withUnsafeBufferPointer { buffer throws(GEOSError) in try ringHandle(context, xy: buffer) }
  }

  /// ``ringHandle(_:xy:)`` from a buffer of (x, y) pairs, copied.
  package static func ringHandle(_ context: GEOSContext, xy buffer: UnsafeBufferPointer<Double>) throws(GEOSError)
    -> OpaquePointer
  {
    let sequence = buffer.baseAddress.flatMap { base in
      GEOSCoordSeq_copyFromBuffer_r(context.handle, base, UInt32(buffer.count / 2), 0, 0)
    }
    guard let sequence else { throw context.takeError("GEOSCoordSeq_copyFromBuffer_r") }
    // GEOSGeom_createLinearRing_r takes ownership of the sequence, also on failure.
    guard let ring = GEOSGeom_createLinearRing_r(context.handle, sequence) else {
      throw context.takeError("GEOSGeom_createLinearRing_r")
    }
    return ring
  }

  /// A polygon or multipolygon from rings of (x, y) pairs: `polygons[i][0]` is the shell of
  /// polygon i, the rest are its holes. Wraps `GEOSGeom_createPolygon_r` and
  /// `GEOSGeom_createCollection_r(GEOS_MULTIPOLYGON)`.
  package static func polygonal(_ context: GEOSContext, polygons: [[[Double]]]) throws(GEOSError) -> GEOSGeometry {
    var parts: [OpaquePointer?] = []
    do throws(GEOSError) {
      for rings in polygons {
        let shell = try ringHandle(context, xy: rings[0])
        var holes: [OpaquePointer?] = []
        for ring in rings.dropFirst() {
          do throws(GEOSError) { holes.append(try ringHandle(context, xy: ring)) } catch {
            GEOSGeom_destroy_r(context.handle, shell)
            for hole in holes { GEOSGeom_destroy_r(context.handle, hole) }
            throw error
          }
        }
        // GEOSGeom_createPolygon_r takes ownership of the shell and of every hole (not of the array).
        let polygon = holes.withUnsafeMutableBufferPointer { buffer in
          GEOSGeom_createPolygon_r(context.handle, shell, buffer.baseAddress, UInt32(buffer.count))
        }
        guard let polygon else { throw context.takeError("GEOSGeom_createPolygon_r") }
        parts.append(polygon)
      }
    } catch {
      for part in parts { GEOSGeom_destroy_r(context.handle, part) }
      throw error
    }
    return try polygonal(context, parts: parts)
  }

  /// The polygon or multipolygon of projected rings `planar`, read from where its vertices lie
  /// (``polygonal(_:polygons:)`` without the nested arrays).
  package static func polygonal(_ context: GEOSContext, planar: PlanarPolygons) throws(GEOSError) -> GEOSGeometry {
    // Per polygon, its shell and holes, as ring handles; each part once made.
    var parts: [OpaquePointer?] = []
    var rings: [OpaquePointer?] = []
    var failure: GEOSError?
    func destroy(_ handles: [OpaquePointer?]) {
      for handle in handles { GEOSGeom_destroy_r(context.handle, handle) }
    }
    /// Makes a polygon of `rings` (shell first) into `parts`; GEOS takes ownership of the rings.
    func closePolygon() {
      guard let shell = rings.first else { return }
      let polygon = rings.withUnsafeMutableBufferPointer { buffer in
        GEOSGeom_createPolygon_r(context.handle, shell, buffer.baseAddress.map { $0 + 1 }, UInt32(buffer.count - 1))
      }
      rings.removeAll(keepingCapacity: true)
      if let polygon { parts.append(polygon) } else { failure = context.takeError("GEOSGeom_createPolygon_r") }
    }
    planar.forEachRingXY { xy, exterior in
      guard failure == nil else { return }
      if exterior { closePolygon() }
      guard failure == nil else { return }
      do throws(GEOSError) { rings.append(try ringHandle(context, xy: xy)) } catch { failure = error }
    }
    if failure == nil { closePolygon() }
    if let failure {
      destroy(rings)
      destroy(parts)
      throw failure
    }
    return try polygonal(context, parts: parts)
  }

  /// One polygon as it is, several as a multipolygon (`GEOSGeom_createCollection_r`); takes
  /// ownership of every part.
  private static func polygonal(_ context: GEOSContext, parts: [OpaquePointer?]) throws(GEOSError) -> GEOSGeometry {
    if parts.count == 1, let single = parts[0] { return GEOSGeometry(context: context, owning: single) }
    var parts = parts
    let collection = parts.withUnsafeMutableBufferPointer { buffer in
      GEOSGeom_createCollection_r(context.handle, Int32(GEOS_MULTIPOLYGON.rawValue), buffer.baseAddress, UInt32(buffer.count))
    }
    guard let collection else { throw context.takeError("GEOSGeom_createCollection_r") }
    return GEOSGeometry(context: context, owning: collection)
  }

  /// An axis-aligned rectangle (`GEOSGeom_createRectangle_r`).
  package static func rectangle(_ context: GEOSContext, xmin: Double, ymin: Double, xmax: Double, ymax: Double)
    throws(GEOSError) -> GEOSGeometry
  {
    guard let handle = GEOSGeom_createRectangle_r(context.handle, xmin, ymin, xmax, ymax) else {
      throw context.takeError("GEOSGeom_createRectangle_r")
    }
    return GEOSGeometry(context: context, owning: handle)
  }

  /// A point (`GEOSGeom_createPointFromXY_r`).
  package static func point(_ context: GEOSContext, x: Double, y: Double) throws(GEOSError) -> GEOSGeometry {
    guard let handle = GEOSGeom_createPointFromXY_r(context.handle, x, y) else {
      throw context.takeError("GEOSGeom_createPointFromXY_r")
    }
    return GEOSGeometry(context: context, owning: handle)
  }

  /// The radius of the largest circle inside the (polygonal) geometry, within `tolerance`
  /// (`GEOSMaximumInscribedCircle_r`, whose result is the line from that circle's centre to the
  /// nearest boundary point; `GEOSLength_r`).
  package func maximumInscribedRadius(tolerance: Double) throws(GEOSError) -> Double {
    guard let line = GEOSMaximumInscribedCircle_r(context.handle, handle, tolerance) else {
      throw context.takeError("GEOSMaximumInscribedCircle_r")
    }
    defer { GEOSGeom_destroy_r(context.handle, line) }
    var length = 0.0
    guard GEOSLength_r(context.handle, line, &length) == 1 else { throw context.takeError("GEOSLength_r") }
    return length
  }

  /// GEOS's explanation when the geometry is invalid, `nil` when valid (`GEOSisValidReason_r`).
  package func invalidityReason() throws(GEOSError) -> String? {
    guard try context.predicate(GEOSisValid_r(context.handle, handle), "GEOSisValid_r") == false else { return nil }
    guard let reason = GEOSisValidReason_r(context.handle, handle) else {
      throw context.takeError("GEOSisValidReason_r")
    }
    defer { GEOSFree_r(context.handle, reason) }
    return String(cString: reason)
  }
}

/// A prepared geometry (`GEOSPrepare_r`): indexes its source once for fast repeated predicates.
/// Keeps the source geometry (and its context) alive.
/// - Important: Confine to one task; GEOS builds the prepared indexes lazily.
package final class GEOSPreparedGeometry {
  package let geometry: GEOSGeometry
  package let handle: OpaquePointer

  package init(_ geometry: GEOSGeometry) throws(GEOSError) {
    guard let handle = GEOSPrepare_r(geometry.context.handle, geometry.handle) else {
      throw geometry.context.takeError("GEOSPrepare_r")
    }
    self.geometry = geometry
    self.handle = handle
  }

  deinit { GEOSPreparedGeom_destroy_r(geometry.context.handle, handle) }

  package var context: GEOSContext { geometry.context }

  /// `GEOSPreparedIntersects_r`: the geometries share at least one point.
  package func intersects(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
    try context.predicate(GEOSPreparedIntersects_r(context.handle, handle, other.handle), "GEOSPreparedIntersects_r")
  }

  /// `GEOSPreparedContainsProperly_r`: `other` lies in the interior, touching no boundary.
  package func containsProperly(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
    try context.predicate(
      GEOSPreparedContainsProperly_r(context.handle, handle, other.handle), "GEOSPreparedContainsProperly_r")
  }
}
