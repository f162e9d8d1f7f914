import ArgumentParser
import Foundation
import Geofencing
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

extension CrossingDetectorError {
  /// The error with its times as ISO 8601 UTC text rather than seconds since 1970: to the
  /// microsecond when the two would otherwise read the same.
  var message: String {
    switch reason {
    case .timeNotFinite:
      return description
    case .outOfOrder(let previousTime):
      var this = TimestampText.iso8601Compact(time)
      var before = TimestampText.iso8601Compact(previousTime)
      if this == before {
        this = TimestampText.iso8601(time, fractionDigits: 6)
        before = TimestampText.iso8601(previousTime, fractionDigits: 6)
      }
      return
        "fix \(fixIndex) at \(this) is earlier than fix \(fixIndex - 1) at \(before): fixes must arrive in time order"
    }
  }
}
