/// Background fetch on Android: a periodic WorkManager job, due every period after it last
/// started, which waits for a blocking condition to end, for Doze's next maintenance window, and
/// for the standby bucket's job quota (``AndroidPowerRules``; docs/platform-rules.md, Android's
/// app runtime).
extension FetchLane {
  static let noPeriodicWork = "the fetch interval policy is never: the app enqueues no periodic work"

  /// When the job next runs, from when it is due, and what moved it later.
  func nextJob(_ period: Double, _ c: Device.Core) -> (time: Double, deferral: FetchDecision.Deferral?) {
    var t = jobDue
    var deferral: FetchDecision.Deferral?
    // Each gate can only move the time later; a few rounds settle it (a later time can fall in
    // a condition, an idle period or another bucket).
    for _ in 0..<32 {
      let before = t
      if let (condition, until) = conditions.blocking(at: t) {
        t = until
        deferral = .condition(condition, until: until)
      }
      let doze = c.power.doze(at: t)
      if doze.idle, let window = doze.windowAt {
        t = window
        deferral = .doze(windowAt: window)
      }
      if let (until, bucket, window) = quotaSpent(at: t, c) {
        t = until
        deferral = .quota(bucket, window: window, until: until)
      }
      if t == before { break }
    }
    return (t, deferral)
  }

  /// When the bucket's job quota is spent at `t`: when it frees again, the bucket, its window.
  func quotaSpent(at t: Double, _ c: Device.Core) -> (until: Double, bucket: StandbyBucket, window: Double?)? {
    guard let rules = c.power.rules else { return nil }
    let bucket = c.power.bucket(at: t)
    if bucket == .restricted {
      let day = 86_400.0
      let recent = jobRuns.filter { t - $0.start < day }
      guard recent.count >= rules.restrictedJobsPerDay, let first = recent.first else { return nil }
      return (first.start + day, bucket, nil)
    }
    guard let window = rules.jobWindow(bucket) else { return nil }
    let counted = jobRuns.filter { $0.end > t - window }
    let used = counted.reduce(0.0) { $0 + min($1.end, t) - max($1.start, t - window) }
    guard used >= rules.jobQuota, let oldest = counted.first else { return nil }
    return (oldest.end + window, bucket, window)
  }

  /// The job's time came: it runs now if nothing holds it any more (else a later call finds the
  /// new time).
  mutating func runJobIfDue(_ period: Double, at t: Double, _ c: inout Device.Core) {
    let next = nextJob(period, c)
    guard next.time <= t else { return }
    jobDue = t + period
    jobRuns.removeAll { t - $0.end > 86_400 }
    let decision = FetchDecision(time: t, action: .fetch, basis: .job(period: period, bucket: c.power.bucket(at: t), deferredBy: next.deferral))
    fetch(at: t, facts: .decision(decision), &c)
  }
}
