import TrackIO
public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// One line of a timeline, whatever produced it: a region event, a serving-cell change, a
/// significant-location-change event or a step of the app's runtime, in the common schema every
/// format writes.
public struct TimelineEntry: Hashable, Sendable {
  /// What produced the entry.
  public enum Category: Hashable, Sendable {
    case region
    case cell
    case app
    /// A provider's push request and what became of it.
    case push
    /// A background-fetch decision, a fetch's result, or a launch with its staleness.
    case fetch
  }

  public var category: Category
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
  /// For region events: the fixes the path crossed between (0-based, counting every fix used),
  /// as `crossings` numbers them.
  public var fromFix: Int?
  public var toFix: Int?
  /// For app events: the launch reason concerned, the app's state before and after, and the
  /// background time left.
  public var launchReason: String?
  public var stateBefore: String?
  public var stateAfter: String?
  public var budgetRemaining: Double?
  /// For push entries: the apns-id, APNs' HTTP status, its reason (rejections) and the outcome.
  public var apnsID: String?
  public var status: Int?
  public var apnsReason: String?
  /// For launches in the fetch timeline: seconds the oldest unfetched publication had waited.
  public var staleness: Double?

  public init(_ e: RegionEvent) {
    category = .region
    event = e.kind.rawValue
    region = e.region
    time = e.crossedAt
    deliveredAt = e.deliveredAt
    coordinate = e.coordinate
    state = e.state?.rawValue
    reason = e.reason
    switch e.cause {
    case .crossingConfirmed(let from, let to, _), .passedThrough(let from, let to):
      fromFix = from
      toFix = to
    case .leadReached(let at, _):
      fromFix = at
      toFix = at
    default: break
    }
  }

  /// A serving-cell change: `attach` (the first cell, or the first after a loss of service),
  /// `handoff` (from one cell to another) or `serviceLost`; the network, not the app, sees it, so
  /// it has no delivery time.
  public init(_ c: ServingCellChange) {
    category = .cell
    event = c.from == nil ? "attach" : c.to == nil ? "serviceLost" : "handoff"
    time = c.time
    coordinate = c.coordinate
    reason = c.explanation
    fromCell = c.from
    toCell = c.to
    tower = c.toTower
  }

  public init(_ s: SignificantChangeEvent) {
    category = .cell
    event = s.kind.rawValue
    time = s.time
    deliveredAt = s.kind == .significantChange ? s.time : nil
    coordinate = s.location.coordinate
    reason = s.reason
    fromCell = s.handoff?.from
    toCell = s.handoff?.to
    tower = s.handoff?.toTower
  }

  /// A step of the app's runtime: `wake`, `handlerStarted`, `terminated`, … (no coordinate: the
  /// given one, usually the device's position then).
  public init(_ r: RuntimeEvent, coordinate: Coordinate) {
    category = .app
    event = r.kind.rawValue
    time = r.time
    self.coordinate = coordinate
    reason = r.detail
    launchReason = r.reason?.rawValue
    stateBefore = r.stateBefore.rawValue
    stateAfter = r.stateAfter.rawValue
    budgetRemaining = r.budgetRemaining
  }

  /// A push request: sent at `time`, delivered (or not), with its outcome as the state.
  public init(_ o: PushOutcome, coordinate: Coordinate) {
    category = .push
    event = "push"
    time = o.time
    deliveredAt = o.deliveredAt
    self.coordinate = coordinate
    state = o.kind.rawValue
    reason = (o.reason.map { "\(o.status) \($0.rawValue): " } ?? "") + o.detail
    apnsID = o.apnsID
    status = o.status
    apnsReason = o.reason?.rawValue
  }

  /// A step of the fetch scheduler: `fetchRequested`, `fetchSkipped`, `fetchCompleted`, `launch`, …
  public init(_ f: FetchEvent, coordinate: Coordinate) {
    category = .fetch
    event = f.kind.rawValue
    time = f.time
    self.coordinate = coordinate
    reason = f.detail
    staleness = f.staleness
    if let outcome = f.outcome { state = outcome.rawValue }
  }

  /// What the table's "region" column shows: the region, "cells", "app", "push" or "fetch".
  public var subject: String {
    switch category {
    case .region: return region?.rawValue ?? ""
    case .cell: return "cells"
    case .app: return "app"
    case .push: return "push"
    case .fetch: return "fetch"
    }
  }

  /// The event with its state (`state inside`).
  public var kindText: String { state.map { "\(event) \($0)" } ?? event }

  /// Whether this is a cell event (handoff or significant change).
  public var isCellEvent: Bool { category == .cell }
}
