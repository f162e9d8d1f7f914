/// One step of a ``Device``'s life, typed by the part of the device it comes from; a device emits
/// them in time order.
public enum DeviceEvent: Hashable, Sendable, Codable {
  /// A step of the app's runtime: a wake, a handler, an expiration, a termination, a session.
  case app(RuntimeEvent)
  /// A step of a provider's push request: APNs' answer, its delivery or fate, its handling.
  case push(PushEvent)
  /// A background-fetch decision, a fetch's result, or a launch with its staleness.
  case fetch(FetchEvent)

  /// When it happened (seconds since the Unix epoch).
  public var time: Double {
    switch self {
    case .app(let r): r.time
    case .push(let p): p.time
    case .fetch(let f): f.time
    }
  }
}
