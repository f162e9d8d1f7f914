import Geodesy

extension RegionMonitor {
  /// A monitor's state, to be saved (`Codable`) when an app is relaunched or a server restarts,
  /// and restored over the same regions, profile, notifications and seed: the restored monitor
  /// gives exactly the events the original would have given from then on.
  ///
  /// ```swift
  /// let saved = try JSONEncoder().encode(monitor.snapshot())
  /// // … later, in another process:
  /// var monitor = try RegionMonitor(
  ///   restoring: JSONDecoder().decode(RegionMonitor.Snapshot.self, from: saved),
  ///   regions: fences, profile: .server, seed: 7)
  /// ```
  ///
  /// Small: the regions are not in it (only ``RegionSet/fingerprint``), only the device's own
  /// state — the regions it is inside, its unconfirmed crossings, fixes held for reordering.
  /// A monitor whose regions were changed while running is restored over its ``regions`` at the
  /// time of the snapshot.
  public struct Snapshot: Codable, Sendable, Hashable {
    var detector: CrossingDetector.Snapshot
    var profile: String
    var profileFingerprint: UInt64
    var seed: UInt64
    var fixCount: Int
    var rejections: [String: Int]
    var suppressedFlaps: [String: Int]
    var started: Bool
    /// Identifiers of the regions confirmed inside, in slot order.
    var confirmedInside: [String]
    var pending: [PendingRecord]
    var last: FixRecord?
    var dwellDue: [String: Double]
    var reorder: FixReorderBuffer.State
    /// Early entries (a profile with an entry lead): regions approached afresh, and the lead
    /// drawn per region approached. Absent in snapshots without them.
    var approachArmed: [String]?
    var approachLeads: [String: Double]?
    /// Per region, when its last delivered event reaches the app. Absent: none.
    var lastDelivery: [String: Double]?
  }

  struct PendingRecord: Codable, Sendable, Hashable {
    var region: String
    var enter: Bool
    var time: Double
    var latitude: Double
    var longitude: Double
    var fromFix: Int
    var toFix: Int
    var passThrough: Bool
    var beyondSince: Double?
    var depth: Double
    /// An early entry (absent: no).
    var approach: Bool?
  }

  /// The monitor's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    let regions = detector.regions
    return Snapshot(
      detector: detector.snapshot(), profile: profile.name, profileFingerprint: Self.fingerprint(profile), seed: seed,
      fixCount: fixCount, rejections: rejections,
      suppressedFlaps: Dictionary(uniqueKeysWithValues: suppressedFlaps.map { ($0.key.rawValue, $0.value) }),
      started: started,
      confirmedInside: confirmedInside.sorted.map { regions.identifier(slot: $0).rawValue },
      pending: pending.map { p in
        PendingRecord(
          region: p.crossing.region.rawValue, enter: p.crossing.direction == .enter, time: p.crossing.time,
          latitude: p.crossing.coordinate.latitude, longitude: p.crossing.coordinate.longitude,
          fromFix: p.crossing.fromFix, toFix: p.crossing.toFix, passThrough: p.crossing.isPassThrough,
          beyondSince: p.beyondSince, depth: p.depth, approach: p.isApproach ? true : nil)
      },
      last: lastTime.flatMap { time in lastCoordinate.map { FixRecord(LocationFix(time: time, coordinate: $0)) } },
      dwellDue: Dictionary(uniqueKeysWithValues: dwellDue.map { ($0.key.rawValue, $0.value) }),
      reorder: reorder.state,
      approachArmed: approachArmed.isEmpty ? nil : approachArmed.sorted.map { regions.identifier(slot: $0).rawValue },
      approachLeads: approachLeads.isEmpty
        ? nil : Dictionary(uniqueKeysWithValues: approachLeads.map { (regions.identifier(slot: $0.key).rawValue, $0.value) }),
      lastDelivery: lastDelivery.isEmpty ? nil : Dictionary(uniqueKeysWithValues: lastDelivery.map { ($0.key.rawValue, $0.value) }))
  }

  /// A monitor in the state of `snapshot`, over the regions, profile, notifications and seed it
  /// was taken with (regions past the profile's cap fail again, without a second
  /// `monitoringFailed` event).
  /// - Throws: ``SnapshotError`` when the regions, the profile or the seed differ from the
  ///   snapshot's, or a field is out of range; ``RegionMonitoringProfile/InvalidValue`` for an
  ///   invalid profile.
  public init(
    restoring snapshot: Snapshot, regions: RegionSet, profile: RegionMonitoringProfile,
    notifications: [RegionIdentifier: RegionNotifications] = [:], seed: UInt64
  ) throws {
    try self.init(regions: regions, profile: profile, notifications: notifications, seed: seed)
    guard snapshot.profile == profile.name, snapshot.profileFingerprint == Self.fingerprint(profile) else {
      throw SnapshotError(.profileDiffers(snapshot: snapshot.profile, given: profile.name))
    }
    guard snapshot.seed == seed else { throw SnapshotError(.invalidField("seed", "\(snapshot.seed), given \(seed)")) }
    detector = try CrossingDetector(restoring: snapshot.detector, regions: detector.regions)
    let set = detector.regions
    func slot(_ name: String) throws(SnapshotError) -> (RegionIdentifier, Int32) {
      guard let id = try? RegionIdentifier(name), let slot = set.slot(of: id) else {
        throw SnapshotError(.unknownRegion(name))
      }
      return (id, slot)
    }
    guard snapshot.fixCount >= 0 else { throw SnapshotError(.invalidField("fixCount", "negative")) }
    fixCount = snapshot.fixCount
    rejections = snapshot.rejections
    for (name, count) in snapshot.suppressedFlaps { suppressedFlaps[try slot(name).0] = count }
    started = snapshot.started
    for name in snapshot.confirmedInside { confirmedInside[try slot(name).1] = true }
    for record in snapshot.pending {
      let (id, s) = try slot(record.region)
      guard let coordinate = try? Coordinate(latitude: record.latitude, longitude: record.longitude),
        record.time.isFinite, record.depth.isFinite
      else { throw SnapshotError(.invalidField("pending", "crossing of \(record.region) is not a time and a place")) }
      let crossing = RegionCrossing(
        region: id, direction: record.enter ? .enter : .exit, time: record.time, coordinate: coordinate,
        fromFix: record.fromFix, toFix: record.toFix, isPassThrough: record.passThrough, slot: s)
      pending.append(Pending(
        crossing: crossing, circle: set.circularRegion(slot: s), beyondSince: record.beyondSince, depth: record.depth,
        isApproach: record.approach ?? false))
    }
    if let last = snapshot.last {
      let fix = try last.fix(field: "last")
      lastTime = fix.time
      lastCoordinate = fix.coordinate
    }
    for (name, time) in snapshot.dwellDue { dwellDue[try slot(name).0] = time }
    for name in snapshot.approachArmed ?? [] { approachArmed.insert(try slot(name).1) }
    for (name, lead) in snapshot.approachLeads ?? [:] {
      guard lead.isFinite, lead >= 0 else { throw SnapshotError(.invalidField("approachLeads", "\(name): \(lead)")) }
      approachLeads[try slot(name).1] = lead
    }
    for (name, time) in snapshot.lastDelivery ?? [:] {
      guard time.isFinite else { throw SnapshotError(.invalidField("lastDelivery", "\(name): \(time)")) }
      lastDelivery[try slot(name).0] = time
    }
    reorder = try FixReorderBuffer(window: profile.reorderWindow, restoring: snapshot.reorder)
  }

  /// A fingerprint of every field of a profile, the same in every process. Reflecting a profile
  /// takes tens of microseconds; a server saves or moves thousands of monitors on one profile, so
  /// each profile's is kept once computed (profiles equal field by field share it).
  static func fingerprint(_ profile: RegionMonitoringProfile) -> UInt64 { ProfileFingerprints.shared.value(of: profile) }
}

/// The fingerprints of the profiles seen (at most 64: a process has a handful).
final class ProfileFingerprints: @unchecked Sendable {
  static let shared = ProfileFingerprints()
  private var known: [RegionMonitoringProfile: UInt64] = [:]
  private let lock = PthreadMutex()

  func value(of profile: RegionMonitoringProfile) -> UInt64 {
    if let value = lock.withLock({ known[profile] }) { return value }
    let value = StableHash.fingerprint(reflecting: profile)
    lock.withLock { if known.count < 64 { known[profile] = value } }
    return value
  }
}
