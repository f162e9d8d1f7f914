import BackgroundRuntime
import Testing

/// Counts what handlers observed, safely across tasks.
actor Observations {
  var terminations = 0
  var started: [String] = []
  func terminated() { terminations += 1 }
  func start(_ label: String) { started.append(label) }
}

@Suite("App simulation (async handlers)")
struct AppSimulationTests {
  static let t0 = 1_700_000_000.0

  @Test func handlerWorksThenTheAppIsSuspended() async {
    let app = AppSimulation(handlers: [.location: { _, context in try await context.work(for: .seconds(4)) }])
    await app.schedule(SystemEvent(time: Self.t0, kind: .location, label: "enter plaza"))
    let timeline = await app.run()
    #expect(timeline.map(\.kind) == [.wake, .handlerStarted, .handlerFinished, .suspended])
    #expect(timeline.last?.time == Self.t0 + 4)
  }

  /// 40 s of work on a 10 s wake: the handler sees AppTerminated at 10 s; the next event
  /// relaunches the app.
  @Test func overrunIsKilledAndTheHandlerIsTold() async {
    let seen = Observations()
    let app = AppSimulation(handlers: [
      .location: { event, context in
        await seen.start(event.label)
        do { try await context.work(for: .seconds(40)) } catch is AppTerminated { await seen.terminated() }
      }
    ])
    await app.schedule(SystemEvent(time: Self.t0, kind: .location, label: "a"))
    await app.schedule(SystemEvent(time: Self.t0 + 600, kind: .location, label: "b"))
    let timeline = await app.run()
    #expect(timeline.map(\.kind) == [.wake, .handlerStarted, .terminated, .wake, .handlerStarted, .terminated])
    #expect(timeline[2].time == Self.t0 + 10 && timeline[3].stateBefore == .notRunning)
    let terminations = await seen.terminations
    let started = await seen.started
    #expect(terminations == 2 && started == ["a", "b"])
  }

  /// A background task lets 25 s of work finish on ios.
  @Test func backgroundTaskLetsLongWorkFinish() async {
    let app = AppSimulation(handlers: [
      .location: { _, context in
        let task = await context.beginBackgroundTask()
        try await context.work(for: .seconds(25))
        if let task { await context.endBackgroundTask(task) }
      }
    ])
    await app.schedule(SystemEvent(time: Self.t0, kind: .location))
    let timeline = await app.run()
    #expect(timeline.map(\.kind) == [.wake, .handlerStarted, .taskBegan, .budgetExtended, .taskEnded, .handlerFinished, .suspended])
    #expect(timeline.last?.time == Self.t0 + 25)
    #expect(await app.summary.terminations == 0)
  }

  /// Many handlers interleaving: the same inputs give the same timeline, and the live stream sees
  /// exactly what `run` returns.
  @Test func deterministicAndLive() async {
    func make() -> AppSimulation {
      AppSimulation(handlers: [
        .location: { event, context in
          for step in 0..<3 { try await context.work(for: .milliseconds(1_500 + 700 * step + Int(event.time) % 5 * 100)) }
        },
        .fetch: { _, context in
          let task = await context.beginBackgroundTask(endsOnExpiration: false)
          try await context.work(for: .seconds(12))
          _ = task
        },
      ])
    }
    var timelines: [[RuntimeEvent]] = []
    for _ in 0..<2 {
      let app = make()
      for k in 0..<40 {
        await app.schedule(SystemEvent(time: Self.t0 + Double(k * 7), kind: k % 3 == 0 ? .fetch : .location, label: "e\(k)"))
      }
      let live = Task { () -> [RuntimeEvent] in
        var seen: [RuntimeEvent] = []
        for await event in app.events { seen.append(event) }
        return seen
      }
      let timeline = await app.run()
      await app.finish()
      #expect(await live.value == timeline)
      timelines.append(timeline)
    }
    #expect(timelines[0] == timelines[1])
    #expect(timelines[0].contains { $0.kind == .terminated } && timelines[0].contains { $0.kind == .deliveredWhileRunning })
  }
}
