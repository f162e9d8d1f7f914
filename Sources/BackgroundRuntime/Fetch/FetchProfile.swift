/// Every number the ``FetchScheduler`` uses, named (docs/platform-rules.md, background fetch). Apple documents the
/// inputs (launch habits, Low Power Mode, Background App Refresh, network, the app's track
/// record) but not the numbers: each value here is GeoWake's stated assumption.
public struct FetchProfile: Hashable, Sendable {
  /// How the system decides when an app fetches.
  public enum Scheduler: Hashable, Sendable, Codable {
    /// iOS: fetches placed shortly before the user's predicted launches (every other field of
    /// the profile).
    case launchHabits
    /// Android: a periodic WorkManager job, every `minimumPeriod` seconds at the least (or the
    /// app's custom interval when longer), deferred by conditions, Doze and the standby bucket's
    /// job quota (``AndroidPowerRules``).
    case periodicJob(minimumPeriod: Double)
  }

  /// Short name used in explanations.
  public var name: String
  public var scheduler: Scheduler
  /// Seconds between two fetches at the least, whatever the policy: what `minimum` means, and
  /// the floor of a shorter `custom` interval (BGAppRefreshTask is commonly observed no more
  /// often than every 15 min; assumption: 900 s).
  public var minimumInterval: Double
  /// Seconds before a launch window opens at which its first fetch is placed ("shortly before
  /// the user launches", WWDC 2019 *Advances in App Background Execution*; assumption: 180 s).
  public var launchLead: Double
  /// Seconds between fetches in a launch window as busy as one launch a day within
  /// ±``habitRadius`` or busier; a quieter window's fetches are further apart in proportion, up
  /// to ``quietWindowInterval``. With ``minimumInterval`` this is the "every 15–60 min in prime
  /// time for apps used daily" developers report (docs/platform-rules.md; assumption: 900 s).
  public var busyWindowInterval: Double
  /// Seconds between fetches in the quietest launch window (assumption: 3,600 s, the slow end of
  /// the reported 15–60 min).
  public var quietWindowInterval: Double
  /// Days without a launch after which the app gets no fetch until the user opens it again
  /// (developers report refreshes stopping for apps not opened; assumption: 7 days).
  public var dormancyDays: Double
  /// Seconds after the last fetch or launch at which an app gets a fetch outside its launch
  /// windows (developers report 1–2 refreshes a day for apps used less; assumption: 28,800 s, at
  /// most three a day).
  public var idleInterval: Double
  /// Once the user opened the app in a launch window, it gets no more fetches that day unless the
  /// history expects at least this many more launches a day in it after such a launch (a habit of
  /// one launch a day has had its launch; assumption: 0.25, as ``habitSupport``).
  public var repeatLaunchSupport: Double
  /// Seconds either side of a minute within which launches count toward how busy a launch window
  /// is there (assumption: 600 s).
  public var habitRadius: Double
  /// Expected launches per day in a launch window needed to serve it when the track record is
  /// perfect (assumption: 0.25, a launch there on one day in four).
  public var habitSupport: Double
  /// Expected launches per day within ±``windowRadius`` that make a minute part of a launch window
  /// (assumption: 0.05, a launch that close on one day in twenty: a window takes in its habit's
  /// tails).
  public var windowEdgeSupport: Double
  /// Seconds either side of a minute within which launches count toward a window's extent
  /// (assumption: 1,800 s).
  public var windowRadius: Double
  /// The habit's early edge: this quantile of its launches' times of day, extended below the
  /// earliest launch when too few launches hold it (``LaunchHistory``; assumption: 0.02).
  public var habitEarlyQuantile: Double
  /// The late end of the span in which the day's first launch comes: this quantile of the past
  /// days' first launches (``LaunchHistory/firstLaunchSpan(forDay:)``). Until the user opens the
  /// app that day, the span is served every ``quietWindowInterval`` from its early edge; it ends
  /// earlier where the past first launches stop for more than two quiet spacings (assumption:
  /// 0.9, the first launch of nine days in ten).
  public var firstLaunchLateQuantile: Double
  /// Days of launch history kept (assumption: 28).
  public var historyDays: Int
  /// A day this many days old counts half as much as yesterday (assumption: 7).
  public var historyHalfLifeDays: Double
  /// Days observed before habits are trusted; before that the system spreads fetches evenly
  /// (assumption: 3).
  public var minimumHistoryDays: Int
  /// Weekdays and weekends are learned apart once each has this many observed days; until then
  /// all days are pooled (assumption: 2).
  public var minimumDaysPerKind: Int
  /// Seconds between fetches while habits are not yet known (assumption: 3 600 s).
  public var coldStartInterval: Double
  /// Weight of the newest result in the track record's moving average (assumption: 0.3).
  public var trackRecordSmoothing: Double
  /// Days after which a track record recovers half way towards perfect when nothing new is
  /// learned (assumption: 3).
  public var trackRecordRecoveryHalfLifeDays: Double
  /// A handler that takes longer than this many seconds counts as slow (assumption: 10 s).
  public var slowHandler: Double
  /// What each outcome is worth to the track record, 0 … 1 (assumptions: NewData 1, NoData 0.85
  /// — honest NoData is punished little —, a slow handler 0.6, Failed 0.5, a termination 0).
  public var newDataScore: Double
  public var noDataScore: Double
  public var slowScore: Double
  public var failedScore: Double
  public var terminatedScore: Double

  public init(
    name: String, minimumInterval: Double, launchLead: Double, busyWindowInterval: Double, quietWindowInterval: Double,
    dormancyDays: Double, idleInterval: Double, repeatLaunchSupport: Double, habitRadius: Double, habitSupport: Double, windowEdgeSupport: Double, windowRadius: Double,
    habitEarlyQuantile: Double, historyDays: Int, historyHalfLifeDays: Double, minimumHistoryDays: Int, minimumDaysPerKind: Int,
    coldStartInterval: Double, trackRecordSmoothing: Double, trackRecordRecoveryHalfLifeDays: Double, slowHandler: Double,
    newDataScore: Double, noDataScore: Double, slowScore: Double, failedScore: Double, terminatedScore: Double,
    firstLaunchLateQuantile: Double = 0.9, scheduler: Scheduler = .launchHabits
  ) {
    self.name = name
    self.scheduler = scheduler
    self.minimumInterval = minimumInterval
    self.launchLead = launchLead
    self.busyWindowInterval = busyWindowInterval
    self.quietWindowInterval = quietWindowInterval
    self.dormancyDays = dormancyDays
    self.idleInterval = idleInterval
    self.repeatLaunchSupport = repeatLaunchSupport
    self.habitRadius = habitRadius
    self.habitSupport = habitSupport
    self.windowEdgeSupport = windowEdgeSupport
    self.windowRadius = windowRadius
    self.habitEarlyQuantile = habitEarlyQuantile
    self.firstLaunchLateQuantile = firstLaunchLateQuantile
    self.historyDays = historyDays
    self.historyHalfLifeDays = historyHalfLifeDays
    self.minimumHistoryDays = minimumHistoryDays
    self.minimumDaysPerKind = minimumDaysPerKind
    self.coldStartInterval = coldStartInterval
    self.trackRecordSmoothing = trackRecordSmoothing
    self.trackRecordRecoveryHalfLifeDays = trackRecordRecoveryHalfLifeDays
    self.slowHandler = slowHandler
    self.newDataScore = newDataScore
    self.noDataScore = noDataScore
    self.slowScore = slowScore
    self.failedScore = failedScore
    self.terminatedScore = terminatedScore
  }

  /// The iOS-like defaults listed field by field above.
  public static let ios = FetchProfile(
    name: "ios", minimumInterval: 900, launchLead: 180, busyWindowInterval: 900, quietWindowInterval: 3_600, dormancyDays: 7, idleInterval: 28_800, repeatLaunchSupport: 0.25,
    habitRadius: 600, habitSupport: 0.25, windowEdgeSupport: 0.05, windowRadius: 1_800, habitEarlyQuantile: 0.02,
    historyDays: 28, historyHalfLifeDays: 7, minimumHistoryDays: 3, minimumDaysPerKind: 2, coldStartInterval: 3_600,
    trackRecordSmoothing: 0.3, trackRecordRecoveryHalfLifeDays: 3, slowHandler: 10,
    newDataScore: 1, noDataScore: 0.85, slowScore: 0.6, failedScore: 0.5, terminatedScore: 0)

  /// Android: a periodic WorkManager job at least every 15 minutes (`PeriodicWorkRequest
  /// .MIN_PERIODIC_INTERVAL_MILLIS`, androidx.work; vendor); the habit fields are unused.
  public static let android: FetchProfile = {
    var profile = ios
    profile.name = "android"
    profile.scheduler = .periodicJob(minimumPeriod: 900)
    return profile
  }()
}
