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
  /// When set, the share of confirmed crossings the platform reports, by the region's size: a
  /// real phone sometimes never tells the app of an entry or an exit. Each confirmed entry and
  /// exit draws whether it is reported (with the monitor's seed, the region and the crossing
  /// time); one that is not keeps its event, undelivered, with
  /// ``RegionEvent/Withholding-swift.enum/missed`` — the platform's state still changes. `nil`:
  /// every confirmed crossing is reported.
  public var reportingRate: ReportingRate?
  /// When set, a circle counts as entered once the device is within this many metres *outside*
  /// it (drawn per approach, with the monitor's seed, the region and the time the device came
  /// within the distribution's largest value): iOS fires some entries before the boundary is
  /// reached. The entry then needs ``confirmationTime`` there like any other. A device that
  /// turns away inside that distance without reaching the boundary exits as from the region.
  /// Polygons are entered at their boundary. Checked for every monitored circle at every fix, so
  /// meant for profiles with a cap on regions. `nil`: entries at the boundary (and beyond, as the
  /// confirmation rules say).
  public var entryLead: Distribution?
  /// When set, the platform looks at the device's position only this often (seconds, at instants
  /// a whole number of intervals after a phase drawn from the monitor's seed): a pending crossing
  /// is confirmed only by the first fix at or after such an instant. Android 8.0 and later
  /// evaluate geofences about every two minutes in the background. `nil`: at every fix.
  public var evaluationInterval: Double?

  public init(
    name: String, maximumRegions: Int?, confirmationDistance: Double, maximumEntryDepthFraction: Double,
    confirmationTime: Double, requiresDepthBeyondAccuracy: Bool, maximumHorizontalAccuracy: Double?,
    deliveryLatency: Distribution, gapLimit: Double, reorderWindow: Double, reportsPassThroughs: Bool,
    deliversStateEvents: Bool, accuracyOverlap: AccuracyOverlap? = nil, loiteringDelay: Double? = nil,
    stationaryDeliveryLatency: Distribution? = nil, stationarySpeed: Double = 0.5, triggerDepth: Distribution? = nil,
    reportingRate: ReportingRate? = nil, entryLead: Distribution? = nil, evaluationInterval: Double? = nil
  ) {
    self.evaluationInterval = evaluationInterval
    self.triggerDepth = triggerDepth
    self.reportingRate = reportingRate
    self.entryLead = entryLead
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

  /// How often measured phones report a crossing, by fence radius: Shevchenko & Reips's
  /// detection rates (S&R 2024, study 1, iPhones and Android phones pooled: entries/exits 65/62 %
  /// at 10 m, 90/92 % at 50 m, 92/95 % at 100 m), each divided by the share the other rules of the
  /// calibrated profiles already lose on `SyntheticCrossingTrials`-style walks (3,600 walks, seed
  /// 77: 82/83 % at 10 m — Android's overlap rule cannot enter a 10 m fence with a fix worse than
  /// about 11 m —, 99/100 % at 50 m, 99.5/100 % at 100 m), so that the profiles together reproduce
  /// the published rates. Measured.
  public static let measuredReportingRate = ReportingRate(radii: [10, 50, 100], enter: [0.79, 0.91, 0.92], exit: [0.74, 0.92, 0.95])

  /// iOS as measured on phones: ``iosDocumented`` with the trigger depth, the delivery latency,
  /// early entries and missed crossings calibrated to measurements of iPhones
  /// (`docs/platform-rules.md`, `docs/fidelity.md`).
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
  /// - `entryLead` uniform 0…200 m: iPhones fire entries before the boundary is reached, about
  ///   44 m and 55 s before the walker crossed it (S&R 2024, study 2); with the confirmation time
  ///   and the latency above, the walkers of `SyntheticCrossingTrials` (approaching at 0.6–1.0
  ///   m/s, as S&R's did) get their entries about 44 m before the boundary. Measured.
  /// - `reportingRate`: ``measuredReportingRate``. Measured (S&R 2024).
  /// - Everything else as ``iosDocumented``.
  public static let ios: RegionMonitoringProfile = {
    var profile = iosDocumented
    profile.name = "ios"
    profile.triggerDepth = .uniform(0...100)
    profile.deliveryLatency = .logNormal(median: 35, sigma: 1.2, maximum: 900)
    profile.entryLead = .uniform(0...200)
    profile.reportingRate = measuredReportingRate
    return profile
  }()

  /// Android as measured on phones (`android`): ``androidDocumented`` with the delivery latency
  /// calibrated to geofence departures measured on Nexus 6 phones (Android 6.0.1) and missed
  /// crossings as measured (`docs/platform-rules.md`, `docs/fidelity.md`). Android 8 and later
  /// also look at geofences only about every two minutes in the background: ``android8``.
  ///
  /// - `deliveryLatency` log-normal, median 25 s, σ 0.6, at most 600 s, when moving: the measured
  ///   exits come a median 28 s after the ground truth left a 100 m fence, for walks, bicycles
  ///   and cars alike (31–42 s), with the accuracy-overlap rule deciding the crossing. Measured
  ///   (MobilityNet).
  /// - `stationaryDeliveryLatency` 0…360 s: Google's "up to 6 minutes when stationary", which
  ///   the departures (nearly all moving) cannot measure, read without the 2-minute floor
  ///   ``androidDocumented`` assumes: S&R 2024's Android phones (study 2) reported entries 146 s
  ///   after walkers crossed into fences they stopped in, against 188 s on
  ///   `SyntheticCrossingTrials` with the floor and 164 s without. Vendor documentation, read
  ///   against a measurement.
  /// - `reportingRate`: ``measuredReportingRate``. Measured (S&R 2024).
  /// - Everything else as ``androidDocumented``.
  public static let android: RegionMonitoringProfile = {
    var profile = androidDocumented
    profile.name = "android"
    profile.deliveryLatency = .logNormal(median: 25, sigma: 0.6, maximum: 600)
    profile.stationaryDeliveryLatency = .uniform(0...360)
    profile.reportingRate = measuredReportingRate
    return profile
  }()

  /// Android 8.0 and later as measured on phones (`android8`): ``android`` with geofences
  /// evaluated about every two minutes in the background.
  ///
  /// - `evaluationInterval` 120 s: Google, *Background location limits* (Android 8.0): "geofencing
  ///   responsiveness changes from tens of seconds to approximately two minutes"; the Android
  ///   phones of S&R 2024 (study 2) reported entries 53 m and 146 s after the crossing, where the
  ///   Android 6 phones of MobilityNet reported exits 28 s after it. Vendor documentation, agreeing
  ///   with the measurements.
  /// - Everything else as ``android``.
  public static let android8: RegionMonitoringProfile = {
    var profile = android
    profile.name = "android8"
    profile.evaluationInterval = 120
    return profile
  }()

  /// A Samsung phone (`android-samsung`): Samsung's phones run Android 8 and later, whose
  /// geofencing is ``android8``'s; what differs is the app's lifecycle (the battery manager), not
  /// geofencing.
  public static let androidSamsung: RegionMonitoringProfile = {
    var profile = android8
    profile.name = "android-samsung"
    return profile
  }()

  /// The calibrated Android profile for a phone running `version` (`"6.0.1"`, `"Android 6.0.1"`,
  /// `"13"`): ``android`` before Android 8 and for a version not read, ``android8`` from it on.
  public static func android(version: String) -> RegionMonitoringProfile {
    guard let major = androidMajorVersion(version) else { return android }
    return major < 8 ? android : android8
  }

  /// The major version a text such as `Android 6.0.1` or `13` names: its first run of digits;
  /// `nil` when it has none.
  public static func androidMajorVersion(_ version: String) -> Int? {
    Int(version.drop { !$0.isNumber }.prefix { $0.isNumber })
  }

  /// The profiles by name, for command lines: `ios`, `android`, `android8` (Android 8 and later),
  /// `android-samsung` (``android8`` under another name) — calibrated to measured phones —, `ios-documented`, `android-documented` (the vendors' stated
  /// rules) and `server`.
  public static let named: [String: RegionMonitoringProfile] = [
    "ios": .ios, "android": .android, "android8": .android8, "android-samsung": .androidSamsung, "ios-documented": .iosDocumented,
    "android-documented": .androidDocumented,
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

/// The share of confirmed crossings a platform reports, by region radius: rates given at some
/// radii, linear between them, the nearest one's beyond them.
public struct ReportingRate: Hashable, Sendable {
  /// Radii in metres, ascending.
  public var radii: [Double]
  /// The share of entries reported at each radius (0…1).
  public var enter: [Double]
  /// The share of exits reported at each radius (0…1).
  public var exit: [Double]

  public init(radii: [Double], enter: [Double], exit: [Double]) {
    self.radii = radii
    self.enter = enter
    self.exit = exit
  }

  /// The share of entries (or exits) reported for a region of `radius` metres.
  public func rate(radius: Double, exit isExit: Bool) -> Double {
    let rates = isExit ? exit : enter
    guard let first = radii.first, let last = radii.last else { return 1 }
    if radius <= first { return rates[0] }
    if radius >= last { return rates[rates.count - 1] }
    var k = 1
    while radii[k] < radius { k += 1 }
    let w = (radius - radii[k - 1]) / (radii[k] - radii[k - 1])
    return rates[k - 1] + w * (rates[k] - rates[k - 1])
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
    if let lead = entryLead { try latency("entryLead", lead) }
    if let interval = evaluationInterval {
      guard interval.isFinite, interval > 0 else { throw fail("evaluationInterval", interval, "nil or seconds > 0") }
    }
    if let rates = reportingRate {
      guard !rates.radii.isEmpty, rates.radii.count == rates.enter.count, rates.radii.count == rates.exit.count else {
        throw fail("reportingRate", rates.radii.count, "one entry and one exit rate per radius, at least one radius")
      }
      for (k, radius) in rates.radii.enumerated() {
        try metres("reportingRate.radii[\(k)]", radius)
        if k > 0, radius <= rates.radii[k - 1] { throw fail("reportingRate.radii[\(k)]", radius, "radii in ascending order") }
        try fraction("reportingRate.enter[\(k)]", rates.enter[k])
        try fraction("reportingRate.exit[\(k)]", rates.exit[k])
      }
    }
  }
}
