#if Server
import Foundation
import JSONBytes
import GeoWake
import Geodesy
import Geofencing

extension LiveEngine {
  /// One device's state for a checkpoint, taken on the engine and encoded off it.
  struct CapturedState: Sendable {
    var device: String
    var snapshot: DeviceTimeline.Snapshot
    var visits: VisitBook
    var through: Int64
    var newest: Double?
  }

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
      try store.setPosition(.checkpointed, through)
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
}
#endif
