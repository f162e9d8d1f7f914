/// The totals of a device's background fetch, counted as its steps happen (``FetchEvent``):
/// the staleness at each launch, the fetches granted and how they ended, the opportunities passed
/// over and the fetches lost.
public struct FetchTally: Hashable, Sendable, Codable {
  /// Seconds of staleness at each launch measured, in time order.
  public private(set) var staleness: [Double] = []
  public private(set) var fetches = 0
  public private(set) var outcomes: [FetchOutcome: Int] = [:]
  public private(set) var skipped = 0
  public private(set) var lost = 0

  public init() {}

  public mutating func add(_ e: FetchEvent) {
    switch e.kind {
    case .launch: if let s = e.staleness { staleness.append(s) }
    case .fetchRequested: fetches += 1
    case .fetchSkipped: skipped += 1
    case .fetchLost: lost += 1
    case .fetchCompleted, .fetchTerminated, .fetchUnavailable, .taskSubmitted: break
    }
    if let o = e.outcome { outcomes[o, default: 0] += 1 }
  }

  /// The summary of a run of `strategy` over `days` days, with the app's runtime totals.
  public func summary(strategy: FetchStrategy, days: Double, runtime: RuntimeSummary) -> FetchSummary {
    FetchSummary(
      strategy: strategy, days: days, staleness: StalenessSummary(staleness), fetches: fetches, outcomes: outcomes, skipped: skipped,
      lost: lost, backgroundSeconds: runtime.backgroundSeconds[.fetch] ?? 0, terminations: runtime.terminations)
  }
}
