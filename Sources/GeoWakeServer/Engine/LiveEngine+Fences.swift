#if Server
import Foundation
import JSONBytes
import GeoWake
import Geodesy
public import Geofencing

extension LiveEngine {
  /// What a change to the fence set did.
  public struct FenceAnswer: Sendable {
    public var region: String
    /// Whether a region with the identifier was there before (replaced, or removed).
    public var existed: Bool
    /// The set's version after the change (the change's log row).
    public var version: Int64
    /// Events the change released (the state of a device inside a region put), and the
    /// stream's last sequence number after it.
    public var events = 0
    public var lastSequence: Int64 = 0
  }

  /// Puts `region` into the fence set, in place of the one with its identifier if there is one,
  /// and moves every live device onto the new set
  /// (``DeviceTimeline/replaceRegions(with:notifications:into:)``): `body` (the Feature as
  /// sent) is stored with the change, the events it makes too, in one transaction.
  public func put(_ region: Region, wanting notifications: RegionNotifications, body: [UInt8]) throws -> FenceAnswer {
    let existed = fences.regions.contains(region.identifier)
    return try change(region.identifier.rawValue, body: body, existed: existed) { $0.putting(region, wanting: notifications, at: $1) }
  }

  /// Removes the region `identifier` from the fence set; nil when the set has none. A device
  /// inside it gets no event (as `stopMonitoring`): the region leaves its list.
  public func remove(_ identifier: RegionIdentifier) throws -> FenceAnswer? {
    guard fences.regions.contains(identifier) else { return nil }
    return try change(identifier.rawValue, body: nil, existed: true) { $0.removing(identifier, at: $1) }
  }

  private func change(_ region: String, body: [UInt8]?, existed: Bool, _ next: (FenceSet, Int64) -> FenceSet) throws -> FenceAnswer {
    var answer = IngestAnswer()
    var tally = EngineMetrics()
    var events: [TimelineEvent] = []
    let row: Int64
    do {
      try store.begin()
      row = try store.appendFenceChange(region: region, body: body)
      let fences = next(self.fences, row)
      let changed = Self.changed(region, from: self.fences, to: fences)
      // What differs, once for every device.
      let change = RegionSetChange(
        from: self.fences.regions, notifications: self.fences.notifications, to: fences.regions, notifications: fences.notifications)
      for name in devices.keys.sorted() {
        let slot = devices.index(forKey: name)!
        events.removeAll(keepingCapacity: true)
        try devices.values[slot].move(onto: fences, change: change, changed: changed, into: &events)
        devices.values[slot].lastRow = row
        dirty.insert(name)
        for event in events { try append(event, device: name, visits: &devices.values[slot].visits, tally: &tally, answer: &answer) }
      }
      try store.commit()
      self.fences = fences
      fleet = Self.fleet(fences, settings)
      lastRow = row
    } catch {
      store.rollback()
      try rebuild()
      throw error
    }
    metrics.fenceChanges += 1
    publish(tally, answer: answer, started: nil)
    return FenceAnswer(region: region, existed: existed, version: row, events: answer.events, lastSequence: lastSequence)
  }
}
#endif
