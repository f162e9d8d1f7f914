/// An event as a handler sees it.
public struct HandlerEvent: Hashable, Sendable {
  public var reason: LaunchReason
  /// What it is ("enter plaza", "significant change").
  public var label: String
  /// Virtual time, seconds since the Unix epoch.
  public var time: Double
}

/// Thrown from ``AppContext/work(for:)`` when the app was terminated (watchdog or force-quit)
/// while the handler worked: the handler should return.
public struct AppTerminated: Error, Hashable, Sendable {}

/// A background task begun by a handler.
public struct BackgroundTaskID: Hashable, Sendable {
  let raw: Int
}

/// An app handler: does virtual work through its context, may begin and end background tasks,
/// and returns (for fetch and notifications, returning is calling the completion handler).
public typealias AppHandler = @Sendable (HandlerEvent, AppContext) async throws -> Void

/// What a running handler can do.
public struct AppContext: Sendable {
  let simulation: AppSimulation
  let handler: Int

  /// Spends `duration` of virtual time. Throws ``AppTerminated`` when the app is killed first.
  public func work(for duration: Duration) async throws {
    let (seconds, attoseconds) = duration.components
    try await simulation.suspend(handler, for: Double(seconds) + Double(attoseconds) * 1e-18)
  }

  /// `beginBackgroundTask`: raises the budget up to the profile's task limit. With
  /// `endsOnExpiration` (the well-behaved default) the task's expiration handler ends it.
  public func beginBackgroundTask(endsOnExpiration: Bool = true) async -> BackgroundTaskID? {
    await simulation.beginTask(for: handler, endsOnExpiration: endsOnExpiration)
  }

  /// `endBackgroundTask`.
  public func endBackgroundTask(_ task: BackgroundTaskID) async {
    await simulation.endTask(task)
  }

  /// The virtual time now.
  public func now() async -> Double { await simulation.now }
}

/// The ``AppRuntime`` with handlers written as `async` closures, driven on the virtual clock.
///
/// ```swift
/// let app = AppSimulation(profile: .ios, handlers: [
///   .location: { event, context in
///     let task = await context.beginBackgroundTask()
///     try await context.work(for: .seconds(4))
///     if let task { await context.endBackgroundTask(task) }
///   },
/// ])
/// await app.schedule(SystemEvent(time: 60, kind: .location, label: "enter plaza"))
/// Task { for await event in app.events { print(event.detail) } }  // live, like CLMonitor.events
/// let timeline = await app.run()
/// ```
///
/// **Determinism.** Exactly one thing runs at a time: the driver hands control to one handler
/// and waits until it works (``AppContext/work(for:)``) or returns; the virtual clock only moves
/// in the driver. Whatever threads the handlers' tasks run on, the same handlers and events give
/// the same timeline. A handler must not wait on anything but its context (real time does not
/// pass on the virtual clock).
public actor AppSimulation {
  private var runtime: AppRuntime
  private let handlers: [LaunchReason: AppHandler]
  private var workContinuations: [Int: CheckedContinuation<Void, any Error>] = [:]
  private var yieldContinuations: [Int: CheckedContinuation<Void, Never>] = [:]
  private let stream: AsyncStream<RuntimeEvent>.Continuation
  /// Every step as it happens (an `AsyncSequence`); ends with ``finish()``.
  public nonisolated let events: AsyncStream<RuntimeEvent>

  public init(profile: RuntimeProfile = .ios, handlers: [LaunchReason: AppHandler], seed: UInt64 = 0) {
    var runtime = AppRuntime(profile: profile, seed: seed)
    runtime.drivesHandlersExternally = true
    self.runtime = runtime
    self.handlers = handlers
    (events, stream) = AsyncStream.makeStream(of: RuntimeEvent.self, bufferingPolicy: .unbounded)
  }

  /// The virtual time of the last step.
  public var now: Double { runtime.now }
  public var summary: RuntimeSummary { runtime.summary }
  public var state: AppState { runtime.state }

  public func schedule(_ event: SystemEvent) { runtime.schedule(event) }

  /// Ends ``events``.
  public func finish() { stream.finish() }

  /// Runs every step up to `time` (everything when `nil`), driving the handlers; returns the
  /// steps (also sent to ``events``).
  @discardableResult
  public func run(until time: Double? = nil) async -> [RuntimeEvent] {
    var all: [RuntimeEvent] = []
    var batch: [RuntimeEvent] = []
    while true {
      batch.removeAll(keepingCapacity: true)
      runtime.run(until: time, into: &batch)
      publish(batch, into: &all)
      guard let request = runtime.takeHandlerRequest() else { break }
      switch request {
      case .start(let id, let reason, let label, let at):
        let context = AppContext(simulation: self, handler: id)
        let handler = handlers[reason]
        let event = HandlerEvent(reason: reason, label: label, time: at)
        await withCheckedContinuation { (yield: CheckedContinuation<Void, Never>) in
          yieldContinuations[id] = yield
          Task {
            do { try await handler?(event, context) } catch {}
            self.handlerReturned(id)
          }
        }
      case .resume(let id):
        guard let work = workContinuations.removeValue(forKey: id) else { continue }
        await withCheckedContinuation { (yield: CheckedContinuation<Void, Never>) in
          yieldContinuations[id] = yield
          work.resume()
        }
      case .kill(let id):
        guard let work = workContinuations.removeValue(forKey: id) else { continue }
        await withCheckedContinuation { (yield: CheckedContinuation<Void, Never>) in
          yieldContinuations[id] = yield
          work.resume(throwing: AppTerminated())
        }
      }
      // What the handler did while it ran (tasks begun, returned) was recorded into `pending`.
      publish(pending, into: &all)
      pending.removeAll(keepingCapacity: true)
    }
    return all
  }

  private var pending: [RuntimeEvent] = []

  private func publish(_ events: [RuntimeEvent], into all: inout [RuntimeEvent]) {
    for e in events { stream.yield(e) }
    all += events
  }

  // MARK: - Called by handlers (through their context)

  func suspend(_ id: Int, for seconds: Double) async throws {
    guard runtime.isRunning(handler: id) else { throw AppTerminated() }
    runtime.handler(id, worksFor: seconds)
    try await withCheckedThrowingContinuation { (work: CheckedContinuation<Void, any Error>) in
      workContinuations[id] = work
      yieldContinuations.removeValue(forKey: id)?.resume()
    }
  }

  func handlerReturned(_ id: Int) {
    if runtime.isRunning(handler: id) { runtime.handlerReturned(id, into: &pending) }
    yieldContinuations.removeValue(forKey: id)?.resume()
  }

  func beginTask(for handler: Int, endsOnExpiration: Bool) -> BackgroundTaskID? {
    runtime.beginTask(for: handler, endsOnExpiration: endsOnExpiration, into: &pending).map(BackgroundTaskID.init(raw:))
  }

  func endTask(_ task: BackgroundTaskID) {
    runtime.endTaskFromApp(task.raw, into: &pending)
  }
}
