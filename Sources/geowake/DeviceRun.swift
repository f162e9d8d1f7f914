import ArgumentParser
import Foundation
import GeoWake
import TrackIO

/// The shell of a many-device run (`analyze` and `crossings` over several tracks, a folder or a
/// device column): each device's work on its own, `--jobs` at a time, its output written in
/// device order as soon as the devices before it are written, failures reported on standard
/// error without stopping the others.
enum DeviceRun {
  /// One device's part of the output and its totals.
  struct Outcome: Sendable {
    var device: String
    var output: [UInt8] = []
    /// Why the device is left out of the output, if it is.
    var failure: String?
    var warnings: [TrackIOError] = []
    /// Warnings about the device's input as a whole (far from every region, many fixes rejected),
    /// whole lines, written before its output.
    var notes: [String] = []
    var fixesUsed = 0
    var fixesRejected = 0
    /// Events by name (`enter`, `exit`, …).
    var events: [String: Int] = [:]
  }

  /// Runs `work` on every device of `source` and writes the outputs to `out` in device order.
  /// - Parameter featuresBefore: for GeoJSON, whether features were written before the devices'
  ///   (each device's features start with a comma, which the very first must not).
  static func run(
    _ source: DeviceTrackSource, jobs: Int?, to out: ByteSink, featuresBefore: Bool,
    work: @escaping @Sendable (DeviceTrack) -> Outcome
  ) async throws -> DeviceTotals {
    let jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
    var source = source
    source.readers = jobs
    var tracks = TracksWithWarnings(source: source)
    var totals = DeviceTotals()
    var featureWritten = featuresBefore
    try await OrderedParallelMap.run(inputs: &tracks, jobs: jobs) { track, warnings in
      var outcome = work(track)
      outcome.warnings = warnings + outcome.warnings
      return outcome
    } emit: { outcome in
      outcome.warnings.forEach(Diagnostics.warning)
      // A device whose rows come back has its earlier rows' events written already.
      let written = totals.devices.contains(outcome.device) && !totals.failed.contains(outcome.device)
      totals.add(outcome)
      if let failure = outcome.failure {
        Diagnostics.error("\(failure) " + (written ? "(device \(outcome.device): its rows from here on left out)" : "(device \(outcome.device) left out)"))
        return
      }
      if outcome.fixesUsed == 0 { Diagnostics.error("warning: device \(outcome.device): no fixes used") }
      outcome.notes.forEach { Diagnostics.error($0) }
      var bytes = outcome.output[...]
      if !featureWritten && bytes.starts(with: ",\n".utf8) { bytes = bytes.dropFirst(2) }
      featureWritten = featureWritten || !bytes.isEmpty
      try out.write(bytes: bytes)
    }
    // Warnings after the last track (a file whose rows all failed, say).
    tracks.source.takeWarnings().forEach(Diagnostics.warning)
    if totals.devices.isEmpty { Diagnostics.error("warning: no device has any fix: the input holds no rows") }
    return totals
  }
}

/// The tracks of a source, each with the warnings about the file's rows read before it was
/// handed on: they are written with that track's output, so in the same place whatever `--jobs`.
private struct TracksWithWarnings: IteratorProtocol {
  var source: DeviceTrackSource

  mutating func next() -> (DeviceTrack, [TrackIOError])? {
    guard let track = source.next() else { return nil }
    return (track, source.takeWarnings())
  }
}

/// The totals of a many-device run, for the table's summary and the exit status.
struct DeviceTotals {
  var devices: Set<String> = []
  var failed: Set<String> = []
  var fixesUsed = 0
  var fixesRejected = 0
  var events: [String: Int] = [:]

  mutating func add(_ outcome: DeviceRun.Outcome) {
    devices.insert(outcome.device)
    guard outcome.failure == nil else {
      failed.insert(outcome.device)
      return
    }
    fixesUsed += outcome.fixesUsed
    fixesRejected += outcome.fixesRejected
    events.merge(outcome.events, uniquingKeysWith: +)
  }

  /// The summary, starting with a blank line; `regions` describes the shared regions.
  func text(regions: String?) -> String {
    var text = "\n\(devices.count) devices" + (failed.isEmpty ? "" : " (\(failed.count) failed)") + ": \(fixesUsed) fixes used"
      + (fixesRejected > 0 ? ", \(fixesRejected) rejected" : "") + (regions.map { ", " + $0 } ?? "") + "\n"
    let counts = events.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
    text += "events: " + (counts.isEmpty ? "none" : counts.joined(separator: ", ")) + "\n"
    return text
  }

  /// Ends the run with status 65 when a device failed (each failure is already on standard error).
  func exitIfFailed() throws {
    guard !failed.isEmpty else { return }
    Diagnostics.error("\(failed.count) of \(devices.count) devices failed: left out of the output, or from where they failed")
    throw SysExit.dataError
  }
}
