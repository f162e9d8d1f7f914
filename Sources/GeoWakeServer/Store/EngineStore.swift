#if Server
import CSQLite
import Foundation

/// The live engine's durable state in one SQLite database in WAL mode (`DIR/geowake.sqlite`):
///
/// - `log`: every fix the engine used, in arrival order (its `id`), with the verdict it was
///   answered, and the end of a device's track (`kind` 1). The device states are a function of
///   it: replaying a device's rows after its snapshot rebuilds the state exactly.
/// - `events`: every event released, numbered by `seq` (the stream's `id:`), with its JSON line.
/// - `devices`: each device's last checkpoint: its timeline's snapshot and the last log row it
///   covers (`through`), or, for a device whose track ended, when it ended.
/// - `fences`: every change to the fence set after the regions file, at its log row (`kind` 2):
///   the region's identifier and the GeoJSON Feature as it was put (the same bytes read again
///   give the same region), or no body for a region removed. The set at any row is the file's
///   with the changes up to that row.
/// - `visits`: each checkpointed device's open visits (region → visit id), as of its checkpoint.
/// - `newest`: each device's newest fix time, as of its checkpoint: a fix later than its device's
///   newest cannot be a repeat, so only the others are looked up (by the index on `log` time and
///   device).
/// - `pushes`: the APNs endpoint's inputs (EngineStore+Pushes.swift).
/// - `meta`: the settings the state was made under (regions, platform, seed).
///
/// A batch's log rows and events are written in one transaction, committed with
/// `synchronous=FULL` before the batch is answered: a crash loses no answered fix and leaves no
/// event without the fix that made it.
final class EngineStore {
  static let fileName = "geowake.sqlite"
  static let schemaVersion = "1"

  let connection: SQLiteConnection
  let path: String
  private let findVerdict: SQLiteStatement
  private let insertLog: SQLiteStatement
  private let insertEvent: SQLiteStatement
  private let upsertDevice: SQLiteStatement
  private let upsertNewest: SQLiteStatement
  let readPosition: SQLiteStatement
  let writePosition: SQLiteStatement
  let insertPush: SQLiteStatement

  /// Opens the store in `directory` (created when missing).
  init(directory: String) throws(StoreError) {
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw StoreError(message: "\(directory): cannot create the data directory: \(error.localizedDescription)", code: SQLITE_CANTOPEN)
    }
    path = (directory as NSString).appendingPathComponent(Self.fileName)
    connection = try SQLiteConnection(path: path)
    try connection.execute(
      """
      PRAGMA journal_mode=WAL;
      PRAGMA synchronous=FULL;
      PRAGMA cache_size=-32768;
      CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS log(
        id INTEGER PRIMARY KEY, device TEXT NOT NULL, kind INTEGER NOT NULL, time REAL NOT NULL,
        lat REAL, lon REAL, accuracy REAL, speed REAL, course REAL, cell TEXT, verdict TEXT);
      DROP INDEX IF EXISTS log_fix;
      CREATE INDEX IF NOT EXISTS log_time ON log(time, device) WHERE kind = 0;
      CREATE TABLE IF NOT EXISTS newest(device TEXT PRIMARY KEY, time REAL NOT NULL);
      CREATE TABLE IF NOT EXISTS events(seq INTEGER PRIMARY KEY, device TEXT NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS fences(row INTEGER PRIMARY KEY, region TEXT NOT NULL, body BLOB);
      CREATE TABLE IF NOT EXISTS visits(device TEXT PRIMARY KEY, open TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS devices(
        device TEXT PRIMARY KEY, snapshot BLOB, through INTEGER NOT NULL, ended REAL);
      CREATE TABLE IF NOT EXISTS pushes(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, time REAL NOT NULL, token TEXT, request TEXT, body BLOB);
      """)
    try Self.migrateFixIndex(connection)
    findVerdict = try connection.prepare("SELECT verdict FROM log WHERE time = ? AND kind = 0 AND device = ? AND lat = ? AND lon = ?")
    insertLog = try connection.prepare(
      "INSERT INTO log(device, kind, time, lat, lon, accuracy, speed, course, cell, verdict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    insertEvent = try connection.prepare("INSERT INTO events(device, body) VALUES (?, ?)")
    insertPush = try connection.prepare("INSERT INTO pushes(kind, time, token, request, body) VALUES (?, ?, ?, ?, ?)")
    readPosition = try connection.prepare("SELECT value FROM meta WHERE key = ?")
    writePosition = try connection.prepare(
      "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
    upsertNewest = try connection.prepare(
      "INSERT INTO newest(device, time) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET time = excluded.time")
    upsertDevice = try connection.prepare(
      "INSERT INTO devices(device, snapshot, through, ended) VALUES (?, ?, ?, ?) "
        + "ON CONFLICT(device) DO UPDATE SET snapshot = excluded.snapshot, through = excluded.through, ended = excluded.ended")
  }

  /// A store made when fixes were indexed by device, time and place: each device's newest fix
  /// time is read off that index into `newest` once, and the index is dropped for the one on time
  /// and device (a batch's fixes land together at the end of that one, where the old one spread a
  /// batch over a page per device).
  private static func migrateFixIndex(_ connection: SQLiteConnection) throws(StoreError) {
    let old = try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'log_fix_place'")
    guard try old.step() else { return }
    old.reset()
    try connection.execute(
      """
      BEGIN IMMEDIATE;
      INSERT OR REPLACE INTO newest(device, time) SELECT device, MAX(time) FROM log WHERE kind = 0 GROUP BY device;
      DROP INDEX log_fix_place;
      COMMIT;
      """)
  }

  // MARK: - Settings

  /// The settings stored with the state, or stores `settings` in an empty store.
  /// - Throws: ``StoreError`` naming the first setting that differs.
  func adopt(_ settings: [String: String]) throws(StoreError) {
    let read = try connection.prepare("SELECT key, value FROM meta")
    var stored: [String: String] = [:]
    while try read.step() { stored[read.text(0)] = read.text(1) }
    read.reset()
    if stored.isEmpty {
      let write = try connection.prepare("INSERT INTO meta(key, value) VALUES (?, ?)")
      try transaction { () throws(StoreError) in
        for (key, value) in (settings.merging(["schema": Self.schemaVersion]) { a, _ in a }).sorted(by: { $0.key < $1.key }) {
          try write.bind(.text(key), .text(value))
          try write.run()
        }
      }
      return
    }
    if let schema = stored["schema"], schema != Self.schemaVersion {
      throw StoreError(message: "\(path) has schema \(schema); this geowake reads schema \(Self.schemaVersion)", code: SQLITE_MISMATCH)
    }
    // Every key either side names (a rule tuned then and not now differs too), but the schema
    // and the checkpoint's row.
    let keys = Set(settings.keys).union(stored.keys).subtracting(["schema", Self.pushSetupKey] + Position.allCases.map(\.rawValue))
    for key in keys.sorted() where stored[key] != settings[key] {
      throw StoreError(
        message: "\(path) holds state made with another --\(key) (\(stored[key] ?? "none") there, \(settings[key] ?? "none") now): "
          + "start with the same --\(key), or with another --data directory",
        code: SQLITE_MISMATCH)
    }
  }

  /// Where the engine has got to, kept in `meta` beside the settings (which a start compares;
  /// these it does not).
  enum Position: String, CaseIterable {
    /// The log row through which every device's state is checkpointed: a restart replays the
    /// rows after it.
    case checkpointed
    /// The last event published to NATS JetStream (`geowake serve --nats`).
    case natsPublished = "nats-published"
    /// The stream sequence of the last fix message from NATS used.
    case natsFixesUsed = "nats-fixes-used"
  }

  /// The position (0 before any).
  func position(_ position: Position) throws(StoreError) -> Int64 {
    try readPosition.bind(.text(position.rawValue))
    defer { readPosition.reset() }
    return try readPosition.step() ? Int64(readPosition.text(0)) ?? 0 : 0
  }

  func setPosition(_ position: Position, _ value: Int64) throws(StoreError) {
    try writePosition.bind(.text(position.rawValue), .text(String(value)))
    try writePosition.run()
  }

  // MARK: - Transactions

  func begin() throws(StoreError) { try connection.execute("BEGIN IMMEDIATE") }
  func commit() throws(StoreError) { try connection.execute("COMMIT") }
  func rollback() { try? connection.execute("ROLLBACK") }

  func transaction(_ body: () throws(StoreError) -> Void) throws(StoreError) {
    try begin()
    do { try body() } catch {
      rollback()
      throw error
    }
    try commit()
  }

  // MARK: - The log

  /// The verdict the fix was answered with, if it was used before (the same device, time and
  /// place), found by the index on time and device.
  func verdict(of fix: FixInput) throws(StoreError) -> String? {
    try findVerdict.bind(.real(fix.time), .text(fix.device), .real(fix.latitude), .real(fix.longitude))
    defer { findVerdict.reset() }
    return try findVerdict.step() ? findVerdict.text(0) : nil
  }

  /// Each device's newest fix time as of the last checkpoint (the log's rows since tell the rest).
  func newestFixTimes() throws(StoreError) -> [String: Double] {
    let read = try connection.prepare("SELECT device, time FROM newest")
    var all: [String: Double] = [:]
    while try read.step() { all[read.text(0)] = read.real(1) }
    return all
  }

  /// Saves a device's newest fix time, with its checkpoint.
  func saveNewest(device: String, time: Double) throws(StoreError) {
    try upsertNewest.bind(.text(device), .real(time))
    try upsertNewest.run()
  }

  /// Appends a fix used, with its verdict; returns its row.
  func appendFix(_ fix: FixInput, verdict: String) throws(StoreError) -> Int64 {
    try insertLog.bind(
      .text(fix.device), .integer(0), .real(fix.time), .real(fix.latitude), .real(fix.longitude),
      fix.accuracy.map(SQLiteValue.real), fix.speed.map(SQLiteValue.real), fix.course.map(SQLiteValue.real),
      fix.cell.map(SQLiteValue.text), .text(verdict))
    try insertLog.run()
    return connection.lastInsertedRow
  }

  /// Appends the end of `device`'s track at `time` (its last fix's); returns its row.
  func appendEnd(device: String, time: Double) throws(StoreError) -> Int64 {
    try insertLog.bind(.text(device), .integer(1), .real(time), nil, nil, nil, nil, nil, nil, nil)
    try insertLog.run()
    return connection.lastInsertedRow
  }

  /// Appends a change to the fence set: `body` is the region's Feature, nil for a removal.
  /// Returns its log row.
  func appendFenceChange(region: String, body: [UInt8]?) throws(StoreError) -> Int64 {
    try insertLog.bind(.text(region), .integer(2), .real(0), nil, nil, nil, nil, nil, nil, nil)
    try insertLog.run()
    let row = connection.lastInsertedRow
    let write = try connection.prepare("INSERT INTO fences(row, region, body) VALUES (?, ?, ?)")
    try write.bind(.integer(row), .text(region), body.map(SQLiteValue.blob))
    try write.run()
    return row
  }

  /// A change to the fence set, at its log row.
  struct FenceChange {
    var row: Int64
    var region: String
    /// The Feature put; nil: removed.
    var body: [UInt8]?
  }

  /// Every change to the fence set, in order.
  func fenceChanges() throws(StoreError) -> [FenceChange] {
    let read = try connection.prepare("SELECT row, region, body FROM fences ORDER BY row")
    var all: [FenceChange] = []
    while try read.step() { all.append(FenceChange(row: read.integer(0), region: read.text(1), body: read.isNull(2) ? nil : read.blob(2))) }
    return all
  }

  /// Appends an event's JSON line; returns its sequence number.
  func appendEvent(device: String, body: String) throws(StoreError) -> Int64 {
    try insertEvent.bind(.text(device), .text(body))
    try insertEvent.run()
    return connection.lastInsertedRow
  }

  /// The last event's sequence number (0 before any).
  func lastSequence() throws(StoreError) -> Int64 {
    let read = try connection.prepare("SELECT COALESCE(MAX(seq), 0) FROM events")
    _ = try read.step()
    return read.integer(0)
  }

  // MARK: - Checkpoints

  /// A device's checkpoint: its timeline's snapshot through log row `through`, or its end.
  struct Checkpoint {
    var device: String
    var snapshot: [UInt8]?
    var through: Int64
    var ended: Double?
  }

  func save(_ checkpoint: Checkpoint) throws(StoreError) {
    try upsertDevice.bind(
      .text(checkpoint.device), checkpoint.snapshot.map(SQLiteValue.blob), .integer(checkpoint.through),
      checkpoint.ended.map(SQLiteValue.real))
    try upsertDevice.run()
  }

  /// Saves a device's open visits (JSON), or drops them (nil).
  func saveVisits(device: String, _ json: String?) throws(StoreError) {
    if let json {
      let write = try connection.prepare(
        "INSERT INTO visits(device, open) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET open = excluded.open")
      try write.bind(.text(device), .text(json))
      try write.run()
    } else {
      let delete = try connection.prepare("DELETE FROM visits WHERE device = ?")
      try delete.bind(.text(device))
      try delete.run()
    }
  }

  /// Every device's saved visits (JSON).
  func visitBooks() throws(StoreError) -> [String: String] {
    let read = try connection.prepare("SELECT device, open FROM visits")
    var all: [String: String] = [:]
    while try read.step() { all[read.text(0)] = read.text(1) }
    return all
  }

  func checkpoints() throws(StoreError) -> [Checkpoint] {
    let read = try connection.prepare("SELECT device, snapshot, through, ended FROM devices ORDER BY device")
    var all: [Checkpoint] = []
    while try read.step() {
      all.append(Checkpoint(device: read.text(0), snapshot: read.isNull(1) ? nil : read.blob(1), through: read.integer(2), ended: read.optionalReal(3)))
    }
    return all
  }

  /// A row of the log, for replay.
  struct LogRow {
    var id: Int64
    var kind: Int64
    var fix: FixInput
  }

  /// Calls `body` with every log row after `after`, in arrival order.
  func replay(after: Int64, _ body: (LogRow) throws -> Void) throws {
    let read = try connection.prepare(
      "SELECT id, device, kind, time, lat, lon, accuracy, speed, course, cell FROM log WHERE id > ? ORDER BY id")
    try read.bind(.integer(after))
    while try read.step() {
      let fix = FixInput(
        device: read.text(1), time: read.real(3), latitude: read.optionalReal(4) ?? 0, longitude: read.optionalReal(5) ?? 0,
        accuracy: read.optionalReal(6), speed: read.optionalReal(7), course: read.optionalReal(8), cell: read.optionalText(9))
      try body(LogRow(id: read.integer(0), kind: read.integer(2), fix: fix))
    }
  }
}
#endif
