import SavedState
import SeededRandom

extension AppRuntime {
  /// The runtime's state, to be saved and restored with the same profile and behaviours: the
  /// app's state and clock, its queues, the work in progress, the seeded draws and the totals.
  struct Snapshot: Codable, Sendable, Hashable {
    struct Work: Codable, Sendable, Hashable {
      var id: Int
      var reason: LaunchReason
      var label: String
    }

    struct Task: Codable, Sendable, Hashable {
      var id: Int
      var reason: LaunchReason
      var endsOnExpiration: Bool
    }

    var profileName: String
    var state: AppState
    var now: Double?
    var summary: RuntimeSummary
    var queue: EventQueue<Item>
    /// The outside events still to come, from `nextExternal` on, in the order they will be taken.
    var external: [SystemEvent]
    var random: SeededGenerator
    var forceQuit: Bool
    /// Absent in snapshots made before the system could stop an app: false.
    var stoppedBySystem: Bool?
    var wakeReason: LaunchReason?
    var wakeStart: Double?
    var budgetEnd: Double
    var budgetVersion: Int
    /// Sorted by id, so that equal states encode alike.
    var handlers: [Work]
    var tasks: [Task]
    var nextWorkID: Int
    var backgroundSince: Double?
    var sessionNumber: Int
    var foregroundSince: Double?
  }

  /// The state now. A runtime whose handlers are driven from outside (``AppSimulation``) has
  /// continuations no snapshot can hold, and is not saved.
  func snapshot() -> Snapshot {
    var pending = Array(external[nextExternal...])
    if !externalSorted {
      pending = pending.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
    return Snapshot(
      profileName: profile.name, state: state, now: now.isFinite ? now : nil, summary: summary, queue: queue, external: pending,
      random: random, forceQuit: forceQuit, stoppedBySystem: stoppedBySystem ? true : nil, wakeReason: wake?.reason, wakeStart: wake?.start, budgetEnd: budgetEnd,
      budgetVersion: budgetVersion, handlers: handlers.sorted { $0.key < $1.key }.map { Snapshot.Work(id: $0.key, reason: $0.value.reason, label: $0.value.label) },
      tasks: tasks.sorted { $0.key < $1.key }.map { Snapshot.Task(id: $0.key, reason: $0.value.reason, endsOnExpiration: $0.value.endsOnExpiration) },
      nextWorkID: nextWorkID, backgroundSince: backgroundSince, sessionNumber: sessionNumber, foregroundSince: foregroundSince)
  }

  /// A runtime in the state of `snapshot`, with the profile and behaviours it was saved with.
  /// - Throws: ``SnapshotError`` when the profile differs or a field is out of range.
  init(restoring snapshot: Snapshot, profile: RuntimeProfile, behaviours: [LaunchReason: HandlerBehaviour]) throws(SnapshotError) {
    guard snapshot.profileName == profile.name else {
      throw SnapshotError(.profileDiffers(snapshot: snapshot.profileName, given: profile.name))
    }
    let times = [snapshot.now, snapshot.wakeStart, snapshot.backgroundSince, snapshot.foregroundSince].compactMap { $0 } + [snapshot.budgetEnd]
      + snapshot.external.map(\.time)
    guard times.allSatisfy(\.isFinite) else { throw SnapshotError(.invalidField("runtime", "a time is not finite")) }
    guard (snapshot.wakeReason == nil) == (snapshot.wakeStart == nil) else {
      throw SnapshotError(.invalidField("runtime.wake", "a reason without a start, or the other way round"))
    }
    guard snapshot.queue.isConsistent else { throw SnapshotError(.invalidField("runtime.queue", "not a heap of deadlines in time order")) }
    guard Set(snapshot.handlers.map(\.id)).count == snapshot.handlers.count, Set(snapshot.tasks.map(\.id)).count == snapshot.tasks.count
    else { throw SnapshotError(.invalidField("runtime.handlers", "a work id appears twice")) }
    guard snapshot.nextWorkID >= 0, snapshot.handlers.allSatisfy({ (0..<snapshot.nextWorkID).contains($0.id) }),
      snapshot.tasks.allSatisfy({ (0..<snapshot.nextWorkID).contains($0.id) })
    else { throw SnapshotError(.invalidField("runtime.nextWorkID", "work ids must be below it")) }
    self.init(profile: profile, behaviours: behaviours)
    state = snapshot.state
    now = snapshot.now ?? -.infinity
    summary = snapshot.summary
    queue = snapshot.queue
    external = snapshot.external
    random = snapshot.random
    forceQuit = snapshot.forceQuit
    stoppedBySystem = snapshot.stoppedBySystem ?? false
    if let reason = snapshot.wakeReason, let start = snapshot.wakeStart { wake = (reason, start) }
    budgetEnd = snapshot.budgetEnd
    budgetVersion = snapshot.budgetVersion
    handlers = Dictionary(uniqueKeysWithValues: snapshot.handlers.map { ($0.id, (reason: $0.reason, label: $0.label)) })
    tasks = Dictionary(uniqueKeysWithValues: snapshot.tasks.map { ($0.id, (reason: $0.reason, endsOnExpiration: $0.endsOnExpiration)) })
    nextWorkID = snapshot.nextWorkID
    backgroundSince = snapshot.backgroundSince
    sessionNumber = snapshot.sessionNumber
    foregroundSince = snapshot.foregroundSince
  }
}
