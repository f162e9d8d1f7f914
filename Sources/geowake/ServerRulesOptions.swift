import ArgumentParser
import GeoWake
import Geofencing

/// `--dwell`, `--confirm-distance`, `--confirm-time`: the rules a server team tunes on
/// `--platform server` (the geometric truth, by default without dwell or hysteresis). A phone's
/// rules are its own, measured or documented, and are not tuned here.
struct ServerRulesOptions: ParsableArguments {
  @Option(name: .customLong("dwell"), help: ArgumentHelp("With --platform server: a dwell event once a device has been inside a region this many seconds (none by default).", valueName: "seconds"))
  var dwell: Double?

  @Option(name: .customLong("confirm-distance"), help: ArgumentHelp("With --platform server: metres a device must be beyond a boundary before its crossing counts, against GPS noise (default 0: the boundary).", valueName: "metres"))
  var confirmDistance: Double?

  @Option(name: .customLong("confirm-time"), help: ArgumentHelp("With --platform server: seconds a device must stay that far beyond before its crossing counts (default 0).", valueName: "seconds"))
  var confirmTime: Double?

  /// Whether any rule is tuned.
  var isEmpty: Bool { dwell == nil && confirmDistance == nil && confirmTime == nil }

  /// Refuses values out of range, and any of them on another platform than `server`.
  func check(platform: Platform.Name) throws {
    for (name, value) in [("--dwell", dwell), ("--confirm-distance", confirmDistance), ("--confirm-time", confirmTime)] {
      guard let value else { continue }
      guard platform == .server else {
        throw ValidationError("\(name): only with --platform server; the \(platform.rawValue) platform's rules are the phone's own")
      }
      guard value.isFinite, value >= 0, value <= 7 * 86_400 else {
        throw ValidationError("\(name) \(value): expected a number from 0 to 604800")
      }
    }
  }

  /// `platform` with the rules tuned.
  func applied(to platform: Platform) -> Platform {
    var tuned = platform
    if let dwell { tuned.regionMonitoring.loiteringDelay = dwell }
    if let confirmDistance { tuned.regionMonitoring.confirmationDistance = confirmDistance }
    if let confirmTime { tuned.regionMonitoring.confirmationTime = confirmTime }
    return tuned
  }

  /// The tuned rules, to be stored with a live engine's state (nothing when none is tuned).
  var settings: [String: String] {
    var out: [String: String] = [:]
    if let dwell { out["dwell"] = String(dwell) }
    if let confirmDistance { out["confirm-distance"] = String(confirmDistance) }
    if let confirmTime { out["confirm-time"] = String(confirmTime) }
    return out
  }
}
