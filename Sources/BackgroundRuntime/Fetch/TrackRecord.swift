/// How one background fetch ended, as the system sees it.
public enum FetchOutcome: String, Hashable, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
  /// Completion called with `.newData`.
  case newData
  /// Completion called with `.noData`.
  case noData
  /// Completion called with `.failed`.
  case failed
  /// The handler did not call completion in time: the app was terminated.
  case terminated
}

/// The app's record as a background citizen: a moving average of what its fetches were worth,
/// in 0 … 1 (1: perfect). It scales how confident a launch habit must be before the system spends
/// a fetch on it, so slow, failing and terminated apps get fewer opportunities; honest NoData
/// costs little (docs/platform-rules.md, background fetch). Without new results it recovers towards 1.
public struct FetchTrackRecord: Hashable, Sendable {
  public let profile: FetchProfile
  var value = 1.0
  var since: Double?
  /// Results so far, by outcome, and how many were slow.
  public internal(set) var outcomes: [FetchOutcome: Int] = [:]
  public internal(set) var slow = 0

  public init(profile: FetchProfile) { self.profile = profile }

  /// The score at `time`: the last value recovered towards 1 by the time since.
  public func score(at time: Double) -> Double {
    guard let since, time > since else { return value }
    let days = (time - since) / LocalTime.secondsPerDay
    let keep = Decay.pow2(-days / profile.trackRecordRecoveryHalfLifeDays)
    return 1 - (1 - value) * keep
  }

  /// Records a fetch that ended at `time` with `outcome` after `seconds` of handler time.
  public mutating func record(_ outcome: FetchOutcome, seconds: Double, at time: Double) {
    outcomes[outcome, default: 0] += 1
    var worth: Double
    switch outcome {
    case .newData: worth = profile.newDataScore
    case .noData: worth = profile.noDataScore
    case .failed: worth = profile.failedScore
    case .terminated: worth = profile.terminatedScore
    }
    if outcome != .terminated, seconds > profile.slowHandler {
      slow += 1
      worth = min(worth, profile.slowScore)
    }
    let current = score(at: time)
    value = current + profile.trackRecordSmoothing * (worth - current)
    since = time
  }

  /// Results recorded.
  public var count: Int { outcomes.values.reduce(0, +) }
}

extension FetchTrackRecord {
  /// What a track record holds besides its profile: its value, since when, and its results.
  struct Snapshot: Codable, Sendable, Hashable {
    var value: Double
    var since: Double?
    var outcomes: [FetchOutcome: Int]
    var slow: Int
  }

  var snapshot: Snapshot { Snapshot(value: value, since: since, outcomes: outcomes, slow: slow) }

  init(restoring snapshot: Snapshot, profile: FetchProfile) {
    self.init(profile: profile)
    value = snapshot.value
    since = snapshot.since
    outcomes = snapshot.outcomes
    slow = snapshot.slow
  }
}
