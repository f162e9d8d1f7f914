public import BackgroundRuntime
public import CellHandoff
public import Geodesy
public import Geofencing

/// One event of a device's timeline (``DeviceTimeline``), typed by what produced it.
public enum TimelineEvent: Hashable, Sendable, Codable {
  /// What region monitoring told (or would have told) the app.
  case region(RegionEvent)
  /// The serving cell changed (an attach and a loss of service included).
  case cellChange(ServingCellChange)
  /// A significant location change, delivered or suppressed.
  case significantChange(SignificantChangeEvent)
  /// A background-fetch decision, a fetch's result or a launch with its staleness, where the
  /// device was then.
  case fetch(FetchEvent, at: Coordinate)
  /// A step of a provider's push request (APNs' answer, its delivery or fate, its handling),
  /// where the device was then.
  case push(PushEvent, at: Coordinate)
  /// A step of the app's runtime (wake, handler, expiration, termination…), where the device was
  /// then.
  case app(RuntimeEvent, at: Coordinate)

  /// When it happened on the device, the time a timeline is ordered by: a region event's
  /// delivery to the app (or, when the app is not told, the platform's decision; see
  /// ``RegionEvent/at``), a cell change's, a step's time.
  public var time: Double {
    switch self {
    case .region(let e): e.at
    case .cellChange(let c): c.time
    case .significantChange(let s): s.time
    case .fetch(let f, _): f.time
    case .push(let p, _): p.time
    case .app(let r, _): r.time
    }
  }
}
