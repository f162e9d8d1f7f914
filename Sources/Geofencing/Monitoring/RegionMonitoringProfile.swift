import RealModule
@_exported public import SeededRandom

/// The region-monitoring rules of a platform: every number the ``RegionMonitor`` uses, named.
///
/// Sources are in `docs/platform-rules.md`: LMPG = Apple *Location and Maps Programming Guide*,
/// Region Monitoring chapter; AGG = Google's geofencing guide; MobilityNet = measured departures. Where a platform publishes no number, the field's comment says so and the
/// value is GeoWake's documented assumption.
///
/// The full `PlatformProfile` of the background runtime embeds one of these; it lives here so that
/// ``RegionMonitor`` needs nothing above the geometry layer.
public struct RegionMonitoringProfile: Hashable, Sendable {
  /// Short name, used in explanations ("ios", "server").
  public var name: String
  /// Regions one app may monitor; those registered past it get a
  /// ``RegionEvent/Kind-swift.enum/monitoringFailed`` event and are not monitored. `nil`: no cap.
  public var maximumRegions: Int?
  /// Metres the device must be beyond the boundary (inside for an entry, outside for an exit)
  /// before a crossing is confirmed. 0: the boundary itself.
  public var confirmationDistance: Double
  /// Caps the depth an entry needs at this fraction of the radius, so that a region smaller than
  /// the confirmation distance can still be entered (iOS does report entries into 100 m regions).
  public var maximumEntryDepthFraction: Double
  /// Seconds the device must stay beyond the confirmation distance, measured from the first fix
  /// there to a later fix still there. 0: confirmed by the first fix beyond it.
  public var confirmationTime: Double
  /// Whether a fix's horizontal accuracy adds to the confirmation distance (a fix counts as
  /// beyond the boundary only when its whole accuracy circle is).
  public var requiresDepthBeyondAccuracy: Bool
  /// Fixes whose horizontal accuracy is worse than this many metres are rejected. `nil`: none is.
  public var maximumHorizontalAccuracy: Double?
  /// Seconds from confirmation to delivery to the app. Each event draws its latency from this
  /// distribution with the monitor's seed, deterministically.
  public var deliveryLatency: Distribution
  /// Seconds without a fix after which every region's state is `unknown`; the next fix sets it
  /// again with a `state` event where it changed, never an enter or exit.
  public var gapLimit: Double
  /// Seconds a fix may arrive out of time order and still be put in its place (see
  /// ``FixReorderBuffer``); events wait that long for late fixes. Later ones are rejected.
  public var reorderWindow: Double
  /// Whether a region passed through between two fixes, neither of them inside, is reported.
  /// When not, the event is kept with no delivery time and an explanation.
  public var reportsPassThroughs: Bool
  /// Whether `state` events (initial state, state regained after a gap) are delivered to the app.
  /// When not, they are kept with no delivery time (the app could ask with `requestState`).
  public var deliversStateEvents: Bool
  /// When set, a circle crossing is confirmed by how much of the fix's accuracy disc lies inside
  /// the region (Android's rule) instead of by ``confirmationDistance``; see ``AccuracyOverlap``.
  public var accuracyOverlap: AccuracyOverlap?
  /// Seconds the device must stay inside after an entry (or after a `state` inside) before a
  /// ``RegionEvent/Kind-swift.enum/dwell`` event. `nil`: no dwell events.
  public var loiteringDelay: Double?
  /// When set, events confirmed while the device is stationary draw their latency from this
  /// distribution instead of ``deliveryLatency`` (Android batches locations when the device does
  /// not move).
  public var stationaryDeliveryLatency: Distribution?
  /// When set, each crossing draws the metres the device must be beyond the boundary from this
  /// distribution (with the monitor's seed, the region and the crossing time) instead of using
  /// ``confirmationDistance``: a real phone does not fire at one fixed depth. Accuracy is added
  /// as ``requiresDepthBeyondAccuracy`` says, and an entry's depth is capped as always. Ignored
  /// where ``accuracyOverlap`` decides a circle crossing.
  public var triggerDepth: Distribution?
  /// Metres per second under which the device counts as stationary: its displacement from the
  /// previous fix to the confirming fix, divided by the time between them.
  public var stationarySpeed: Double

  public init(
    name: String, maximumRegions: Int?, confirmationDistance: Double, maximumEntryDepthFraction: Double,
    confirmationTime: Double, requiresDepthBeyondAccuracy: Bool, maximumHorizontalAccuracy: Double?,
    deliveryLatency: Distribution, gapLimit: Double, reorderWindow: Double, reportsPassThroughs: Bool,
    deliversStateEvents: Bool, accuracyOverlap: AccuracyOverlap? = nil, loiteringDelay: Double? = nil,
    stationaryDeliveryLatency: Distribution? = nil, stationarySpeed: Double = 0.5, triggerDepth: Distribution? = nil
  ) {
    self.triggerDepth = triggerDepth
    self.accuracyOverlap = accuracyOverlap
    self.loiteringDelay = loiteringDelay
    self.stationaryDeliveryLatency = stationaryDeliveryLatency
    self.stationarySpeed = stationarySpeed
    self.name = name
    self.maximumRegions = maximumRegions
    self.confirmationDistance = confirmationDistance
    self.maximumEntryDepthFraction = maximumEntryDepthFraction
    self.confirmationTime = confirmationTime
    self.requiresDepthBeyondAccuracy = requiresDepthBeyondAccuracy
    self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
    self.deliveryLatency = deliveryLatency
    self.gapLimit = gapLimit
    self.reorderWindow = reorderWindow
    self.reportsPassThroughs = reportsPassThroughs
    self.deliversStateEvents = deliversStateEvents
  }

  /// iOS as Apple documents it (`CLLocationManager` region monitoring): `ios-documented`.
  ///
  /// - `maximumRegions` 20: LMPG ("limited to 20 regions per app"); past it the app gets
  ///   `monitoringDidFailFor` (`regionMonitoringFailure`).
  /// - `confirmationDistance` 200 m and `confirmationTime` 20 s: LMPG says the device must "move
  ///   away from the boundary by a minimum distance and remain at that minimum distance for at
  ///   least 20 seconds"; the distance is unpublished and hardware dependent, 200 m is the figure
  ///   LMPG gives for testing. Assumption.
  /// - `maximumEntryDepthFraction` 0.5: unpublished. Assumption.
  /// - `requiresDepthBeyondAccuracy`: assumption consistent with LMPG's "threshold distances are
  ///   determined by the hardware and the location technologies currently available".
  /// - `maximumHorizontalAccuracy` 1,000 m: unpublished; Wi-Fi and cell fixes are 65–1,000 m, a
  ///   worse fix is treated as no fix. Assumption.
  /// - `deliveryLatency` 180…300 s: Apple's `startMonitoring(for:)` documentation, "3 to 5
  ///   minutes on average".
  /// - `gapLimit` 600 s: unpublished. Assumption (the `server` value).
  /// - `reorderWindow` 0 s: the OS consumes its own fixes in order; a fix out of order is rejected.
  /// - Pass-throughs are not reported (the OS only sees where the device is); initial state is
  ///   not an event (`requestState` answers it).
  public static let iosDocumented = RegionMonitoringProfile(
    name: "ios-documented", maximumRegions: 20, confirmationDistance: 200, maximumEntryDepthFraction: 0.5,
    confirmationTime: 20, requiresDepthBeyondAccuracy: true, maximumHorizontalAccuracy: 1_000,
    deliveryLatency: .uniform(180...300), gapLimit: 600, reorderWindow: 0, reportsPassThroughs: false, deliversStateEvents: false)

  /// The plain geometric truth: no cap, no confirmation distance or time, no latency, no
  /// accuracy gating, a gap limit of 10 minutes. Its enter, exit and pass-through events are
  /// exactly the boundary crossings of ``CrossingDetector`` (outside gaps). Fixes from devices
  /// reach a server over networks that reorder them: up to 30 s late they are put back in place
  /// (assumption: a few retransmission timeouts), later ones are rejected.
  public static let server = RegionMonitoringProfile(
    name: "server", maximumRegions: nil, confirmationDistance: 0, maximumEntryDepthFraction: 1,
    confirmationTime: 0, requiresDepthBeyondAccuracy: false, maximumHorizontalAccuracy: nil,
    deliveryLatency: .fixed(0), gapLimit: 600, reorderWindow: 30, reportsPassThroughs: true, deliversStateEvents: true)

  /// Android as Google documents it (Google Play services geofencing, `GeofencingClient`):
  /// `android-documented`.
  ///
  /// - `maximumRegions` 100: AGG ("up to 100 active geofences per app"; past it
  ///   `GEOFENCE_TOO_MANY_GEOFENCES`).
  /// - Confirmation by ``AccuracyOverlap/android``: enter when ≥ 85 % of the fix's accuracy disc
  ///   is inside (75 % for a small fence), exit when ≤ 15 % is (25 %); in between the state is
  ///   low confidence and nothing is alerted. AGG's description; the exact rule is unpublished.
  /// - `confirmationTime` 0: AGG's notification responsiveness defaults to 0 (best effort).
  /// - `deliveryLatency` 0…120 s, and 120…360 s when stationary (under 0.5 m/s): AGG, "usually
  ///   less than 2 minutes … up to 6 minutes when the device has been stationary".
  /// - `loiteringDelay` 300 s: AGG's example for `GEOFENCE_TRANSITION_DWELL` ("a loitering delay
  ///   of five minutes"); it has no default. Assumption.
  /// - Initial state is delivered (`INITIAL_TRIGGER_ENTER`), as a `state` event.
  /// - No accuracy gating (the overlap rule weighs accuracy), no pass-throughs (the platform only
  ///   sees fixes), gap limit 600 s and no reorder window as on `ios`. Assumptions.
  public static let androidDocumented = RegionMonitoringProfile(
    name: "android-documented", maximumRegions: 100, confirmationDistance: 0, maximumEntryDepthFraction: 1,
    confirmationTime: 0, requiresDepthBeyondAccuracy: false, maximumHorizontalAccuracy: nil,
    deliveryLatency: .uniform(0...120), gapLimit: 600, reorderWindow: 0, reportsPassThroughs: false,
    deliversStateEvents: true, accuracyOverlap: .android, loiteringDelay: 300,
    stationaryDeliveryLatency: .uniform(120...360), stationarySpeed: 0.5)

  /// iOS as measured on phones: ``iosDocumented`` with the trigger depth and the delivery
  /// latency calibrated to geofence departures measured on iPhones (`docs/platform-rules.md`,
  /// `docs/fidelity.md`).
  ///
  /// - `triggerDepth` uniform 0…100 m beyond the boundary (plus the fix's accuracy, as
  ///   documented): the measured exits come about as long after the ground truth reached 50 m
  ///   beyond a 100 m fence for walks, bicycles and cars alike (median 61–72 s), and not at 0 or
  ///   100 m; Apple's 200 m testing figure is far beyond what the phones needed. Measured
  ///   (MobilityNet).
  /// - `confirmationTime` 20 s: as documented; the measurements cannot tell it apart from the
  ///   latency.
  /// - `deliveryLatency` log-normal, median 35 s, σ 1.2, at most 900 s: from confirmation to the
  ///   app; with the trigger depth and the confirmation time it reproduces the measured delays
  ///   from the departure (median 222 s, p90 412 s) and their long tail (39 of 92 exits were
  ///   logged just after a silent-push wake of the app). Measured (MobilityNet).
  /// - Everything else as ``iosDocumented``.
  public static let ios: RegionMonitoringProfile = {
    var profile = iosDocumented
    profile.name = "ios"
    profile.triggerDepth = .uniform(0...100)
    profile.deliveryLatency = .logNormal(median: 35, sigma: 1.2, maximum: 900)
    return profile
  }()

  /// Android as measured on phones: ``androidDocumented`` with the delivery latency calibrated to
  /// geofence departures measured on Nexus 6 phones (`docs/platform-rules.md`,
  /// `docs/fidelity.md`).
  ///
  /// - `deliveryLatency` log-normal, median 25 s, σ 0.6, at most 600 s, when moving: the measured
  ///   exits come a median 28 s after the ground truth left a 100 m fence, for walks, bicycles
  ///   and cars alike (31–42 s), with the accuracy-overlap rule deciding the crossing. Measured
  ///   (MobilityNet).
  /// - `stationaryDeliveryLatency` 120…360 s: Google's "up to 6 minutes when stationary", which
  ///   the departures (all moving) cannot measure. Vendor documentation.
  /// - Everything else as ``androidDocumented``.
  public static let android: RegionMonitoringProfile = {
    var profile = androidDocumented
    profile.name = "android"
    profile.deliveryLatency = .logNormal(median: 25, sigma: 0.6, maximum: 600)
    return profile
  }()

  /// The profiles by name, for command lines: `ios`, `android` (calibrated to measured phones),
  /// `ios-documented`, `android-documented` (the vendors' stated rules) and `server`.
  public static let named: [String: RegionMonitoringProfile] = [
    "ios": .ios, "android": .android, "ios-documented": .iosDocumented, "android-documented": .androidDocumented,
    "server": .server,
  ]
}

/// Confirmation by the overlap of a fix's accuracy disc with a circular region (Android's rule).
///
/// The *overlap ratio* of a fix is the fraction of its accuracy disc (radius: its horizontal
/// accuracy) inside the region: the area of the two discs' intersection over the area of the
/// accuracy disc, on the plane tangent at the fix with the geodesic distance between the centres
/// (relative error of order (r/6,371 km)², under 10⁻⁵ for regions up to 20 km). An entry is
/// confirmed when the ratio reaches the enter threshold, an exit when it falls to the exit
/// threshold; in between the crossing stays pending (*low confidence*) and nothing is alerted. A
/// fix without an accuracy is a point: ratio 1 inside, 0 outside. Polygons are judged by
/// containment alone.
public struct AccuracyOverlap: Hashable, Sendable {
  /// Regions with a radius under this many metres are *small* and use the small-fence thresholds.
  public var smallRegionRadius: Double
  /// Minimum overlap ratio that confirms an entry into a large region.
  public var enterRatio: Double
  /// Minimum overlap ratio that confirms an entry into a small region.
  public var smallRegionEnterRatio: Double
  /// Maximum overlap ratio that confirms an exit from a large region.
  public var exitRatio: Double
  /// Maximum overlap ratio that confirms an exit from a small region.
  public var smallRegionExitRatio: Double

  public init(
    smallRegionRadius: Double, enterRatio: Double, smallRegionEnterRatio: Double, exitRatio: Double,
    smallRegionExitRatio: Double
  ) {
    self.smallRegionRadius = smallRegionRadius
    self.enterRatio = enterRatio
    self.smallRegionEnterRatio = smallRegionEnterRatio
    self.exitRatio = exitRatio
    self.smallRegionExitRatio = smallRegionExitRatio
  }

  /// 85 % / 15 % for large regions, 75 % / 25 % for small ones (docs/platform-rules.md, region monitoring). *Small* is
  /// under 150 m, the minimum radius AGG recommends ("100–150 meters"). Assumption.
  public static let android = AccuracyOverlap(
    smallRegionRadius: 150, enterRatio: 0.85, smallRegionEnterRatio: 0.75, exitRatio: 0.15, smallRegionExitRatio: 0.25)

  /// The thresholds (enter, exit) for a region of `radius` metres.
  public func thresholds(radius: Double) -> (enter: Double, exit: Double) {
    radius < smallRegionRadius ? (smallRegionEnterRatio, smallRegionExitRatio) : (enterRatio, exitRatio)
  }

  /// The fraction of a disc of radius `accuracy` lying inside a disc of radius `radius` whose
  /// centre is `distance` away (plane geometry; 0…1). `accuracy` 0 is a point.
  public static func ratio(accuracy: Double, radius: Double, distance: Double) -> Double {
    let a = accuracy, r = radius, d = distance
    guard a > 0 else { return d <= r ? 1 : 0 }
    if d >= a + r { return 0 }
    if d <= r - a { return 1 }
    if d <= a - r { return (r * r) / (a * a) }
    // The lens: two circular segments.
    let alpha = ((d * d + a * a - r * r) / (2 * d * a)).clamped(-1, 1)
    let beta = ((d * d + r * r - a * a) / (2 * d * r)).clamped(-1, 1)
    let product = max(0, (-d + a + r) * (d + a - r) * (d - a + r) * (d + a + r))
    let area = a * a * Double.acos(alpha) + r * r * Double.acos(beta) - 0.5 * product.squareRoot()
    return min(1, max(0, area / (Double.pi * a * a)))
  }
}

extension Double {
  fileprivate func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(high, Swift.max(low, self)) }
}

extension RegionMonitoringProfile {
  /// A profile field whose value a ``RegionMonitor`` cannot work with.
  public struct InvalidValue: Error, Hashable, Sendable, CustomStringConvertible {
    /// The profile's ``RegionMonitoringProfile/name``.
    public let profile: String
    /// The field, as spelled in Swift (`reorderWindow`, `accuracyOverlap.exitRatio`).
    public let field: String
    /// The value found, as text.
    public let value: String
    /// What the field must hold.
    public let expected: String

    public init(profile: String, field: String, value: String, expected: String) {
      self.profile = profile
      self.field = field
      self.value = value
      self.expected = expected
    }

    public var description: String {
      "profile \"\(profile)\": \(field) is \(value): expected \(expected)"
    }
  }

  /// Checks every field: distances, times and speeds finite and not negative (the gap limit may
  /// be +∞), latency ranges finite and not negative, fractions and ratios in [0, 1], a cap of at
  /// least 0 regions.
  /// - Throws: ``InvalidValue`` for the first field out of range.
  public func validate() throws(InvalidValue) {
    func fail(_ field: String, _ value: some CustomStringConvertible, _ expected: String) -> InvalidValue {
      InvalidValue(profile: name, field: field, value: value.description, expected: expected)
    }
    func metres(_ field: String, _ value: Double) throws(InvalidValue) {
      guard value.isFinite, value >= 0 else { throw fail(field, value, "a finite number ≥ 0") }
    }
    func fraction(_ field: String, _ value: Double) throws(InvalidValue) {
      guard value >= 0, value <= 1 else { throw fail(field, value, "a fraction in [0, 1]") }
    }
    func latency(_ field: String, _ distribution: Distribution) throws(InvalidValue) {
      guard distribution.isNonNegativeAndFinite else { throw fail(field, distribution, "finite values ≥ 0") }
    }
    if let cap = maximumRegions, cap < 0 { throw fail("maximumRegions", cap, "nil or a count ≥ 0") }
    try metres("confirmationDistance", confirmationDistance)
    try fraction("maximumEntryDepthFraction", maximumEntryDepthFraction)
    try metres("confirmationTime", confirmationTime)
    if let limit = maximumHorizontalAccuracy {
      guard limit >= 0, !limit.isNaN else { throw fail("maximumHorizontalAccuracy", limit, "nil or metres ≥ 0") }
    }
    try latency("deliveryLatency", deliveryLatency)
    guard gapLimit > 0, !gapLimit.isNaN else { throw fail("gapLimit", gapLimit, "seconds > 0 (+infinity: no limit)") }
    try metres("reorderWindow", reorderWindow)
    if let overlap = accuracyOverlap {
      try metres("accuracyOverlap.smallRegionRadius", overlap.smallRegionRadius)
      try fraction("accuracyOverlap.enterRatio", overlap.enterRatio)
      try fraction("accuracyOverlap.smallRegionEnterRatio", overlap.smallRegionEnterRatio)
      try fraction("accuracyOverlap.exitRatio", overlap.exitRatio)
      try fraction("accuracyOverlap.smallRegionExitRatio", overlap.smallRegionExitRatio)
    }
    if let delay = loiteringDelay { try metres("loiteringDelay", delay) }
    if let range = stationaryDeliveryLatency { try latency("stationaryDeliveryLatency", range) }
    try metres("stationarySpeed", stationarySpeed)
    if let depth = triggerDepth { try latency("triggerDepth", depth) }
  }
}
