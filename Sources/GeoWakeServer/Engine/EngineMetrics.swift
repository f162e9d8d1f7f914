#if Server
/// What `GET /metrics` reports, in Prometheus' text format: fixes accepted and rejected by
/// reason, repeats, events by type, the batch latency histogram, checkpoints, devices and regions.
struct EngineMetrics: Sendable {
  var accepted = 0
  var rejected: [String: Int] = [:]
  var repeats = 0
  var events: [String: Int] = [:]
  var batches = 0
  /// Upper bounds of the latency buckets, seconds (receipt of a parsed batch to its commit).
  static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
  var buckets = [Int](repeating: 0, count: bounds.count)
  var latencySum = 0.0
  var requestsRejected: [String: Int] = [:]
  var fenceChanges = 0
  var checkpoints = 0
  var natsFixes = 0
  var natsRejected = 0
  var natsPublished = 0
  var checkpointedDevices = 0
  var checkpointSeconds = 0.0
  var lastCheckpointSeconds = 0.0

  mutating func observe(latency: Double) {
    batches += 1
    latencySum += latency
    for (k, bound) in Self.bounds.enumerated() where latency <= bound { buckets[k] += 1 }
  }

  /// A reason as a label value: lower case, words joined by `_`.
  static func label(_ reason: String) -> String {
    var out = ""
    for scalar in reason.lowercased().unicodeScalars {
      if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") { out.unicodeScalars.append(scalar) } else if !out.hasSuffix("_") { out += "_" }
    }
    while out.hasSuffix("_") { out.removeLast() }
    return out.isEmpty ? "other" : out
  }

  /// - Parameters:
  ///   - pushAnswers: the APNs endpoint's answers by `STATUS Reason`, and its devices; nil without one.
  func text(devices: Int, endedDevices: Int, regions: Int, lastSequence: Int64, pushAnswers: (answers: [String: Int], devices: Int)? = nil) -> String {
    var lines: [String] = []
    func family(_ name: String, _ type: String, _ help: String) {
      lines.append("# HELP \(name) \(help)")
      lines.append("# TYPE \(name) \(type)")
    }
    family("geowake_fixes_accepted_total", "counter", "Fixes used by the engine and answered accepted.")
    lines.append("geowake_fixes_accepted_total \(accepted)")
    family("geowake_fixes_rejected_total", "counter", "Fixes answered rejected, by reason.")
    for (reason, n) in rejected.sorted(by: { $0.key < $1.key }) { lines.append("geowake_fixes_rejected_total{reason=\"\(reason)\"} \(n)") }
    family("geowake_fixes_repeated_total", "counter", "Fixes posted again (a retried batch): answered as before, no event repeated.")
    lines.append("geowake_fixes_repeated_total \(repeats)")
    family("geowake_events_total", "counter", "Events released to the stream, by type.")
    for (type, n) in events.sorted(by: { $0.key < $1.key }) { lines.append("geowake_events_total{type=\"\(type)\"} \(n)") }
    family("geowake_requests_rejected_total", "counter", "Requests refused before the engine saw them, by reason.")
    for (reason, n) in requestsRejected.sorted(by: { $0.key < $1.key }) { lines.append("geowake_requests_rejected_total{reason=\"\(reason)\"} \(n)") }
    family("geowake_batch_seconds", "histogram", "Time from a parsed batch to its durable commit.")
    for (k, bound) in Self.bounds.enumerated() { lines.append("geowake_batch_seconds_bucket{le=\"\(bound)\"} \(buckets[k])") }
    lines.append("geowake_batch_seconds_bucket{le=\"+Inf\"} \(batches)")
    lines.append("geowake_batch_seconds_sum \(latencySum)")
    lines.append("geowake_batch_seconds_count \(batches)")
    family("geowake_devices", "gauge", "Devices with a live timeline.")
    lines.append("geowake_devices \(devices)")
    family("geowake_devices_ended", "gauge", "Devices whose track was ended.")
    lines.append("geowake_devices_ended \(endedDevices)")
    family("geowake_fence_changes_total", "counter", "Regions put or deleted through the API.")
    lines.append("geowake_fence_changes_total \(fenceChanges)")
    family("geowake_checkpoints_total", "counter", "Checkpoints of the device states taken.")
    lines.append("geowake_checkpoints_total \(checkpoints)")
    family("geowake_checkpoint_devices_total", "counter", "Device states saved by checkpoints.")
    lines.append("geowake_checkpoint_devices_total \(checkpointedDevices)")
    family("geowake_checkpoint_seconds_total", "counter", "Time spent taking checkpoints (ingest waits meanwhile).")
    lines.append("geowake_checkpoint_seconds_total \(checkpointSeconds)")
    family("geowake_checkpoint_last_seconds", "gauge", "How long the last checkpoint took.")
    lines.append("geowake_checkpoint_last_seconds \(lastCheckpointSeconds)")
    family("geowake_nats_fixes_total", "counter", "Fix messages taken from NATS JetStream, and of them rejected.")
    lines.append("geowake_nats_fixes_total \(natsFixes)")
    lines.append("geowake_nats_fixes_total{status=\"rejected\"} \(natsRejected)")
    family("geowake_nats_events_published_total", "counter", "Events published to NATS JetStream (and stored there).")
    lines.append("geowake_nats_events_published_total \(natsPublished)")
    if let (answers, pushDevices) = pushAnswers {
      family("geowake_apns_requests_total", "counter", "Requests the APNs endpoint answered, by status and reason (Success for 200).")
      for (key, n) in answers.sorted(by: { $0.key < $1.key }) {
        let parts = key.split(separator: " ", maxSplits: 1)
        lines.append("geowake_apns_requests_total{status=\"\(parts.first ?? "")\",reason=\"\(parts.count > 1 ? parts[1] : "")\"} \(n)")
      }
      family("geowake_apns_devices", "gauge", "Devices behind the APNs endpoint's tokens.")
      lines.append("geowake_apns_devices \(pushDevices)")
    }
    family("geowake_regions", "gauge", "Regions in the fence set.")
    lines.append("geowake_regions \(regions)")
    family("geowake_event_sequence", "gauge", "The last event's sequence number.")
    lines.append("geowake_event_sequence \(lastSequence)")
    return lines.joined(separator: "\n") + "\n"
  }
}
#endif
