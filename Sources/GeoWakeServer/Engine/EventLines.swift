#if Server
import GeoWake
import GeoWakeReports
import TrackIO

/// Events as `geowake analyze --format jsonl` writes them for a device: the live stream's lines
/// are the offline replay's, byte for byte, before the server puts `seq` in front.
enum EventLines {
  /// The event's JSON object (no newline) and its type (`enter`, `exit`, …); with a `visit`,
  /// the visit's id as its last member.
  static func line(_ event: TimelineEvent, device: String, visit: String? = nil) -> (type: String, body: String) {
    let sink = ByteSink.inMemory()
    var writer = TimelineWriter(format: .jsonl, sink: sink, regions: [], devices: true)
    writer.device = device
    let entry = TimelineEntry(event)
    // An in-memory sink does not fail.
    try? writer.write(entry)
    var bytes = sink.takeBytes()
    while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    if let visit, bytes.last == UInt8(ascii: "}") {
      bytes.removeLast()
      bytes += Array(",\"visit\":\"\(visit)\"}".utf8)
    }
    return (entry.event, String(decoding: bytes, as: UTF8.self))
  }

  /// The stored line with the stream's sequence number as its first member.
  static func withSequence(_ seq: Int64, _ body: String) -> String {
    "{\"seq\":\(seq)," + body.dropFirst()
  }
}
#endif
