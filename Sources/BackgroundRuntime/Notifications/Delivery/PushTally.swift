/// The totals of a device's push requests, counted as their steps happen (``PushEvent``): how
/// many were sent, refused and why, how each ended, how late the late ones were, and what they
/// did to the app. Its size does not grow with the requests but for one number per late delivery.
public struct PushTally: Hashable, Sendable, Codable {
  public private(set) var requests = 0
  /// Refusals by status and reason (`400 BadPriority`).
  public private(set) var rejections: [String: Int] = [:]
  /// How each request ended: delivered, delayed, piggybacked, held, dropped, coalesced, rejected.
  public private(set) var outcomes: [String: Int] = [:]
  /// Seconds from sent to delivered, for the late deliveries, in the order they happened.
  public private(set) var delays: [Double] = []
  /// What the pushes did to the app (`completed`, `shown`, …).
  public private(set) var effects: [String: Int] = [:]
  /// When the last request was sent.
  public private(set) var lastSent: Double?

  public init() {}

  public mutating func add(_ e: PushEvent) {
    switch e.kind {
    case .accepted:
      requests += 1
      lastSent = e.sentAt
    case .rejected:
      requests += 1
      lastSent = e.sentAt
      rejections["\(e.status) \(e.reason?.rawValue ?? "")", default: 0] += 1
      outcomes[PushOutcome.Kind.rejected.rawValue, default: 0] += 1
    case .delivered, .delayed, .piggybacked:
      outcomes[e.kind.rawValue, default: 0] += 1
      if e.time > e.sentAt { delays.append(e.time - e.sentAt) }
    case .dropped, .coalesced, .held:
      outcomes[e.kind.rawValue, default: 0] += 1
    case .handled: break
    }
    if let effect = e.app { effects[effect.rawValue, default: 0] += 1 }
  }

  public var accepted: Int { requests - rejected }
  public var rejected: Int { outcomes[PushOutcome.Kind.rejected.rawValue] ?? 0 }

  public func count(_ kind: PushOutcome.Kind) -> Int { outcomes[kind.rawValue] ?? 0 }
  public func count(_ effect: PushOutcome.AppEffect) -> Int { effects[effect.rawValue] ?? 0 }
}
