public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// One event of a device's timeline (``DeviceTimeline``), typed by what produced it.
public enum TimelineEvent: Hashable, Sendable {
  /// What region monitoring told (or would have told) the app.
  case region(RegionEvent)
  /// The serving cell changed (an attach and a loss of service included).
  case cellChange(ServingCellChange)
  /// A significant location change, delivered or suppressed.
  case significantChange(SignificantChangeEvent)
  /// A background-fetch decision, a fetch's result or a launch with its staleness, where the
  /// device was then.
  case fetch(FetchEvent, at: Coordinate)
  /// A provider's push request and what became of it, where the device was when it was sent.
  case push(PushOutcome, at: Coordinate)
  /// A step of the app's runtime (wake, handler, expiration, termination…), where the event that
  /// caused it happened.
  case app(RuntimeEvent, at: Coordinate)

  /// When it happened: a region event's crossing time, a step's time.
  public var time: Double {
    switch self {
    case .region(let e): e.crossedAt
    case .cellChange(let c): c.time
    case .significantChange(let s): s.time
    case .fetch(let f, _): f.time
    case .push(let p, _): p.time
    case .app(let r, _): r.time
    }
  }
}
