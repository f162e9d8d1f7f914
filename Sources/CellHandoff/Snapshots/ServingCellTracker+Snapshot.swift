import Geodesy
public import SavedState
import SeededRandom

extension ServingCellTracker {
  /// A tracker's state, to be saved (`Codable`) and restored over the same layout and profile:
  /// the restored tracker gives exactly the changes the original would have given from then on,
  /// and counts the same (skipped fixes and cache fills included).
  ///
  /// Small: the towers are not in it (a tower map only by its ``TowerMap/fingerprint``), only the
  /// device's own state — the serving cell, a handoff waiting for its time-to-trigger, the cell
  /// before (for ping-pongs), the synthetic layout's anchor and where fixes may be skipped.
  public struct Snapshot: Codable, Sendable, Hashable {
    var layout: UInt64
    var profile: UInt64
    var cacheRadius: Double
    var serving: CellIdentity?
    var servingTower: CellTower?
    var handoffCount: Int
    var suppressedPingPongs: Int
    var fixCount: Int
    var skippedFixes: Int
    var cacheFills: Int
    var hexagonalAnchor: Coordinate?
    var cacheAnchor: Coordinate?
    var skip: Skip?
    var previous: Previous?
    var pending: Pending?

    struct Skip: Codable, Sendable, Hashable {
      var radius: Double
      var latitude: Double
      var longitude: Double
      var cosLatitude: Double
    }

    struct Previous: Codable, Sendable, Hashable {
      var cell: CellIdentity
      var time: Double
    }

    struct Pending: Codable, Sendable, Hashable {
      var target: CellIdentity
      var since: Double
      var suppressed: Bool
    }
  }

  /// The tracker's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    Snapshot(
      layout: Self.fingerprint(layout), profile: Self.fingerprint(profile), cacheRadius: cacheRadius, serving: serving,
      servingTower: servingTower, handoffCount: handoffCount, suppressedPingPongs: suppressedPingPongs, fixCount: fixCount,
      skippedFixes: skippedFixes, cacheFills: cacheFills, hexagonalAnchor: hexagonal?.anchor, cacheAnchor: cacheAnchor,
      skip: skipRadius > 0
        ? Snapshot.Skip(
          radius: skipRadius, latitude: skipAnchor.latitude, longitude: skipAnchor.longitude, cosLatitude: skipAnchor.cosLatitude)
        : nil,
      previous: previous.map { Snapshot.Previous(cell: $0.cell, time: $0.time) },
      pending: pending.map { Snapshot.Pending(target: $0.target, since: $0.since, suppressed: $0.suppressed) })
  }

  /// A tracker in the state of `snapshot`, over the layout and profile it was saved with.
  /// - Throws: ``SnapshotError`` when the layout, the profile or the cache radius differ from the
  ///   snapshot's, or a field is out of range; ``CellLayoutError`` for a hexagonal layout whose
  ///   spacing is out of range.
  public init(
    restoring snapshot: Snapshot, layout: CellLayout, profile: CellSelectionProfile = .lte,
    cacheRadius: Double = defaultCacheRadius
  ) throws {
    try self.init(layout: layout, profile: profile, cacheRadius: cacheRadius)
    guard snapshot.layout == Self.fingerprint(layout) else { throw SnapshotError(.settingsDiffer("cell layout")) }
    guard snapshot.profile == Self.fingerprint(profile) else { throw SnapshotError(.settingsDiffer("cell selection profile")) }
    guard snapshot.cacheRadius == self.cacheRadius else {
      throw SnapshotError(.invalidField("cacheRadius", "\(snapshot.cacheRadius), given \(self.cacheRadius)"))
    }
    for (field, count) in [
      ("handoffCount", snapshot.handoffCount), ("suppressedPingPongs", snapshot.suppressedPingPongs),
      ("fixCount", snapshot.fixCount), ("skippedFixes", snapshot.skippedFixes), ("cacheFills", snapshot.cacheFills),
    ] where count < 0 {
      throw SnapshotError(.invalidField(field, "negative"))
    }
    if let tower = snapshot.servingTower {
      guard tower.identity == snapshot.serving, tower.range.isFinite, tower.range > 0 else {
        throw SnapshotError(.invalidField("servingTower", "not a tower of the serving cell with a positive range"))
      }
    }
    if let skip = snapshot.skip {
      guard skip.radius.isFinite, skip.radius > 0, skip.latitude.isFinite, skip.longitude.isFinite, skip.cosLatitude.isFinite
      else { throw SnapshotError(.invalidField("skip", "not a finite radius and anchor")) }
      skipRadius = skip.radius
      skipAnchor = (skip.latitude, skip.longitude, skip.cosLatitude)
    }
    if let time = snapshot.previous?.time, !time.isFinite { throw SnapshotError(.invalidField("previous", "time is not finite")) }
    if let since = snapshot.pending?.since, !since.isFinite { throw SnapshotError(.invalidField("pending", "time is not finite")) }
    if let anchor = snapshot.hexagonalAnchor, case .hexagonal(let spacing) = layout {
      hexagonal = HexagonalCellLayout(validAnchor: anchor, spacing: spacing)
    }
    serving = snapshot.serving
    servingTower = snapshot.servingTower
    previous = snapshot.previous.map { ($0.cell, $0.time) }
    pending = snapshot.pending.map { ($0.target, $0.since, $0.suppressed) }
    if let anchor = snapshot.cacheAnchor { fillCache(around: anchor, Ellipsoid.wgs84.cartesian(anchor)) }
    handoffCount = snapshot.handoffCount
    suppressedPingPongs = snapshot.suppressedPingPongs
    fixCount = snapshot.fixCount
    skippedFixes = snapshot.skippedFixes
    cacheFills = snapshot.cacheFills
  }

  /// A fingerprint of a layout: the tower map's, or the synthetic layout's spacing.
  static func fingerprint(_ layout: CellLayout) -> UInt64 {
    var hash = StableHash()
    switch layout {
    case .towers(let map):
      hash.combine("towers")
      hash.combine(map.fingerprint)
    case .hexagonal(let spacing):
      hash.combine("hexagonal")
      hash.combine(spacing.bitPattern)
    }
    return hash.finalized
  }

  /// A fingerprint of every field of a profile, the same in every process.
  static func fingerprint(_ profile: CellSelectionProfile) -> UInt64 { StableHash.fingerprint(reflecting: profile) }
}

extension SignificantChangeMonitor {
  /// A monitor's state, to be saved (`Codable`) and restored under the same profile: the last
  /// delivered event and the counts.
  public struct Snapshot: Codable, Sendable, Hashable {
    var profile: String
    var profileFingerprint: UInt64
    var lastDelivered: SignificantChangeEvent?
    var deliveredCount: Int
    var suppressedCount: Int
  }

  /// The monitor's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    Snapshot(
      profile: profile.name, profileFingerprint: Self.fingerprint(profile), lastDelivered: lastDelivered,
      deliveredCount: deliveredCount, suppressedCount: suppressedCount)
  }

  /// A monitor in the state of `snapshot`, under the profile it was saved with.
  /// - Throws: ``SnapshotError`` when the profile differs or a count is negative.
  public init(restoring snapshot: Snapshot, profile: SignificantChangeProfile = .ios) throws(SnapshotError) {
    guard snapshot.profileFingerprint == Self.fingerprint(profile) else {
      throw SnapshotError(.profileDiffers(snapshot: snapshot.profile, given: profile.name))
    }
    guard snapshot.deliveredCount >= 0, snapshot.suppressedCount >= 0 else {
      throw SnapshotError(.invalidField("deliveredCount", "negative count"))
    }
    if let last = snapshot.lastDelivered, !last.time.isFinite {
      throw SnapshotError(.invalidField("lastDelivered", "time is not finite"))
    }
    self.init(profile: profile)
    lastDelivered = snapshot.lastDelivered
    deliveredCount = snapshot.deliveredCount
    suppressedCount = snapshot.suppressedCount
  }

  static func fingerprint(_ profile: SignificantChangeProfile) -> UInt64 { StableHash.fingerprint(reflecting: profile) }
}
