import BackgroundRuntime
import SyntheticData
import Testing

/// Runs `events` through a runtime.
func simulate(
  _ events: [SystemEvent], _ behaviours: [LaunchReason: HandlerBehaviour], profile: RuntimeProfile = .ios, seed: UInt64 = 0
) -> (AppRuntime, [RuntimeEvent]) {
  var runtime = AppRuntime(profile: profile, behaviours: behaviours, seed: seed)
  for e in events { runtime.schedule(e) }
  var out: [RuntimeEvent] = []
  runtime.run(into: &out)
  return (runtime, out)
}

@Suite("App runtime")
struct AppRuntimeTests {
  static let t0 = 1_700_000_000.0

  @Test func handlerWithinTenSecondsThenSuspended() {
    let (runtime, events) = simulate([SystemEvent(time: Self.t0, kind: .location, label: "enter plaza")], [.location: HandlerBehaviour(work: 4)])
    #expect(events.map(\.kind) == [.wake, .handlerStarted, .handlerFinished, .suspended])
    #expect(events[0].stateBefore == .notRunning && events[0].stateAfter == .background && events[0].budgetRemaining == 10)
    #expect(events[3].time == Self.t0 + 4 && events[3].stateAfter == .suspended)
    #expect(runtime.summary.wakes == [.location: 1] && runtime.summary.backgroundSeconds == [.location: 4])
  }

  /// 25 s of work inside a background task: fine on ios (budget raised to 30 s); on a profile
  /// whose tasks get only 20 s, the expiration handler runs and the app is killed with the
  /// handler still working.
  @Test func backgroundTaskExtendsTheBudget() {
    let behaviour = HandlerBehaviour(work: 25, backgroundTask: 25)
    let (ios, events) = simulate([SystemEvent(time: Self.t0, kind: .location)], [.location: behaviour])
    #expect(events.map(\.kind) == [.wake, .handlerStarted, .taskBegan, .budgetExtended, .taskEnded, .handlerFinished, .suspended])
    #expect(events[3].budgetRemaining == 30)
    #expect(ios.summary.terminations == 0 && ios.summary.expirations == 0)
    var short = RuntimeProfile.ios
    short.backgroundTaskLimit = 20
    let (shortRuntime, shortEvents) = simulate([SystemEvent(time: Self.t0, kind: .location)], [.location: behaviour], profile: short)
    #expect(shortEvents.map(\.kind) == [.wake, .handlerStarted, .taskBegan, .budgetExtended, .expiration, .taskEnded, .terminated])
    #expect(shortEvents[4].time == Self.t0 + 15 && shortEvents[6].time == Self.t0 + 20)
    #expect(shortRuntime.summary.terminations == 1 && shortRuntime.summary.interrupted == 1)
  }

  /// A 150 s task: killed on ios (30 s limit), fine on ios7 (180 s) and ios6 (600 s).
  @Test func olderProfilesAllowLongerTasks() {
    let behaviour = [LaunchReason.location: HandlerBehaviour(work: 150, backgroundTask: 150)]
    let event = [SystemEvent(time: Self.t0, kind: .location)]
    #expect(simulate(event, behaviour, profile: .ios).0.summary.terminations == 1)
    for profile in [RuntimeProfile.ios7, .ios6] {
      let (runtime, events) = simulate(event, behaviour, profile: profile)
      #expect(runtime.summary.terminations == 0 && events.last?.kind == .suspended && events.last?.time == Self.t0 + 150)
      #expect(events.contains { $0.kind == .budgetExtended && $0.budgetRemaining == profile.backgroundTaskLimit })
    }
  }

  /// 40 s of work on a 10 s wake: terminated at 10 s; the next event launches it again.
  @Test func overrunIsTerminatedAndRelaunched() {
    let (_, events) = simulate(
      [SystemEvent(time: Self.t0, kind: .location), SystemEvent(time: Self.t0 + 600, kind: .location)], [.location: HandlerBehaviour(work: 40)])
    #expect(events.map(\.kind) == [.wake, .handlerStarted, .terminated, .wake, .handlerStarted, .terminated])
    #expect(events[2].time == Self.t0 + 10 && events[2].stateAfter == .notRunning && events[2].detail.hasPrefix("watchdog"))
    #expect(events[3].stateBefore == .notRunning && events[3].reason == .location && events[3].detail.hasPrefix("launched"))
  }

  @Test func eventWhileForegroundIsNoWake() {
    let (runtime, events) = simulate(
      [SystemEvent(time: Self.t0, kind: .userSession(duration: 60)), SystemEvent(time: Self.t0 + 30, kind: .location)], [:])
    #expect(events.map(\.kind) == [.foregroundStarted, .deliveredInForeground, .foregroundEnded, .suspended])
    #expect(runtime.summary.wakes.isEmpty)
  }

  @Test func forceQuitLosesFetchesButNotLocation() {
    let (runtime, events) = simulate(
      [
        SystemEvent(time: Self.t0, kind: .forceQuit), SystemEvent(time: Self.t0 + 10, kind: .fetch),
        SystemEvent(time: Self.t0 + 20, kind: .remoteNotification), SystemEvent(time: Self.t0 + 30, kind: .location),
        SystemEvent(time: Self.t0 + 100, kind: .userSession(duration: 5)), SystemEvent(time: Self.t0 + 200, kind: .fetch),
      ], [:])
    #expect(events.map(\.kind) == [
      .forceQuit, .lost, .lost, .wake, .handlerStarted, .handlerFinished, .suspended, .foregroundStarted, .foregroundEnded,
      .suspended, .wake, .handlerStarted, .handlerFinished, .suspended,
    ])
    #expect(runtime.summary.lost == [.fetch: 1, .remoteNotification: 1])
  }

  /// Random scenarios: budgets never negative, every task ends, expires or is killed, nothing
  /// runs while the app is not running, the same seed gives the same timeline.
  @Test(arguments: [UInt64(1), 2, 3, 4])
  func invariantsOnRandomScenarios(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var events: [SystemEvent] = []
    var t = Self.t0
    for _ in 0..<400 {
      t += Double(random.next() % 120)
      let kinds: [SystemEvent.Kind] = [.location, .location, .fetch, .remoteNotification, .userSession(duration: Double(random.next() % 90)), .forceQuit]
      events.append(SystemEvent(time: t, kind: kinds[Int(random.next() % UInt64(kinds.count))]))
    }
    let behaviours: [LaunchReason: HandlerBehaviour] = [
      .location: HandlerBehaviour(work: 8, backgroundTask: 20, variation: 0.8),
      .fetch: HandlerBehaviour(work: 20, backgroundTask: 35, endsTaskOnExpiration: false, variation: 0.6),
      .remoteNotification: HandlerBehaviour(work: 12, variation: 1),
    ]
    let (runtime, timeline) = simulate(events, behaviours, seed: seed)
    let (_, again) = simulate(events, behaviours, seed: seed)
    #expect(timeline == again)
    #expect(timeline != simulate(events, behaviours, seed: seed + 100).1)
    #expect(runtime.summary.terminations > 0 && runtime.summary.expirations > 0)
    var openTasks = 0
    var running = false
    var last = -Double.infinity
    for e in timeline {
      #expect(e.time >= last)
      last = e.time
      if let remaining = e.budgetRemaining { #expect(remaining >= -1e-9, "\(e)") }
      switch e.kind {
      case .taskBegan: openTasks += 1
      case .taskEnded: openTasks -= 1
      case .terminated, .forceQuit: openTasks = 0
      default: break
      }
      #expect(openTasks >= 0)
      // No handler or task runs unless the app is running (in the background or on screen).
      if [.handlerStarted, .handlerFinished, .taskBegan, .taskEnded, .expiration].contains(e.kind) {
        #expect(running && [.background, .foreground].contains(e.stateBefore), "\(e.kind) while \(e.stateBefore)")
      }
      running = [.background, .foreground].contains(e.stateAfter)
    }
    #expect(openTasks == 0)
    #expect(runtime.state != .background)
  }
}
