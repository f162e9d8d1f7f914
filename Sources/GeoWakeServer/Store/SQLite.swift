#if Server
import CSQLite

/// A failure of the embedded store: SQLite's message, its result code, and the statement.
public struct StoreError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var code: Int32
  public var statement: String?

  public var description: String {
    "store: " + message + " (SQLite result \(code))" + (statement.map { " in: \($0)" } ?? "")
  }
}

/// One connection to a SQLite database file: the server's embedded store. Not shared between
/// threads: each owner (the ingest actor, the event reader) has its own.
final class SQLiteConnection {
  let handle: OpaquePointer
  let path: String

  /// Opens (or creates) `path`; `readOnly` opens an existing file for reading only.
  init(path: String, readOnly: Bool = false) throws(StoreError) {
    var db: OpaquePointer?
    let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
    let code = sqlite3_open_v2(path, &db, flags, nil)
    guard code == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      if let db { sqlite3_close_v2(db) }
      throw StoreError(message: "\(path): \(message)", code: code)
    }
    handle = db
    self.path = path
    // A reader waits for a checkpoint rather than failing at once.
    sqlite3_busy_timeout(db, 5_000)
  }

  deinit { sqlite3_close_v2(handle) }

  func error(_ code: Int32, _ sql: String?) -> StoreError {
    StoreError(message: String(cString: sqlite3_errmsg(handle)), code: code, statement: sql)
  }

  /// Runs statements that return no rows.
  func execute(_ sql: String) throws(StoreError) {
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw error(code, sql) }
  }

  func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard code == SQLITE_OK, let statement else { throw error(code, sql) }
    return SQLiteStatement(statement, connection: self, sql: sql)
  }

  /// The rowid of the last row inserted on this connection.
  var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }
}

/// A prepared statement, reused: bind, step through its rows, reset.
final class SQLiteStatement {
  let handle: OpaquePointer
  unowned let connection: SQLiteConnection
  let sql: String

  init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
    self.handle = handle
    self.connection = connection
    self.sql = sql
  }

  deinit { sqlite3_finalize(handle) }

  /// The values of the parameters, from 1, in order; `nil` binds NULL.
  func bind(_ values: SQLiteValue?...) throws(StoreError) {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    for (k, value) in values.enumerated() {
      let index = Int32(k + 1)
      let code: Int32
      switch value {
      case nil: code = sqlite3_bind_null(handle, index)
      case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
      case .real(let v): code = sqlite3_bind_double(handle, index, v)
      case .text(let v): code = sqlite3_bind_text(handle, index, v, -1, sqliteTransient)
      case .blob(let bytes):
        code = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
      }
      guard code == SQLITE_OK else { throw connection.error(code, sql) }
    }
  }

  /// Steps once: whether a row is there to read.
  func step() throws(StoreError) -> Bool {
    let code = sqlite3_step(handle)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let failure = connection.error(code, sql)
      sqlite3_reset(handle)
      throw failure
    }
  }

  /// Steps a statement that returns no rows, then resets it.
  func run() throws(StoreError) {
    defer { sqlite3_reset(handle) }
    while try step() {}
  }

  func reset() { sqlite3_reset(handle) }

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
  func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
  func real(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
  func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }
  func text(_ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(handle, column) else { return "" }
    return String(cString: bytes)
  }
  func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
  func blob(_ column: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: base, count: count))
  }
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

/// SQLite copies the bound text or blob before the call returns.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
#endif
