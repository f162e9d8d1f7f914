#if Server
/// The stream's reader: events after a sequence number, a page at a time, on a connection of its
/// own (WAL lets it read while the engine writes).
public actor EventLog {
  private let connection: SQLiteConnection
  private let page: SQLiteStatement
  private let device: SQLiteStatement
  private let withDevice: SQLiteStatement

  public init(dataDirectory: String) throws(StoreError) {
    connection = try SQLiteConnection(path: dataDirectory + "/" + EngineStore.fileName)
    page = try connection.prepare("SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
    device = try connection.prepare("SELECT seq, body FROM events WHERE seq > ? AND device = ? ORDER BY seq LIMIT ?")
    withDevice = try connection.prepare("SELECT seq, device, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
  }

  /// Up to `limit` events after `seq`, with each one's device.
  public func eventsWithDevice(after seq: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, device: String, line: String)] {
    try withDevice.bind(.integer(seq), .integer(Int64(limit)))
    defer { withDevice.reset() }
    var out: [(Int64, String, String)] = []
    while try withDevice.step() {
      let n = withDevice.integer(0)
      out.append((n, withDevice.text(1), EventLines.withSequence(n, withDevice.text(2))))
    }
    return out
  }

  /// Up to `limit` events after `seq`, each as its JSON line with `seq` first; only `device`'s
  /// when one is named.
  public func events(after seq: Int64, limit: Int, device name: String? = nil) throws(StoreError) -> [(seq: Int64, line: String)] {
    let statement = name == nil ? page : device
    if let name { try statement.bind(.integer(seq), .text(name), .integer(Int64(limit))) } else { try statement.bind(.integer(seq), .integer(Int64(limit))) }
    defer { statement.reset() }
    var out: [(Int64, String)] = []
    while try statement.step() {
      let n = statement.integer(0)
      out.append((n, EventLines.withSequence(n, statement.text(1))))
    }
    return out
  }
}
#endif
