public import Geofencing

extension DeviceTimeline {
  /// Moves the running timeline onto another version of its regions (a server's fence update),
  /// as ``RegionMonitor/replaceRegions(with:notifications:into:)`` defines: unchanged regions
  /// keep their state; removed or redefined ones end without an event (time inside stops at the
  /// last fix); new or redefined ones take their state at the last fix. The events this makes
  /// join the timeline in time order; those now certain to come first are appended.
  ///
  /// `change`, made once for a fleet moved onto the same set, spares each device a look at every
  /// region (see ``RegionSetChange``); the result is the same without it.
  public mutating func replaceRegions(
    with regions: RegionSet, notifications: [RegionIdentifier: RegionNotifications]? = nil, change: RegionSetChange? = nil,
    into events: inout [TimelineEvent]
  ) throws {
    guard !finished else { return }
    let old = monitor.regions
    var made: [RegionEvent] = []
    try monitor.replaceRegions(with: regions, notifications: notifications, change: change, into: &made)
    let end = lastTime ?? 0
    if let change, change.leads(from: old, to: monitor.regions) {
      for id in change.redefinedOrRemoved { activity.end(id, at: end) }
    } else {
      for region in old.lazyRegions where monitor.regions[region.identifier] != region {
        activity.end(region.identifier, at: end)
      }
    }
    add(made)
    release(into: &events)
  }
}
