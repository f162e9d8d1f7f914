public import CellHandoff
public import Geodesy
public import Geofencing

/// One line of a timeline, whatever produced it: a region event, a serving-cell change or a
/// significant-location-change event, in the common schema every format writes.
public struct TimelineEntry: Hashable, Sendable {
  /// `enter`, `exit`, `passThrough`, `dwell`, `state`, `monitoringFailed`, `handoff`,
  /// `significantChange` or `significantChangeSuppressed`.
  public var event: String
  /// The region, for region events.
  public var region: RegionIdentifier?
  /// When it happened (a region event's crossing time). Seconds since the Unix epoch.
  public var time: Double
  /// When the app is told, or `nil`.
  public var deliveredAt: Double?
  public var coordinate: Coordinate
  /// `inside`/`outside`/`unknown` for `state` events.
  public var state: String?
  public var reason: String
  /// For cell events: the cell left and the cell now serving.
  public var fromCell: CellIdentity?
  public var toCell: CellIdentity?
  /// The tower now serving, when known (drawn on the map).
  public var tower: CellTower?

  public init(_ e: RegionEvent) {
    event = e.kind.rawValue
    region = e.region
    time = e.crossedAt
    deliveredAt = e.deliveredAt
    coordinate = e.coordinate
    state = e.state?.rawValue
    reason = e.reason
  }

  /// A serving-cell change is a `handoff` event (attach and loss of service included); the
  /// network, not the app, sees it, so it has no delivery time.
  public init(_ c: ServingCellChange) {
    event = "handoff"
    time = c.time
    coordinate = c.coordinate
    reason = c.explanation
    fromCell = c.from
    toCell = c.to
    tower = c.toTower
  }

  public init(_ s: SignificantChangeEvent) {
    event = s.kind.rawValue
    time = s.time
    deliveredAt = s.kind == .significantChange ? s.time : nil
    coordinate = s.location.coordinate
    reason = s.reason
    fromCell = s.handoff?.from
    toCell = s.handoff?.to
    tower = s.handoff?.toTower
  }

  /// What the table's "region" column shows: the region, or "cells" for cell events.
  public var subject: String { region?.rawValue ?? "cells" }

  /// The event with its state (`state inside`).
  public var kindText: String { state.map { "\(event) \($0)" } ?? event }

  /// Whether this is a cell event (handoff or significant change).
  public var isCellEvent: Bool { region == nil }
}
