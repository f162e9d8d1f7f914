/// The app standby bucket Android puts an app in, from how recently the user used it
/// (AOSP `AppStandbyController`; docs/platform-rules.md, Android's app runtime).
public enum StandbyBucket: String, Hashable, Sendable, Codable, CaseIterable {
  case active
  case workingSet
  case frequent
  case rare
  case restricted
}

/// Android's power management as it limits a backgrounded app: Doze's idle periods and
/// maintenance windows, and the standby buckets with their quotas on jobs and high-priority FCM
/// messages. Every number is a named field; docs/platform-rules.md gives each one's source.
///
/// **Doze** (deep Doze, `DeviceIdleController`): once the screen is off and the device still,
/// it goes idle after ``inactiveTimeout`` + ``idleAfterInactiveTimeout`` + ``sensingTimeout`` +
/// ``locatingTimeout``; idle periods then alternate with maintenance windows, the first idle
/// period ``firstIdlePeriod`` long and each next ``idleFactor`` times longer up to
/// ``maximumIdlePeriod``, the first window ``firstMaintenanceWindow`` long and each next
/// ``maintenanceFactor`` times longer up to ``maximumMaintenanceWindow``. The screen coming on, or
/// motion, ends it. Jobs and normal-priority FCM messages wait for a window; high-priority
/// messages are delivered.
///
/// **Standby buckets** (`AppStandbyController`): an app used within ``workingSetAfter`` is
/// active, then working set, then frequent after ``frequentAfter``, rare after ``rareAfter``,
/// restricted after ``restrictedAfter``. Each bucket but active may run jobs for ``jobQuota``
/// seconds in a rolling window (working set ``workingSetWindow``, frequent ``frequentWindow``,
/// rare ``rareWindow``); restricted runs ``restrictedJobsPerDay`` job a day; frequent may receive
/// ``frequentHighPriorityMessages`` high-priority FCM messages a day, rare and restricted
/// ``rareHighPriorityMessages``; past that they arrive at normal priority.
///
/// **A vendor's battery manager** (``deepSleepAfter``): some vendors stop an app left unused long
/// enough, as a force-stop would (Samsung's "deep sleeping" apps): no broadcasts, messages or jobs
/// until the user opens it again.
public struct AndroidPowerRules: Hashable, Sendable, Codable {
  public var inactiveTimeout: Double
  public var idleAfterInactiveTimeout: Double
  public var sensingTimeout: Double
  public var locatingTimeout: Double
  public var firstIdlePeriod: Double
  public var idleFactor: Double
  public var maximumIdlePeriod: Double
  public var firstMaintenanceWindow: Double
  public var maintenanceFactor: Double
  public var maximumMaintenanceWindow: Double
  /// Metres per second above which the device is moving (and not in deep Doze).
  public var motionSpeed: Double

  public var workingSetAfter: Double
  public var frequentAfter: Double
  public var rareAfter: Double
  public var restrictedAfter: Double
  public var jobQuota: Double
  public var workingSetWindow: Double
  public var frequentWindow: Double
  public var rareWindow: Double
  public var restrictedJobsPerDay: Int
  public var frequentHighPriorityMessages: Int
  public var rareHighPriorityMessages: Int
  /// Days of high-priority messages that show nothing after which FCM deprioritizes them to
  /// normal priority.
  public var deprioritizationDays: Double
  /// Seconds without use after which the vendor's battery manager stops the app (nil: no such
  /// manager, as on AOSP).
  public var deepSleepAfter: Double?

  public init(
    inactiveTimeout: Double, idleAfterInactiveTimeout: Double, sensingTimeout: Double, locatingTimeout: Double,
    firstIdlePeriod: Double, idleFactor: Double, maximumIdlePeriod: Double, firstMaintenanceWindow: Double,
    maintenanceFactor: Double, maximumMaintenanceWindow: Double, motionSpeed: Double, workingSetAfter: Double,
    frequentAfter: Double, rareAfter: Double, restrictedAfter: Double, jobQuota: Double, workingSetWindow: Double,
    frequentWindow: Double, rareWindow: Double, restrictedJobsPerDay: Int, frequentHighPriorityMessages: Int,
    rareHighPriorityMessages: Int, deprioritizationDays: Double, deepSleepAfter: Double? = nil
  ) {
    self.inactiveTimeout = inactiveTimeout
    self.idleAfterInactiveTimeout = idleAfterInactiveTimeout
    self.sensingTimeout = sensingTimeout
    self.locatingTimeout = locatingTimeout
    self.firstIdlePeriod = firstIdlePeriod
    self.idleFactor = idleFactor
    self.maximumIdlePeriod = maximumIdlePeriod
    self.firstMaintenanceWindow = firstMaintenanceWindow
    self.maintenanceFactor = maintenanceFactor
    self.maximumMaintenanceWindow = maximumMaintenanceWindow
    self.motionSpeed = motionSpeed
    self.workingSetAfter = workingSetAfter
    self.frequentAfter = frequentAfter
    self.rareAfter = rareAfter
    self.restrictedAfter = restrictedAfter
    self.jobQuota = jobQuota
    self.workingSetWindow = workingSetWindow
    self.frequentWindow = frequentWindow
    self.rareWindow = rareWindow
    self.restrictedJobsPerDay = restrictedJobsPerDay
    self.frequentHighPriorityMessages = frequentHighPriorityMessages
    self.rareHighPriorityMessages = rareHighPriorityMessages
    self.deprioritizationDays = deprioritizationDays
    self.deepSleepAfter = deepSleepAfter
  }

  /// Android 13 and later, as AOSP sets it and Google documents it:
  /// - Doze: inactive 30 min, idle after inactive 30 min, sensing 4 min, locating 30 s
  ///   (`INACTIVE_TIMEOUT`, `IDLE_AFTER_INACTIVE_TIMEOUT`, `SENSING_TIMEOUT`, `LOCATING_TIMEOUT`);
  ///   idle 60 min doubling up to 6 h (`IDLE_TIMEOUT`, `IDLE_FACTOR`, `MAX_IDLE_TIMEOUT`);
  ///   maintenance 5 min doubling up to 10 min (`IDLE_PENDING_TIMEOUT`, `IDLE_PENDING_FACTOR`,
  ///   `MAX_IDLE_PENDING_TIMEOUT`): AOSP `DeviceIdleController`. Vendor.
  /// - moving above 0.5 m/s keeps the device out of deep Doze (its motion sensor): assumption,
  ///   the speed the region profiles call stationary below.
  /// - buckets after 12 h, 24 h, 48 h and 8 days without use (`DEFAULT_ELAPSED_TIME_THRESHOLDS`,
  ///   AOSP `AppStandbyController`, the screen-time thresholds taken as met). Vendor.
  /// - jobs: 10 min per 4 h (working set), 12 h (frequent), 24 h (rare); restricted one a day;
  ///   high-priority FCM: 10 a day (frequent), 5 (rare) — developer.android.com, *Power
  ///   management restrictions*. Vendor. Restricted's FCM quota is not documented: rare's —
  ///   assumption.
  /// - FCM deprioritizes high-priority messages that lead to no visible notification "over a
  ///   period of time"; 7 days — assumption (Firebase docs, *Set and manage Android message
  ///   priority*, name no period).
  public static let android13 = AndroidPowerRules(
    inactiveTimeout: 1_800, idleAfterInactiveTimeout: 1_800, sensingTimeout: 240, locatingTimeout: 30, firstIdlePeriod: 3_600,
    idleFactor: 2, maximumIdlePeriod: 21_600, firstMaintenanceWindow: 300, maintenanceFactor: 2, maximumMaintenanceWindow: 600,
    motionSpeed: 0.5, workingSetAfter: 43_200, frequentAfter: 86_400, rareAfter: 172_800, restrictedAfter: 691_200, jobQuota: 600,
    workingSetWindow: 14_400, frequentWindow: 43_200, rareWindow: 86_400, restrictedJobsPerDay: 1, frequentHighPriorityMessages: 10,
    rareHighPriorityMessages: 5, deprioritizationDays: 7)

  /// Samsung's battery manager (One UI's "Sleeping apps" and "Deep sleeping apps") over
  /// ``android13``: an app unused for 3 days is put to sleep, where the restricted bucket's limits
  /// apply (so ``restrictedAfter`` is 3 days, not 8); one unused for 16 days into deep sleep, where
  /// nothing of it runs until the user opens it (``deepSleepAfter``) (Samsung, *Sleeping apps* /
  /// *Deep sleeping apps*, One UI device care; developer.samsung.com, app management). Vendor.
  public static let samsung: AndroidPowerRules = {
    var rules = android13
    rules.restrictedAfter = 259_200
    rules.deepSleepAfter = 1_382_400
    return rules
  }()

  /// The bucket of an app last used `idle` seconds ago.
  public func bucket(idleFor idle: Double) -> StandbyBucket {
    if idle >= restrictedAfter { return .restricted }
    if idle >= rareAfter { return .rare }
    if idle >= frequentAfter { return .frequent }
    if idle >= workingSetAfter { return .workingSet }
    return .active
  }

  /// The rolling window over which a bucket's job quota counts; nil: no limit (active) or a
  /// count a day (restricted).
  public func jobWindow(_ bucket: StandbyBucket) -> Double? {
    switch bucket {
    case .active, .restricted: nil
    case .workingSet: workingSetWindow
    case .frequent: frequentWindow
    case .rare: rareWindow
    }
  }

  /// High-priority FCM messages a day the bucket may receive; nil: no limit.
  public func highPriorityMessagesPerDay(_ bucket: StandbyBucket) -> Int? {
    switch bucket {
    case .active, .workingSet: nil
    case .frequent: frequentHighPriorityMessages
    case .rare, .restricted: rareHighPriorityMessages
    }
  }

  /// Seconds from the moment the device went quiet (screen off, still) to its first idle period.
  public var idleEntryDelay: Double { inactiveTimeout + idleAfterInactiveTimeout + sensingTimeout + locatingTimeout }

  /// Deep Doze at `time` for a device quiet since `quiet`: whether it is idle, and when the idle
  /// period it is in ends (a maintenance window opens); not idle before the first idle period or
  /// in a window.
  public func doze(at time: Double, quietSince quiet: Double) -> (idle: Bool, windowAt: Double?) {
    var t = quiet + idleEntryDelay
    guard time >= t else { return (false, nil) }
    var idle = firstIdlePeriod
    var window = firstMaintenanceWindow
    while true {
      let windowAt = t + idle
      if time < windowAt { return (true, windowAt) }
      let windowEnd = windowAt + window
      if time < windowEnd { return (false, nil) }
      t = windowEnd
      let (nextIdle, nextWindow) = (min(maximumIdlePeriod, idle * idleFactor), min(maximumMaintenanceWindow, window * maintenanceFactor))
      // Once the periods stop growing the cycle repeats: a quiet spell of years (a clock set
      // decades back, say) is stepped over whole cycles at a time, not walked one by one.
      // (Within a thousand cycles it is walked as before, so every usual run is unchanged.)
      let period = nextIdle + nextWindow
      if nextIdle == idle, nextWindow == window, period > 0, time - t > 1_000 * period {
        t += ((time - t) / period).rounded(.down) * period
        while t > time { t -= period }
        while time >= t + period { t += period }
      }
      (idle, window) = (nextIdle, nextWindow)
    }
  }
}
