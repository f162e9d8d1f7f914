public import Geodesy

/// Turns serving-cell handoffs into significant-location-change events, by a
/// ``SignificantChangeProfile``.
///
/// The first fix gives the start event (the most recent location, delivered at once). After
/// that, each handoff is a candidate: it is delivered if the device is at least the minimum
/// distance from the last delivered location and the minimum interval has passed since it;
/// otherwise it is kept as suppressed, with the reason. Delivered locations are the device's
/// position with cell-level accuracy (the serving cell's range, clamped to the profile's
/// interval). With ``SignificantChangeProfile/periodicWakeInterval``, a fix that comes that long
/// after the last delivery is delivered too, whether or not the device moved.
///
/// Feed it every fix with the handoffs the ``ServingCellTracker`` found for it.
public struct SignificantChangeMonitor {
  public let profile: SignificantChangeProfile
  /// The last delivered event, if any.
  public internal(set) var lastDelivered: SignificantChangeEvent?
  public internal(set) var deliveredCount = 0
  public internal(set) var suppressedCount = 0

  public init(profile: SignificantChangeProfile = .ios) {
    self.profile = profile
  }

  /// Processes one fix and the serving-cell changes it caused (in time order), appending events.
  /// - Parameter servingRange: the serving cell's range after the fix, for the delivered accuracy.
  public mutating func process(
    _ fix: LocationFix, changes: [ServingCellChange], servingRange: Double?, into events: inout [SignificantChangeEvent]
  ) {
    let accuracy = min(profile.deliveredAccuracy.upperBound, max(profile.deliveredAccuracy.lowerBound, servingRange ?? profile.deliveredAccuracy.upperBound))
    let location = LocationFix(time: fix.time, coordinate: fix.coordinate, horizontalAccuracy: accuracy)
    guard lastDelivered != nil else {
      deliver(SignificantChangeEvent(
        kind: .significantChange, trigger: .start, time: fix.time, location: location, handoff: nil, distanceFromLast: 0,
        reason: "monitoring started: the most recent location is delivered at once"), into: &events)
      return
    }
    for change in changes where change.isHandoff {
      guard let last = lastDelivered else { break }
      let moved = Geodesic.wgs84.distance(from: last.location.coordinate, to: change.coordinate)
      let elapsed = change.time - last.time
      let handoff = "handoff \(change.from.map { "\($0)" } ?? "-") → \(change.to.map { "\($0)" } ?? "-")"
      var event = SignificantChangeEvent(
        kind: .significantChange, trigger: .handoff, time: change.time,
        location: LocationFix(time: change.time, coordinate: change.coordinate, horizontalAccuracy: accuracy),
        handoff: change, distanceFromLast: moved, reason: "")
      if moved < profile.minimumDistance {
        event.kind = .significantChangeSuppressed
        event.reason = "\(handoff), but only \(Int(moved.rounded())) m from the last delivered location (the \(profile.name) profile needs \(Int(profile.minimumDistance)) m)"
        suppressedCount += 1
        events.append(event)
      } else if elapsed < profile.minimumInterval {
        event.kind = .significantChangeSuppressed
        event.reason = "\(handoff), \(Int(moved.rounded())) m away, but only \(Int(elapsed.rounded())) s after the last delivery (the \(profile.name) profile needs \(Int(profile.minimumInterval)) s)"
        suppressedCount += 1
        events.append(event)
      } else {
        event.reason = "\(handoff), \(Int(moved.rounded())) m from the last delivered location, \(Int(elapsed.rounded())) s after it"
        deliver(event, into: &events)
      }
    }
    if let interval = profile.periodicWakeInterval, let previous = lastDelivered, fix.time - previous.time >= interval,
      previous.time < fix.time
    {
      let moved = Geodesic.wgs84.distance(from: previous.location.coordinate, to: fix.coordinate)
      deliver(SignificantChangeEvent(
        kind: .significantChange, trigger: .periodic, time: fix.time, location: location, handoff: nil, distanceFromLast: moved,
        reason: "periodic wake: \(Int((fix.time - previous.time).rounded())) s without a delivery (the \(profile.name) profile wakes every \(Int(interval)) s)"),
        into: &events)
    }
  }

  private mutating func deliver(_ event: SignificantChangeEvent, into events: inout [SignificantChangeEvent]) {
    lastDelivered = event
    deliveredCount += 1
    events.append(event)
  }
}
