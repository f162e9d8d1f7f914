#if Server
import GeoWake
import GeoWakeReports
import TrackIO

/// Events as `geowake analyze --format jsonl` writes them for a device: the live stream's lines
/// are the offline replay's, byte for byte, before the server puts `seq` in front.
struct EventLines {
  /// One writer into one in-memory sink, for every line.
  private let sink = ByteSink.inMemory()
  private var writer: TimelineWriter

  init() {
    writer = TimelineWriter(format: .jsonl, sink: sink, regions: [], devices: true)
  }

  /// The event's JSON object (no newline) and its type (`enter`, `exit`, …); with a `visit`,
  /// the visit's id as its last member.
  mutating func line(_ event: TimelineEvent, device: String, visit: String? = nil) -> (type: String, body: String) {
    line(TimelineEntry(event), device: device, visit: visit)
  }

  /// The entry's JSON object (no newline) and its type, as ``line(_:device:visit:)`` writes an event.
  mutating func line(_ entry: TimelineEntry, device: String, visit: String? = nil) -> (type: String, body: String) {
    writer.device = device
    // An in-memory sink does not fail.
    try? writer.write(entry)
    var bytes = sink.takeBytes(keepingCapacity: true)
    while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    if let visit, bytes.last == UInt8(ascii: "}") {
      bytes.removeLast()
      bytes += ",\"visit\":\"".utf8
      bytes += visit.utf8
      bytes += "\"}".utf8
    }
    return (entry.event, String(decoding: bytes, as: UTF8.self))
  }

  /// The event's line as ``line(_:device:visit:)`` makes it, from a writer of its own.
  static func line(_ event: TimelineEvent, device: String, visit: String? = nil) -> (type: String, body: String) {
    var lines = EventLines()
    return lines.line(event, device: device, visit: visit)
  }

  /// The stored line with the stream's sequence number as its first member.
  static func withSequence(_ seq: Int64, _ body: String) -> String {
    "{\"seq\":\(seq)," + body.dropFirst()
  }
}
#endif
