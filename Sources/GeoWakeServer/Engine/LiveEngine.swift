#if Server
import Foundation
import JSONBytes
public import GeoWake
public import Geodesy
public import Geofencing

/// The settings a live engine runs under; the state in its data directory was made under the
/// same (the store refuses other regions, platform or seed).
public struct EngineSettings: Sendable {
  public var regions: [Region]
  /// Identifies the fence set (a hash of its file), stored with the state.
  public var regionsFingerprint: String
  public var platform: Platform
  /// The platform's rules tuned from their preset (`--dwell`, …), by name: stored with the state.
  public var rules: [String: String]
  public var notifications: [RegionIdentifier: RegionNotifications]
  public var seed: UInt64
  public var dataDirectory: String
  /// How often the device states are checkpointed (seconds): a restart replays the fixes since.
  public var checkpointInterval: Double

  public init(
    regions: [Region], regionsFingerprint: String, platform: Platform, rules: [String: String] = [:],
    notifications: [RegionIdentifier: RegionNotifications] = [:],
    seed: UInt64 = 0, dataDirectory: String, checkpointInterval: Double = 30
  ) {
    self.regions = regions
    self.regionsFingerprint = regionsFingerprint
    self.platform = platform
    self.rules = rules
    self.notifications = notifications
    self.seed = seed
    self.dataDirectory = dataDirectory
    self.checkpointInterval = checkpointInterval
  }
}

/// What the engine answered for each item of a batch.
public struct IngestAnswer: Sendable {
  public enum Status: String, Sendable {
    case accepted, rejected
  }
  public struct Item: Sendable {
    public var index: Int
    public var line: Int
    public var status: Status
    /// Why it was rejected.
    public var reason: String?
    /// The field in error, for an item that is not a fix.
    public var field: String?
    /// The fix had been posted before: the answer is the first one's, and no event is repeated.
    public var repeated = false
  }
  public var items: [Item] = []
  /// Events the batch released, and the stream's last sequence number after it.
  public var events = 0
  public var lastSequence: Int64 = 0

  /// The answer as JSON: the counts, then one entry per item.
  public func json() -> String {
    var out = "{\"accepted\":\(items.count { $0.status == .accepted }),\"rejected\":\(items.count { $0.status == .rejected }),"
    out += "\"repeated\":\(items.count { $0.repeated }),\"events\":\(events),\"lastSeq\":\(lastSequence),\"results\":["
    for (k, item) in items.enumerated() {
      if k > 0 { out += "," }
      out += "{\"index\":\(item.index),\"line\":\(item.line),\"status\":\"\(item.status.rawValue)\""
      if let field = item.field { out += ",\"field\":" + JSONText.quoted(field) }
      if let reason = item.reason { out += ",\"reason\":" + JSONText.quoted(reason) }
      if item.repeated { out += ",\"repeated\":true" }
      out += "}"
    }
    return out + "]}"
  }
}

/// What `GET /v1/devices/{id}` shows.
public struct DeviceReport: Sendable {
  public var device: String
  public var inside: [String]
  public var lastFix: FixInput?
  /// The events made and not yet released (the reorder window holds them), as JSON lines.
  public var pending: [String]
  /// When its track was ended, if it was (and no fix came since).
  public var endedAt: Double?
  public var fixesUsed: Int
}

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
  public private(set) var fences: FenceSet
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
    checkpointedRow = try store.checkpointedRow()
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
    let checkpointed = try store.checkpointedRow()
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

  private func append(
    _ event: TimelineEvent, device: String, visits: inout VisitBook, tally: inout EngineMetrics, answer: inout IngestAnswer
  ) throws(StoreError) {
    let (type, body) = lines.line(event, device: device, visit: visits.visit(of: event, device: device))
    answer.lastSequence = try store.appendEvent(device: device, body: body)
    answer.events += 1
    tally.events[type, default: 0] += 1
  }

  private func publish(_ tally: EngineMetrics, answer: IngestAnswer, started: ContinuousClock.Instant?) {
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
  private func rebuild() throws {
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

  // MARK: - Devices

  /// Ends `device`'s track: the events its timeline still holds are released (as
  /// `geowake analyze` releases them at the end of a file), and its state is dropped. A later fix
  /// of the device starts a new track, and must be later than the ended track's last fix.
  /// - Returns: the events released, or nil when the device has no live track.
  public func end(device name: String) throws -> IngestAnswer? {
    guard var device = devices[name] else { return nil }
    let started = ContinuousClock.now
    var answer = IngestAnswer()
    var tally = EngineMetrics()
    var events: [TimelineEvent] = []
    try device.timeline.finish(into: &events)
    let time = device.lastFix?.time ?? 0
    do {
      try store.begin()
      let row = try store.appendEnd(device: name, time: time)
      for event in events { try append(event, device: name, visits: &device.visits, tally: &tally, answer: &answer) }
      try store.save(.init(device: name, snapshot: nil, through: row, ended: time))
      try store.saveVisits(device: name, nil)
      if let newest = newestLogged[name] { try store.saveNewest(device: name, time: newest) }
      try store.commit()
      lastRow = row
    } catch {
      store.rollback()
      try rebuild()
      throw error
    }
    devices[name] = nil
    ended[name] = time
    dirty.remove(name)
    publish(tally, answer: answer, started: started)
    answer.lastSequence = lastSequence
    return answer
  }

  public func report(device name: String) -> DeviceReport? {
    if let device = devices[name] {
      let inside = fences.regions.lazyRegions.map(\.identifier).filter { device.timeline.monitor.state(of: $0) == .inside }.map(\.rawValue)
      return DeviceReport(
        device: name, inside: inside, lastFix: device.lastFix,
        pending: device.timeline.pendingEvents.map { EventLines.line($0, device: name).body }, endedAt: nil,
        fixesUsed: device.timeline.monitor.fixCount)
    }
    if let time = ended[name] { return DeviceReport(device: name, inside: [], lastFix: nil, pending: [], endedAt: time, fixesUsed: 0) }
    return nil
  }

  // MARK: - Fences

  /// What a change to the fence set did.
  public struct FenceAnswer: Sendable {
    public var region: String
    /// Whether a region with the identifier was there before (replaced, or removed).
    public var existed: Bool
    /// The set's version after the change (the change's log row).
    public var version: Int64
    /// Events the change released (the state of a device inside a region put), and the
    /// stream's last sequence number after it.
    public var events = 0
    public var lastSequence: Int64 = 0
  }

  /// Puts `region` into the fence set, in place of the one with its identifier if there is one,
  /// and moves every live device onto the new set
  /// (``DeviceTimeline/replaceRegions(with:notifications:into:)``): `body` (the Feature as
  /// sent) is stored with the change, the events it makes too, in one transaction.
  public func put(_ region: Region, wanting notifications: RegionNotifications, body: [UInt8]) throws -> FenceAnswer {
    let existed = fences.regions.contains(region.identifier)
    return try change(region.identifier.rawValue, body: body, existed: existed) { $0.putting(region, wanting: notifications, at: $1) }
  }

  /// Removes the region `identifier` from the fence set; nil when the set has none. A device
  /// inside it gets no event (as `stopMonitoring`): the region leaves its list.
  public func remove(_ identifier: RegionIdentifier) throws -> FenceAnswer? {
    guard fences.regions.contains(identifier) else { return nil }
    return try change(identifier.rawValue, body: nil, existed: true) { $0.removing(identifier, at: $1) }
  }

  private func change(_ region: String, body: [UInt8]?, existed: Bool, _ next: (FenceSet, Int64) -> FenceSet) throws -> FenceAnswer {
    var answer = IngestAnswer()
    var tally = EngineMetrics()
    var events: [TimelineEvent] = []
    let row: Int64
    do {
      try store.begin()
      row = try store.appendFenceChange(region: region, body: body)
      let fences = next(self.fences, row)
      let changed = Self.changed(region, from: self.fences, to: fences)
      // What differs, once for every device.
      let change = RegionSetChange(
        from: self.fences.regions, notifications: self.fences.notifications, to: fences.regions, notifications: fences.notifications)
      for name in devices.keys.sorted() {
        let slot = devices.index(forKey: name)!
        events.removeAll(keepingCapacity: true)
        try devices.values[slot].move(onto: fences, change: change, changed: changed, into: &events)
        devices.values[slot].lastRow = row
        dirty.insert(name)
        for event in events { try append(event, device: name, visits: &devices.values[slot].visits, tally: &tally, answer: &answer) }
      }
      try store.commit()
      self.fences = fences
      fleet = Self.fleet(fences, settings)
      lastRow = row
    } catch {
      store.rollback()
      try rebuild()
      throw error
    }
    metrics.fenceChanges += 1
    publish(tally, answer: answer, started: nil)
    return FenceAnswer(region: region, existed: existed, version: row, events: answer.events, lastSequence: lastSequence)
  }

  // MARK: - Checkpoints

  /// One device's state for a checkpoint, taken on the engine and encoded off it.
  struct CapturedState: Sendable {
    var device: String
    var snapshot: DeviceTimeline.Snapshot
    var visits: VisitBook
    var through: Int64
    var newest: Double?
  }

  /// Whether a checkpoint is being taken, and the calls waiting to take the next.
  var checkpointRunning = false
  var checkpointWaiters: [CheckedContinuation<Void, Never>] = []

  /// Saves the state of every device changed since the last checkpoint, so that a restart
  /// replays only the fixes logged after it.
  ///
  /// The states are taken at once, encoded off the engine (batches go on meanwhile; a device they
  /// change stays due for the next checkpoint) and written in one transaction, which records the
  /// log row they were taken at. Checkpoints run one at a time, in the order they were asked for.
  public func checkpoint() async throws {
    while checkpointRunning { await withCheckedContinuation { checkpointWaiters.append($0) } }
    checkpointRunning = true
    defer {
      checkpointRunning = false
      let waiting = checkpointWaiters
      checkpointWaiters.removeAll()
      for continuation in waiting { continuation.resume() }
    }
    guard !dirty.isEmpty || lastRow > checkpointedRow else { return }
    let started = ContinuousClock.now
    let taken = dirty
    let through = lastRow
    let states = taken.sorted().compactMap { name in
      devices[name].map {
        CapturedState(device: name, snapshot: $0.timeline.snapshot(), visits: $0.visits, through: $0.lastRow, newest: newestLogged[name])
      }
    }
    dirty.removeAll()
    do {
      let encoded = try await Self.encode(states)
      try store.begin()
      // A device whose track was ended meanwhile has its end stored already.
      for (state, snapshot, visits) in encoded where ended[state.device] == nil {
        try store.save(.init(device: state.device, snapshot: snapshot, through: state.through, ended: nil))
        try store.saveVisits(device: state.device, visits)
        if let newest = state.newest { try store.saveNewest(device: state.device, time: newest) }
      }
      try store.setCheckpointedRow(through)
      try store.commit()
    } catch {
      store.rollback()
      dirty.formUnion(taken)
      throw error
    }
    let took = ContinuousClock.now - started
    let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
    metrics.checkpoints += 1
    metrics.checkpointedDevices += states.count
    metrics.checkpointSeconds += seconds
    metrics.lastCheckpointSeconds = seconds
    checkpointedRow = through
  }

  /// The states as stored: each snapshot and its open visits as JSON (sorted keys, infinities as
  /// strings: JSON has no number for them). Off the engine.
  @concurrent
  nonisolated static func encode(_ states: [CapturedState]) async throws -> [(CapturedState, [UInt8], String)] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return try states.map { state in
      (state, Array(try encoder.encode(state.snapshot)), String(decoding: try encoder.encode(state.visits), as: UTF8.self))
    }
  }

  public func metricsText() -> String {
    metrics.text(devices: devices.count, endedDevices: ended.count, regions: fences.regions.count, lastSequence: lastSequence)
  }

  public var deviceCount: Int { devices.count }
}
#endif
