import Foundation

/// Writes diagnostics to standard error.
enum Diagnostics {
  static func error(_ message: String) {
    FileHandle.standardError.write(Data(("geowake: " + message + "\n").utf8))
  }
}
