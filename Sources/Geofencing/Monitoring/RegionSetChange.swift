/// What differs between two versions of a shared ``RegionSet`` (and the notifications wanted for
/// them), worked out once for every monitor moved from one to the other.
///
/// Moving a monitor onto a new set (``RegionMonitor/replaceRegions(with:notifications:change:into:)``)
/// keeps the state of each region that is the same in both and drops or makes the state of the
/// others. Finding which those are takes a look at every region; a server that moves 10,000 devices
/// onto a set of 1,000 regions would look 10 million times at the same answer. A change holds it,
/// made once: each move then costs the device's own state and the regions that differ.
///
/// ```swift
/// var monitors = try devices.map { try RegionMonitor(regions: fences, profile: .server, seed: $0.seed) }
/// var next = fences
/// next.insert(.circle(try CircularRegion(identifier: "ferry", center: Coordinate(latitude: 37.7952, longitude: -122.3929), radius: 80)))
/// let change = RegionSetChange(from: fences, to: next)   // once, for every monitor
/// var events: [RegionEvent] = []
/// for k in monitors.indices { try monitors[k].replaceRegions(with: next, change: change, into: &events) }
/// ```
public struct RegionSetChange: Sendable {
  /// The fingerprints of the two sets.
  public let oldFingerprint: UInt64
  public let newFingerprint: UInt64
  /// Regions added, removed or redefined (another geometry, or other notifications wanted).
  public let differing: Set<RegionIdentifier>
  /// ``differing``'s identifiers as text (the form a snapshot keeps them in).
  let differingNames: Set<String>
  /// The regions of the new set that differ, in its slot order (the order their state is taken in).
  public let differingInNewSet: [RegionIdentifier]
  /// The regions of the old set removed or given another geometry, in its slot order.
  public let redefinedOrRemoved: [RegionIdentifier]

  /// The change from `old` (with `oldNotifications` wanted) to `new` (with `newNotifications`);
  /// an empty dictionary wants every transition of every region, as for a monitor.
  /// - Complexity: O(regions of both sets), once.
  public init(
    from old: RegionSet, notifications oldNotifications: [RegionIdentifier: RegionNotifications] = [:], to new: RegionSet,
    notifications newNotifications: [RegionIdentifier: RegionNotifications] = [:]
  ) {
    func wants(_ notifications: [RegionIdentifier: RegionNotifications], _ id: RegionIdentifier) -> RegionNotifications {
      notifications.isEmpty ? .all : notifications[id] ?? .all
    }
    var differing: Set<RegionIdentifier> = []
    var inNew: [RegionIdentifier] = []
    var ended: [RegionIdentifier] = []
    for region in old.lazyRegions {
      let id = region.identifier
      let now = new[id]
      if now != region { ended.append(id) }
      if now != region || wants(oldNotifications, id) != wants(newNotifications, id) { differing.insert(id) }
    }
    for region in new.lazyRegions {
      let id = region.identifier
      if old[id] != region || wants(oldNotifications, id) != wants(newNotifications, id) {
        differing.insert(id)
        inNew.append(id)
      }
    }
    oldFingerprint = old.fingerprint
    newFingerprint = new.fingerprint
    self.differing = differing
    differingNames = Set(differing.map(\.rawValue))
    differingInNewSet = inNew
    redefinedOrRemoved = ended
  }

  /// Whether the change is the one from `old` to `new`.
  public func leads(from old: RegionSet, to new: RegionSet) -> Bool {
    old.fingerprint == oldFingerprint && new.fingerprint == newFingerprint
  }
}
