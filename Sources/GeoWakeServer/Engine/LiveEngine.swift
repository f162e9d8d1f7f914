#if Server
import Foundation
import JSONBytes
import GeoWake
import Geodesy
import Geofencing

/// The live engine: one timeline per device (``DeviceTimeline``, the platform's rules, seeded as
/// `geowake analyze` seeds a device of a many-device file) over one shared region set, and the
/// store that makes every answered fix and every released event durable.
///
/// Batches are taken one at a time, in the order they arrive; within a batch, in order. A fix of
/// a device at a time and place already used is a repeat: it is answered as the first time, and
/// changes nothing. The events a batch releases get consecutive sequence numbers and are durable, with
/// the fixes, before the batch is answered.
public actor LiveEngine {
  public let settings: EngineSettings
  /// The fence set now: the regions file with the changes put and deleted since.
  public internal(set) var fences: FenceSet
  /// The set of the regions file, built once: every version is it with the changes since.
  let file: FenceSet
  var fleet: Fleet
  let store: EngineStore
  /// The events' sequence numbers, for the readers.
  public nonisolated let notifier: EventNotifier

  struct LiveDevice {
    var timeline: DeviceTimeline
    var lastFix: FixInput?
    /// The last log row of the device (a fence change counts: every device takes it).
    var lastRow: Int64
    /// Its open visits, as of the events released.
    var visits = VisitBook()

    /// Notes the events released (and discarded, in a replay) in the device's visits.
    mutating func note(_ events: [TimelineEvent], device: String) {
      for event in events { _ = visits.visit(of: event, device: device) }
    }

    /// Moves the device onto `next` (`changed`: the region put or removed, when its
    /// definition differs): a changed region's open visit ends without an event.
    mutating func move(
      onto next: FenceSet, change: RegionSetChange, changed: RegionIdentifier?, into events: inout [TimelineEvent]
    ) throws {
      try timeline.replaceRegions(with: next.regions, notifications: next.notifications, change: change, into: &events)
      if let changed { visits.open[changed.rawValue] = nil }
    }
  }
  var devices: [String: LiveDevice] = [:]
  /// Devices whose track was ended, and the time of its last fix.
  var ended: [String: Double] = [:]
  /// Each device's newest fix time in the log (ended tracks too): a fix later than it cannot be
  /// a repeat, so the store is asked only about the others.
  var newestLogged: [String: Double] = [:]
  /// Devices changed since the last checkpoint.
  var dirty: Set<String> = []
  var lastRow: Int64 = 0
  /// The log row of the last full checkpoint.
  var checkpointedRow: Int64 = 0
  var lastSequence: Int64 = 0
  var metrics = EngineMetrics()
  /// Writes the events' JSON lines.
  var lines = EventLines()
  /// Whether a checkpoint is being taken, and the calls waiting to take the next.
  var checkpointRunning = false
  var checkpointWaiters: [CheckedContinuation<Void, Never>] = []
  /// The APNs endpoint's devices, once started.
  var pushBook: PushBook?

  /// Opens the store in the settings' data directory and rebuilds every device's state: its
  /// checkpoint, then the fixes logged since.
  /// - Throws: ``StoreError`` when the store cannot be opened or holds state made under other
  ///   settings; an error of ``DeviceTimeline`` when the platform's profile is invalid.
  public init(settings: EngineSettings) throws {
    self.settings = settings
    file = FenceSet(regions: RegionSet(settings.regions), notifications: settings.notifications, row: 0)
    _ = try Fleet(regions: file.regions, platform: settings.platform, notifications: file.notifications, seed: settings.seed)
      .timeline(for: "")
    store = try EngineStore(directory: settings.dataDirectory)
    try store.adopt(
      [
        "regions": settings.regionsFingerprint, "platform": settings.platform.name.rawValue, "seed": String(settings.seed),
      ].merging(settings.rules) { a, _ in a })
    let state = try Self.recover(store: store, file: file, settings: settings)
    devices = state.devices
    ended = state.ended
    lastRow = state.lastRow
    fences = state.fences
    fleet = state.fleet
    newestLogged = state.newest
    checkpointedRow = try store.position(.checkpointed)
    lastSequence = try store.lastSequence()
    notifier = EventNotifier(latest: lastSequence)
  }

  /// What a restart rebuilds from the store.
  struct Recovered {
    var devices: [String: LiveDevice] = [:]
    var ended: [String: Double] = [:]
    var lastRow: Int64 = 0
    var fences: FenceSet
    var fleet: Fleet
    /// Each device's newest fix time in the log.
    var newest: [String: Double] = [:]
  }

  static func fleet(_ fences: FenceSet, _ settings: EngineSettings) -> Fleet {
    Fleet(regions: fences.regions, platform: settings.platform, notifications: fences.notifications, seed: settings.seed)
  }

  /// The devices' states from the checkpoints and the log since, over the fence set of each
  /// moment: a checkpoint through row R was taken over the set as it was at R.
  static func recover(store: EngineStore, file: FenceSet, settings: EngineSettings) throws -> Recovered {
    var versions = [file]
    for change in try store.fenceChanges() { versions.append(try versions[versions.count - 1].applying(change)) }
    func version(at row: Int64) -> FenceSet { versions.last { $0.row <= row } ?? file }
    var state = Recovered(fences: file, fleet: fleet(file, settings), newest: try store.newestFixTimes())
    var through: [String: Int64] = [:]
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let books = try store.visitBooks()
    for checkpoint in try store.checkpoints() {
      through[checkpoint.device] = checkpoint.through
      if let time = checkpoint.ended {
        state.ended[checkpoint.device] = time
      } else if let bytes = checkpoint.snapshot {
        let saved = try decoder.decode(DeviceTimeline.Snapshot.self, from: Data(bytes))
        let fences = version(at: checkpoint.through)
        let timeline = try DeviceTimeline(
          restoring: saved, regions: fences.regions, platform: settings.platform, notifications: fences.notifications,
          seed: Fleet.seed(settings.seed, device: checkpoint.device))
        var device = LiveDevice(timeline: timeline, lastFix: nil, lastRow: checkpoint.through)
        if let book = books[checkpoint.device] { device.visits = try JSONDecoder().decode(VisitBook.self, from: Data(book.utf8)) }
        state.devices[checkpoint.device] = device
      }
    }
    let checkpointed = try store.position(.checkpointed)
    state.fences = version(at: checkpointed)
    state.fleet = fleet(state.fences, settings)
    state.lastRow = max(checkpointed, through.values.max() ?? 0)
    var discarded: [TimelineEvent] = []
    try store.replay(after: checkpointed) { row in
      state.lastRow = max(state.lastRow, row.id)
      discarded.removeAll(keepingCapacity: true)
      if row.kind == 2 {
        let previous = state.fences
        state.fences = version(at: row.id)
        state.fleet = fleet(state.fences, settings)
        let changed = Self.changed(row.fix.device, from: previous, to: state.fences)
        // (A device restored over another version than `previous` is compared region by region.)
        let change = RegionSetChange(
          from: previous.regions, notifications: previous.notifications, to: state.fences.regions, notifications: state.fences.notifications)
        for name in state.devices.keys where state.devices[name]!.lastRow < row.id {
          discarded.removeAll(keepingCapacity: true)
          try state.devices[name]!.move(onto: state.fences, change: change, changed: changed, into: &discarded)
          state.devices[name]!.note(discarded, device: name)
          state.devices[name]!.lastRow = row.id
        }
        return
      }
      if row.kind == 0 { state.newest[row.fix.device] = max(state.newest[row.fix.device] ?? -.infinity, row.fix.time) }
      guard row.id > through[row.fix.device] ?? 0 else { return }
      if row.kind == 1 {
        if var device = state.devices.removeValue(forKey: row.fix.device) { try device.timeline.finish(into: &discarded) }
        state.ended[row.fix.device] = row.fix.time
        return
      }
      if state.devices[row.fix.device] == nil {
        state.devices[row.fix.device] = LiveDevice(timeline: try state.fleet.timeline(for: row.fix.device), lastFix: nil, lastRow: 0)
        state.ended[row.fix.device] = nil
      }
      state.devices[row.fix.device]!.timeline.process(row.fix.locationFix, into: &discarded)
      state.devices[row.fix.device]!.note(discarded, device: row.fix.device)
      state.devices[row.fix.device]!.lastFix = row.fix
      state.devices[row.fix.device]!.lastRow = row.id
    }
    return state
  }

  /// The region of a change, when its definition (or what the app wants of it) differs between
  /// the two sets.
  static func changed(_ name: String, from old: FenceSet, to new: FenceSet) -> RegionIdentifier? {
    guard let id = try? RegionIdentifier(name) else { return nil }
    let same = old.regions[id] == new.regions[id] && old.notifications[id] == new.notifications[id]
    return same ? nil : id
  }

  // MARK: - Ingest

  /// Takes a batch: every fix through its device's timeline, the fixes and the events they
  /// release into the store in one transaction, committed before this returns.
  /// - Throws: ``StoreError`` when the store fails; the batch is then rolled back and the
  ///   engine's state rebuilt from the store, as after a restart.
  public func ingest(_ batch: FixBatch) throws -> IngestAnswer {
    let started = ContinuousClock.now
    var answer = IngestAnswer()
    var tally = EngineMetrics()
    var events: [TimelineEvent] = []
    do {
      try store.begin()
      for item in batch.items {
        var entry = IngestAnswer.Item(index: item.index, line: item.line, status: .accepted)
        let fix: FixInput
        switch item.fix {
        case .failure(let problem):
          entry.status = .rejected
          entry.field = problem.field
          entry.reason = "line \(problem.line), column \(problem.column): \(problem.message)"
          tally.rejected["invalid_" + (problem.field ?? "json"), default: 0] += 1
          answer.items.append(entry)
          continue
        case .success(let f): fix = f
        }
        // Only a fix no later than the device's newest one logged can have been used before
        // (the store sees the rows of this batch too).
        if let newest = newestLogged[fix.device], fix.time <= newest, let verdict = try store.verdict(of: fix) {
          (entry.status, entry.reason) = Self.status(of: verdict)
          entry.repeated = true
          tally.repeats += 1
          answer.items.append(entry)
          continue
        }
        if let end = ended[fix.device], fix.time <= end {
          entry.status = .rejected
          entry.reason = "at or before \(Self.iso(end)), the last fix of this device's ended track: a device's fixes go forward in time"
          tally.rejected["before_end_of_track", default: 0] += 1
          answer.items.append(entry)
          continue
        }
        let slot: Dictionary<String, LiveDevice>.Index
        if let found = devices.index(forKey: fix.device) {
          slot = found
        } else {
          devices[fix.device] = LiveDevice(timeline: try fleet.timeline(for: fix.device), lastFix: nil, lastRow: 0)
          ended[fix.device] = nil
          slot = devices.index(forKey: fix.device)!
        }
        events.removeAll(keepingCapacity: true)
        let rejection = devices.values[slot].timeline.process(fix.locationFix, into: &events)
        let verdict: String
        if let rejection {
          entry.status = .rejected
          entry.reason = rejection.description
          verdict = "rejected: " + rejection.description
          tally.rejected[EngineMetrics.label(rejection.cause), default: 0] += 1
        } else {
          verdict = "accepted"
          tally.accepted += 1
        }
        let row = try store.appendFix(fix, verdict: verdict)
        newestLogged[fix.device] = max(newestLogged[fix.device] ?? -.infinity, fix.time)
        devices.values[slot].lastRow = row
        if rejection == nil || devices.values[slot].lastFix == nil { devices.values[slot].lastFix = fix }
        lastRow = row
        dirty.insert(fix.device)
        for event in events { try append(event, device: fix.device, visits: &devices.values[slot].visits, tally: &tally, answer: &answer) }
        answer.items.append(entry)
      }
      try store.commit()
    } catch let error as StoreError {
      store.rollback()
      try rebuild()
      throw error
    }
    publish(tally, answer: answer, started: started)
    answer.lastSequence = lastSequence
    return answer
  }

  func append(
    _ event: TimelineEvent, device: String, visits: inout VisitBook, tally: inout EngineMetrics, answer: inout IngestAnswer
  ) throws(StoreError) {
    let (type, body) = lines.line(event, device: device, visit: visits.visit(of: event, device: device))
    answer.lastSequence = try store.appendEvent(device: device, body: body)
    answer.events += 1
    tally.events[type, default: 0] += 1
  }

  func publish(_ tally: EngineMetrics, answer: IngestAnswer, started: ContinuousClock.Instant?) {
    metrics.accepted += tally.accepted
    metrics.repeats += tally.repeats
    metrics.rejected.merge(tally.rejected, uniquingKeysWith: +)
    metrics.events.merge(tally.events, uniquingKeysWith: +)
    if let started {
      let elapsed = ContinuousClock.now - started
      metrics.observe(latency: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    if answer.lastSequence > lastSequence {
      lastSequence = answer.lastSequence
      notifier.publish(lastSequence)
    }
  }

  /// After a failed transaction: the state the store holds.
  func rebuild() throws {
    let state = try Self.recover(store: store, file: file, settings: settings)
    devices = state.devices
    ended = state.ended
    lastRow = state.lastRow
    fences = state.fences
    fleet = state.fleet
    newestLogged = state.newest
    dirty = Set(devices.keys)
  }

  static func status(of verdict: String) -> (IngestAnswer.Status, String?) {
    verdict == "accepted" ? (.accepted, nil) : (.rejected, String(verdict.dropFirst("rejected: ".count)))
  }

  static func iso(_ t: Double) -> String {
    Date(timeIntervalSince1970: t).formatted(.iso8601)
  }

  /// Counts a request refused before the engine saw it (too large, unauthorised, malformed).
  public func noteRefused(_ reason: String) { metrics.requestsRejected[EngineMetrics.label(reason), default: 0] += 1 }

  public func metricsText() -> String {
    metrics.text(
      devices: devices.count, endedDevices: ended.count, regions: fences.regions.count, lastSequence: lastSequence,
      pushAnswers: pushBook.map { ($0.answered, $0.state.phones.count) })
  }

  public var deviceCount: Int { devices.count }
}
#endif
