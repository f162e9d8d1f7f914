public import BackgroundRuntime
public import CellHandoff
public import Geofencing

/// Every rule of one platform in one value: region monitoring, significant location changes, the
/// serving cell's selection, the app's runtime, pushes and background fetch. A preset says which
/// phone it is (``Name``); every number in it is a named field of one of its profiles, and
/// `docs/platform-rules.md` gives each one's source (measured, documented, or assumed).
///
/// ```swift
/// let platform = Platform.android
/// var timeline = try DeviceTimeline(regions: fences, platform: platform, app: .init(scenario: scenario))
/// ```
///
/// Adding a platform is adding one value: a ``Name`` and a preset.
public struct Platform: Hashable, Sendable {
  /// The presets.
  public enum Name: String, CaseIterable, Hashable, Sendable, Codable {
    /// iOS as iPhones were measured doing it (the default).
    case ios
    /// iOS as Apple documents it.
    case iosDocumented = "ios-documented"
    /// Android as Android phones were measured doing it.
    case android
    /// ``android`` on Android 8 and later, whose background limits slow geofencing.
    case android8
    /// Android as Google documents it.
    case androidDocumented = "android-documented"
    /// ``android8`` on a Samsung phone, whose battery manager puts unused apps to sleep and into
    /// deep sleep.
    case androidSamsung = "android-samsung"
    /// No phone: the geometric truth, every crossing the moment a fix shows it.
    case server

    /// The family its runtime belongs to.
    public var family: Family {
      switch self {
      case .ios, .iosDocumented: .ios
      case .android, .android8, .androidDocumented, .androidSamsung: .android
      case .server: .server
      }
    }
  }

  /// Whose app lifecycle the platform has.
  public enum Family: String, Hashable, Sendable, Codable {
    case ios, android, server
  }

  public let name: Name
  public var regionMonitoring: RegionMonitoringProfile
  /// Significant location changes from cell handoffs; nil where the platform has no such service
  /// (it is iOS's).
  public var significantChanges: SignificantChangeProfile?
  /// How the network picks the serving cell (the same radio rules for every phone).
  public var cellSelection: CellSelectionProfile
  /// The app's lifecycle after a wake: budgets, deadlines, background tasks.
  public var runtime: RuntimeProfile
  /// Pushes from a provider to the device: validation, storage, priorities, the silent budget.
  public var push: PushProfile
  /// The system's background fetch.
  public var fetch: FetchProfile

  public init(
    name: Name, regionMonitoring: RegionMonitoringProfile, significantChanges: SignificantChangeProfile?,
    cellSelection: CellSelectionProfile = .lte, runtime: RuntimeProfile, push: PushProfile, fetch: FetchProfile
  ) {
    self.name = name
    self.regionMonitoring = regionMonitoring
    self.significantChanges = significantChanges
    self.cellSelection = cellSelection
    self.runtime = runtime
    self.push = push
    self.fetch = fetch
  }

  /// iOS as measured: the calibrated region monitoring, the silent-push budget phones were seen
  /// to keep, the modern runtime (10 s location wakes, 30 s handlers and tasks).
  public static let ios = Platform(
    name: .ios, regionMonitoring: .ios, significantChanges: .ios, runtime: .ios, push: .ios, fetch: .ios)

  /// iOS as Apple documents it: 200 m and 3–5 min for regions, "two or three silent pushes an
  /// hour".
  public static let iosDocumented = Platform(
    name: .iosDocumented, regionMonitoring: .iosDocumented, significantChanges: .ios, runtime: .ios, push: .iosDocumented,
    fetch: .ios)

  /// Android as measured.
  public static let android = Platform(
    name: .android, regionMonitoring: .android, significantChanges: nil, runtime: .android, push: .fcm, fetch: .android)

  /// Android 8 and later as measured.
  public static let android8 = Platform(
    name: .android8, regionMonitoring: .android8, significantChanges: nil, runtime: .android, push: .fcm, fetch: .android)

  /// Android as Google documents it.
  public static let androidDocumented = Platform(
    name: .androidDocumented, regionMonitoring: .androidDocumented, significantChanges: nil, runtime: .android, push: .fcm,
    fetch: .android)

  /// A Samsung phone as measured Android 8 phones are, with Samsung's battery manager: an app
  /// unused for 3 days is asleep (the restricted bucket's limits), one unused for 16 days in deep
  /// sleep (no broadcasts, messages or jobs until the user opens it).
  public static let androidSamsung = Platform(
    name: .androidSamsung, regionMonitoring: .androidSamsung, significantChanges: nil, runtime: .androidSamsung, push: .fcm,
    fetch: .android)

  /// The geometric truth: every crossing when a fix shows it; an app woken as on iOS (the
  /// lifecycle of the app a server-side test drives).
  public static let server = Platform(
    name: .server, regionMonitoring: .server, significantChanges: nil, runtime: .ios, push: .ios, fetch: .ios)

  /// The preset of `name`.
  public static func named(_ name: Name) -> Platform {
    switch name {
    case .ios: .ios
    case .iosDocumented: .iosDocumented
    case .android: .android
    case .android8: .android8
    case .androidDocumented: .androidDocumented
    case .androidSamsung: .androidSamsung
    case .server: .server
    }
  }

  /// Every preset, in ``Name`` order.
  public static var all: [Platform] { Name.allCases.map(named) }

  /// An app's scenario on this platform: its runtime profile becomes the platform's, unless it
  /// already is one of the platform's lifecycle (an iOS version on an iOS platform).
  public func adapting(_ scenario: AppScenario) -> AppScenario {
    var scenario = scenario
    if scenario.profile.lifecycle != runtime.lifecycle { scenario.profile = runtime }
    return scenario
  }
}

extension Platform {
  /// An app on this platform: its scenario adapted (``adapting(_:)-(AppScenario)``).
  public func adapting(_ app: DeviceTimeline.App) -> DeviceTimeline.App {
    var app = app
    app.scenario = adapting(app.scenario)
    return app
  }
}
