public import Geodesy
public import Geofencing

/// Replays a ``MeasuredDeparture`` through a ``RegionMonitor``: what a phone following a profile
/// would have reported.
///
/// The fixes the monitor sees:
/// - the ground-truth fixes from the start of the observation window (or the fence's creation,
///   if later) to its end;
/// - when the ground truth begins after that start, the user stands at the fence's centre
///   (accuracy ``standingAccuracy``) once a second from ``standingTime`` before the departure
///   (or the start of the window, if later) up to the departure, then moves in a straight line at constant speed
///   to the first ground-truth fix, again once a second. (Reference trajectories cover only
///   the moving part of a trip.)
///
/// The predicted exit is the first exit from the fence delivered inside the observation window.
public struct DepartureReplay: Sendable {
  /// Seconds before the departure the observation window opens.
  public var windowBefore: Double
  /// Seconds after the departure it closes.
  public var windowAfter: Double
  /// Seconds the user stands at the centre before the departure when the ground truth begins
  /// later.
  public var standingTime: Double
  /// The accuracy of the fixes made up for the wait and the walk to the first ground-truth fix.
  public var standingAccuracy: Double

  public init(windowBefore: Double = 600, windowAfter: Double = 1_800, standingTime: Double = 60, standingAccuracy: Double = 10) {
    self.windowBefore = windowBefore
    self.windowAfter = windowAfter
    self.standingTime = standingTime
    self.standingAccuracy = standingAccuracy
  }

  /// The fixes the monitor sees for `departure` (see the type's description).
  public func fixes(_ departure: MeasuredDeparture) -> [LocationFix] {
    let open = max(departure.departureTime - windowBefore, departure.fenceCreatedTime ?? -.infinity)
    let close = departure.departureTime + windowAfter
    let truth = departure.track.filter { $0.time >= open && $0.time <= close }
    guard let first = truth.first else { return [] }
    if first.time <= departure.departureTime { return truth }
    var fixes: [LocationFix] = []
    let centre = departure.fence.center
    var t = max(open, departure.departureTime - standingTime).rounded(.up)
    while t <= departure.departureTime {
      fixes.append(LocationFix(time: t, coordinate: centre, horizontalAccuracy: standingAccuracy))
      t += 1
    }
    // The walk to the first fix: along the geodesic, at constant speed.
    let line = Geodesic.wgs84.inverse(from: centre, to: first.coordinate)
    let duration = first.time - departure.departureTime
    while t < first.time {
      let along = line.distance * (t - departure.departureTime) / duration
      let position = Geodesic.wgs84.direct(from: centre, azimuth: line.initialAzimuth, distance: along)?.destination ?? centre
      fixes.append(LocationFix(time: t, coordinate: position, horizontalAccuracy: standingAccuracy))
      t += 1
    }
    return fixes + truth
  }

  /// The delay from the departure to the first exit the monitor delivers in the observation
  /// window, with `profile` and `seed`; `nil`: none.
  public func predictedExitDelay(
    _ departure: MeasuredDeparture, profile: RegionMonitoringProfile, seed: UInt64
  ) throws(RegionMonitoringProfile.InvalidValue) -> Double? {
    var monitor = try RegionMonitor(regions: [.circle(departure.fence)], profile: profile, seed: seed)
    var events: [RegionEvent] = []
    let open = departure.departureTime - windowBefore
    let close = departure.departureTime + windowAfter
    for fix in fixes(departure) {
      monitor.process(fix, into: &events)
      if let exit = firstExit(events, open, close) { return exit - departure.departureTime }
    }
    monitor.finish(into: &events)
    return firstExit(events, open, close).map { $0 - departure.departureTime }
  }

  private func firstExit(_ events: [RegionEvent], _ open: Double, _ close: Double) -> Double? {
    events.lazy.compactMap { $0.kind == .exit ? $0.deliveredAt : nil }.first { $0 >= open && $0 <= close }
  }
}
