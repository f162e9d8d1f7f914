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
  /// When it happened on the device, the time a timeline is ordered by (``TimelineEvent/time``:
  /// for a region event, its delivery, or the platform's decision when the app is not told).
  /// Seconds since the Unix epoch.
  public var time: Double
  /// For region events: when the path crossed the boundary (or the fix that established the
  /// state).
  public var crossedAt: Double?
  /// When the app is told, or `nil`.
  public var deliveredAt: Double?
  /// Where it happened; nil when no track says where the device was (`geowake push`).
  public var coordinate: Coordinate?
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
  /// For push entries: the request's number (in the order sent) and when it was sent, the
  /// apns-id, APNs' HTTP status and reason (rejections), the `Unregistered` timestamp, what a late
  /// delivery rode along with, whether it is content-available, and what it did to the app.
  public var request: Int?
  public var sentAt: Double?
  public var apnsID: String?
  public var status: Int?
  public var apnsReason: String?
  public var timestamp: Double?
  public var carrier: String?
  public var wakesApp: Bool?
  public var appEffect: String?
  /// For launches in the fetch timeline: seconds the oldest unfetched publication had waited.
  public var staleness: Double?

  public init(_ e: RegionEvent) {
    category = .region
    event = e.kind.rawValue
    region = e.region
    time = e.at
    crossedAt = e.crossedAt
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
  public init(_ r: RuntimeEvent, coordinate: Coordinate?) {
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

  /// A step of a push request: `pushAccepted`, `pushRejected`, `pushDelivered`, `pushDelayed`,
  /// `pushPiggybacked`, `pushDropped`, `pushCoalesced`, `pushHeld` or `pushHandled`; deliveries
  /// have their time as `deliveredAt`.
  public init(_ p: PushEvent, coordinate: Coordinate?) {
    category = .push
    event = Self.eventName(p.kind)
    time = p.time
    switch p.kind {
    case .delivered, .delayed, .piggybacked: deliveredAt = p.time
    default: break
    }
    self.coordinate = coordinate
    reason = p.sentence
    request = p.request
    sentAt = p.sentAt
    apnsID = p.apnsID
    status = p.status
    apnsReason = p.reason?.rawValue
    timestamp = p.timestamp
    carrier = p.carrier
    wakesApp = p.wakesApp
    appEffect = p.app?.rawValue
  }

  /// A push step's event name: `push` and the kind (`pushDelivered`).
  public static func eventName(_ kind: PushEvent.Kind) -> String {
    let name = kind.rawValue
    return "push" + name.prefix(1).uppercased() + name.dropFirst()
  }

  /// A step of the fetch scheduler: `fetchRequested`, `fetchSkipped`, `fetchCompleted`, `launch`, …
  public init(_ f: FetchEvent, coordinate: Coordinate?) {
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
    case .push: return request.map { "push #\($0)" } ?? "push"
    case .fetch: return "fetch"
    }
  }

  /// The event with its state (`state inside`).
  public var kindText: String { state.map { "\(event) \($0)" } ?? event }

  /// Whether this is a cell event (handoff or significant change).
  public var isCellEvent: Bool { category == .cell }
}
