/// What an app does and what its user does, for a simulation: the handlers' behaviour per launch
/// reason, the profile, the seed, and the user's foreground sessions and force-quits. Location,
/// fetch and notification events come from elsewhere (the track, the schedules).
public struct AppScenario: Hashable, Sendable {
  public var profile: RuntimeProfile
  public var seed: UInt64
  public var behaviours: [LaunchReason: HandlerBehaviour]
  /// Foreground sessions: start (seconds since the Unix epoch) and duration.
  public var sessions: [(start: Double, duration: Double)]
  /// Times the user force-quits the app.
  public var forceQuits: [Double]
  /// The app's declared background modes and fetch policy (Info.plist and launch-time calls).
  public var configuration: AppConfiguration
  /// The runtime profile a scenario file named, and where (nil: it named none, and the
  /// platform's applies).
  public var namedProfile: (name: String, line: Int, column: Int)?

  public init(
    profile: RuntimeProfile = .ios, seed: UInt64 = 0, behaviours: [LaunchReason: HandlerBehaviour] = [:],
    sessions: [(start: Double, duration: Double)] = [], forceQuits: [Double] = [], configuration: AppConfiguration = AppConfiguration()
  ) {
    self.configuration = configuration
    self.profile = profile
    self.seed = seed
    self.behaviours = behaviours
    self.sessions = sessions
    self.forceQuits = forceQuits
  }

  /// A runtime with this scenario's profile, behaviours and seed, and its user events scheduled.
  public func makeRuntime() -> AppRuntime {
    var runtime = AppRuntime(profile: profile, behaviours: behaviours, seed: seed)
    for s in sessions { runtime.schedule(SystemEvent(time: s.start, kind: .userSession(duration: s.duration), label: "user session")) }
    for t in forceQuits { runtime.schedule(SystemEvent(time: t, kind: .forceQuit)) }
    return runtime
  }

  public static func == (a: AppScenario, b: AppScenario) -> Bool {
    a.profile == b.profile && a.seed == b.seed && a.configuration == b.configuration && a.behaviours == b.behaviours && a.forceQuits == b.forceQuits
      && a.sessions.map(\.start) == b.sessions.map(\.start) && a.sessions.map(\.duration) == b.sessions.map(\.duration)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(profile)
    hasher.combine(seed)
    hasher.combine(forceQuits)
  }
}
