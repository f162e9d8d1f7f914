/// What a device's power management knows of it (``AndroidPowerRules``): when the user last used
/// the app, whether its screen is on, when the device last moved. Without rules (iOS) it never
/// dozes and its app is always active.
struct PowerState: Sendable, Codable, Hashable {
  var rules: AndroidPowerRules?
  /// When the device's life began, and when the user last left the app (a session's end).
  var start: Double
  var lastUse: Double?
  /// A session on screen lasts until then.
  var screenOnUntil: Double?
  var lastMotion: Double?

  init(rules: AndroidPowerRules?, start: Double, lastUse: Double?) {
    self.rules = rules
    self.start = start
    self.lastUse = lastUse
  }

  /// The user opens the app at `time` for `duration` seconds.
  mutating func session(at time: Double, duration: Double) {
    let end = time + max(0, duration)
    screenOnUntil = max(screenOnUntil ?? end, end)
    lastUse = max(lastUse ?? end, end)
  }

  mutating func motion(at time: Double) { lastMotion = max(lastMotion ?? time, time) }

  func screenOn(at time: Double) -> Bool { screenOnUntil.map { time < $0 } ?? false }

  /// Since when the device has been quiet at `time`: screen off and still (the later of the last
  /// session's end, the last motion, and the start).
  func quietSince(_ time: Double) -> Double { max(start, lastUse ?? start, lastMotion ?? start) }

  /// Whether the device is in a Doze idle period at `time`, and when its next maintenance window
  /// opens.
  func doze(at time: Double) -> (idle: Bool, windowAt: Double?) {
    guard let rules, !screenOn(at: time) else { return (false, nil) }
    return rules.doze(at: time, quietSince: quietSince(time))
  }

  /// The app's standby bucket at `time` (active while on screen, and on a platform without buckets).
  func bucket(at time: Double) -> StandbyBucket {
    guard let rules, !screenOn(at: time) else { return .active }
    return rules.bucket(idleFor: time - (lastUse ?? start))
  }
}
