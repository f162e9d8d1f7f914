#if Server
import Foundation
import JSONBytes
import GeoWake
import Geodesy
import Geofencing

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
#endif
