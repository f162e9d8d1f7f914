#if Server
import GEOSValidation
public import Geofencing
public import TrackIO

/// One version of the fence set: the regions, what the app wants of each, and the log row of the
/// change that made it (0: the regions file).
public struct FenceSet: Sendable {
  public var regions: RegionSet
  public var notifications: [RegionIdentifier: RegionNotifications]
  public var row: Int64

  public init(regions: RegionSet, notifications: [RegionIdentifier: RegionNotifications], row: Int64) {
    self.regions = regions
    self.notifications = notifications
    self.row = row
  }

  /// A region as a client puts it: one GeoJSON Feature (or region object) for `identifier`,
  /// its polygons checked by GEOS as a regions file's are.
  /// - Throws: ``TrackIOError`` naming the line and column of the problem.
  public static func region(_ identifier: String, body: [UInt8]) throws(TrackIOError) -> (Region, RegionNotifications) {
    let file = try RegionFileReader.read(json: body, name: "body", identifier: identifier) { (polygon) throws(RegionError) in
      try polygon.validateWithGEOS()
    }
    // One Feature was read (the reader refuses anything else when given an identifier).
    let region = file.regions[0]
    return (region, file.notifications[region.identifier] ?? .all)
  }

  /// This set with `region` put (added, or in place of the one with its identifier).
  func putting(_ region: Region, wanting notifications: RegionNotifications, at row: Int64) -> FenceSet {
    var next = self
    next.regions.insert(region)
    next.notifications[region.identifier] = notifications == .all ? nil : notifications
    next.row = row
    return next
  }

  /// This set without the region `identifier`.
  func removing(_ identifier: RegionIdentifier, at row: Int64) -> FenceSet {
    var next = self
    next.regions.remove(identifier)
    next.notifications[identifier] = nil
    next.row = row
    return next
  }

  /// The set after a stored change (read again from the bytes stored: the same region).
  func applying(_ change: EngineStore.FenceChange) throws -> FenceSet {
    let id = try RegionIdentifier(change.region)
    guard let body = change.body else { return removing(id, at: change.row) }
    let (region, wanted) = try Self.region(change.region, body: body)
    return putting(region, wanting: wanted, at: change.row)
  }
}
#endif
