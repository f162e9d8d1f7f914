#if Server
import Foundation
import JSONBytes
import GeoWake
import Geodesy
import Geofencing

extension LiveEngine {
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
}
#endif
