/// A problem in an input file, located compiler-style: `path:line:column: error: message`.
///
/// Lines and columns count from 1; columns count bytes of UTF-8.
public struct TrackIOError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file as the user named it (or `<stdin>`).
  public let path: String
  /// 1-based line, or 0 when the problem is not on a line (an unreadable file).
  public let line: Int
  /// 1-based byte column, or 0.
  public let column: Int
  /// What was wrong and what was expected.
  public let message: String

  public init(path: String, line: Int, column: Int, message: String) {
    self.path = path
    self.line = line
    self.column = column
    self.message = message
  }

  public var description: String {
    line > 0 ? "\(path):\(line):\(column): error: \(message)" : "\(path): error: \(message)"
  }

  /// The same, as a warning (a problem recovered from): `path:line:column: warning: message`.
  public var warningDescription: String {
    line > 0 ? "\(path):\(line):\(column): warning: \(message)" : "\(path): warning: \(message)"
  }
}
