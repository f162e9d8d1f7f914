#if Server
import Foundation

/// The time the APNs endpoint gives each request and its devices run to: real time, or a
/// simulated clock that only `POST /v1/clock` moves (forward), so a test can send five pushes
/// "in two minutes" and ask what woke the app without waiting.
public final class ServerClock: @unchecked Sendable {
  public enum Mode: Sendable, Equatable {
    case real
    /// Starting at this time (seconds since the Unix epoch).
    case simulated(Double)
  }

  public let mode: Mode
  private let lock = NSLock()
  private var simulated: Double

  public init(_ mode: Mode) {
    self.mode = mode
    if case .simulated(let start) = mode { simulated = start } else { simulated = 0 }
  }

  /// Seconds since the Unix epoch, to the millisecond under real time.
  public var now: Double {
    switch mode {
    case .real: return (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000
    case .simulated: return lock.withLock { simulated }
    }
  }

  public var isSimulated: Bool { mode != .real }

  /// Moves the simulated clock to `time`; why not, when it cannot.
  func set(_ time: Double) -> String? {
    guard isSimulated else { return "the clock is real time (start geowake serve with --clock TIME to simulate it)" }
    guard time.isFinite else { return "the time is not finite" }
    return lock.withLock {
      guard time >= simulated else {
        return "\(TimeText.iso(time)) is before the clock's \(TimeText.iso(simulated)): the clock only goes forward"
      }
      simulated = time
      return nil
    }
  }
}

enum TimeText {
  static func iso(_ t: Double) -> String { Date(timeIntervalSince1970: t).formatted(.iso8601) }
}
#endif
