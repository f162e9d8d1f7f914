import ArgumentParser
import Foundation
import TrackIO

/// Writes diagnostics to standard error.
enum Diagnostics {
  static func error(_ message: String) {
    FileHandle.standardError.write(Data(("geowake: " + message + "\n").utf8))
  }

  /// Reports a problem recovered from (lenient reading).
  static func warning(_ problem: TrackIOError) {
    FileHandle.standardError.write(Data((problem.warningDescription + "\n").utf8))
  }

  /// Reports a TrackIO error and returns the matching exit code.
  static func fail(_ error: TrackIOError) -> ExitCode {
    FileHandle.standardError.write(Data((error.description + "\n").utf8))
    if error.line > 0 || error.message.hasPrefix("the gzip-compressed data") { return SysExit.dataError }
    if error.message.contains("refusing to overwrite") || error.message.contains("cannot be created") {
      return SysExit.cannotCreate
    }
    if error.message.hasPrefix("write failed") || error.message.hasPrefix("read failed") { return SysExit.ioError }
    return SysExit.noInput
  }
}
