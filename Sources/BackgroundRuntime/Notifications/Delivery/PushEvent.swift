/// One step in the life of a provider's push request on a device's clock (``Device``): APNs'
/// answer when it is sent, then what became of it when that happened (delivered, delayed,
/// piggybacked, coalesced, dropped; still held when the run ends) and what the app's handler did
/// with it. A request's steps, folded in order, give its ``PushOutcome``.
public struct PushEvent: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// APNs answered 200: the push is on its way (what becomes of it follows).
    case accepted
    /// APNs refused it: the status and reason are APNs' answer.
    case rejected
    /// Reached the device as soon as it was sent.
    case delivered
    /// Reached the device later: stored while offline, rate limited, deferred by power.
    case delayed
    /// A held silent push that rode along with a regular notification.
    case piggybacked
    /// Never delivered: expired, replaced, discarded.
    case dropped
    /// Replaced by a newer notification with the same collapse ID before it was delivered.
    case coalesced
    /// Still waiting when the run ended: stored by APNs, held or deferred on the device.
    case held
    /// The app's handler called completion, was terminated, or the app was not launched or on
    /// screen.
    case handled
  }

  /// When the step happened (seconds since the Unix epoch): a delivery's time, a replacement's.
  public var time: Double
  public var kind: Kind
  /// The request's position among the device's requests, in the order they were sent (0-based).
  public var request: Int
  /// When the request was sent.
  public var sentAt: Double
  public var apnsID: String?
  /// APNs' HTTP answer: 200, or the rejection's status.
  public var status: Int
  public var reason: APNsReason?
  /// For `Unregistered`: when the token stopped being valid.
  public var timestamp: Double?
  /// What a late delivery rode along with: an apns-id, or `keep-alive`.
  public var carrier: String?
  /// Whether it is a content-available push (it wakes the app when delivered).
  public var wakesApp: Bool
  /// What the step did to the app, when it settles that.
  public var app: PushOutcome.AppEffect?
  /// The facts this step adds to the request's explanation, in order.
  public var notes: PushOutcome.Notes

  public init(
    time: Double, kind: Kind, request: Int, sentAt: Double, apnsID: String?, status: Int, reason: APNsReason? = nil,
    timestamp: Double? = nil, carrier: String? = nil, wakesApp: Bool, app: PushOutcome.AppEffect? = nil,
    notes: PushOutcome.Notes = PushOutcome.Notes()
  ) {
    self.time = time
    self.kind = kind
    self.request = request
    self.sentAt = sentAt
    self.apnsID = apnsID
    self.status = status
    self.reason = reason
    self.timestamp = timestamp
    self.carrier = carrier
    self.wakesApp = wakesApp
    self.app = app
    self.notes = notes
  }

  /// This step's facts in a sentence.
  public var detail: String { notes.all.map(\.text).joined(separator: "; ") }

  /// The step in a sentence, for a timeline: what happened, then its facts.
  public var sentence: String {
    let lead: String
    switch kind {
    case .accepted: lead = "APNs answered 200" + (apnsID.map { " (apns-id \($0))" } ?? "")
    case .rejected: lead = "APNs refused it: \(status)" + (reason.map { " \($0.rawValue)" } ?? "")
    case .delivered: lead = "reached the device as it was sent"
    case .delayed, .piggybacked: lead = "reached the device \(FetchEvent.duration(time - sentAt)) after it was sent"
    case .dropped: lead = "never delivered"
    case .coalesced: lead = "coalesced"
    case .held: lead = "still waiting at the end"
    case .handled: lead = "the app's handler ended"
      if !notes.isEmpty { return detail }
    }
    let facts = detail
    return facts.isEmpty ? lead : lead + ": " + facts
  }
}

extension PushOutcome {
  /// The outcomes of the requests whose steps are `events` (in time order), one per request, in
  /// request order: each request's steps folded.
  public static func fold(_ events: some Sequence<PushEvent>) -> [PushOutcome] {
    var outcomes: [PushOutcome] = []
    for e in events {
      while outcomes.count <= e.request {
        outcomes.append(PushOutcome(
          request: outcomes.count, time: e.sentAt, apnsID: nil, status: 0, reason: nil, timestamp: nil, kind: .held,
          deliveredAt: nil, carrier: nil, wakesApp: false, app: nil, notes: Notes()))
      }
      outcomes[e.request].apply(e)
    }
    return outcomes
  }

  /// Adds one of the request's steps.
  public mutating func apply(_ e: PushEvent) {
    time = e.sentAt
    switch e.kind {
    case .accepted, .rejected:
      apnsID = e.apnsID
      status = e.status
      reason = e.reason
      timestamp = e.timestamp
      wakesApp = e.wakesApp
      kind = e.kind == .rejected ? .rejected : .held
    case .delivered, .delayed, .piggybacked:
      kind = e.kind == .delivered ? .delivered : e.kind == .delayed ? .delayed : .piggybacked
      deliveredAt = e.time
      carrier = e.carrier
    case .dropped: kind = .dropped
    case .coalesced: kind = .coalesced
    case .held: kind = .held
    case .handled: break
    }
    if let effect = e.app { app = effect }
    for note in e.notes.all { notes.append(note) }
  }
}
