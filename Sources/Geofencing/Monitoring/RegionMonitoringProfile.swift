/// The region-monitoring rules of a platform: every number the ``RegionMonitor`` uses, named.
///
/// Sources are in `SEMANTICS.md` §1: LMPG = Apple *Location and Maps Programming Guide*, Region
/// Monitoring chapter. Where a platform publishes no number, the field's comment says so and the
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
  /// Seconds from confirmation to delivery to the app. Each event draws its latency uniformly
  /// from this range with the monitor's seed, deterministically.
  public var deliveryLatency: ClosedRange<Double>
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

  public init(
    name: String, maximumRegions: Int?, confirmationDistance: Double, maximumEntryDepthFraction: Double,
    confirmationTime: Double, requiresDepthBeyondAccuracy: Bool, maximumHorizontalAccuracy: Double?,
    deliveryLatency: ClosedRange<Double>, gapLimit: Double, reorderWindow: Double, reportsPassThroughs: Bool,
    deliversStateEvents: Bool
  ) {
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

  /// iOS-like (`CLLocationManager` region monitoring).
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
  public static let ios = RegionMonitoringProfile(
    name: "ios", maximumRegions: 20, confirmationDistance: 200, maximumEntryDepthFraction: 0.5,
    confirmationTime: 20, requiresDepthBeyondAccuracy: true, maximumHorizontalAccuracy: 1_000,
    deliveryLatency: 180...300, gapLimit: 600, reorderWindow: 0, reportsPassThroughs: false, deliversStateEvents: false)

  /// The plain geometric truth: no cap, no confirmation distance or time, no latency, no
  /// accuracy gating, a gap limit of 10 minutes. Its enter, exit and pass-through events are
  /// exactly the boundary crossings of ``CrossingDetector`` (outside gaps). Fixes from devices
  /// reach a server over networks that reorder them: up to 30 s late they are put back in place
  /// (assumption: a few retransmission timeouts), later ones are rejected.
  public static let server = RegionMonitoringProfile(
    name: "server", maximumRegions: nil, confirmationDistance: 0, maximumEntryDepthFraction: 1,
    confirmationTime: 0, requiresDepthBeyondAccuracy: false, maximumHorizontalAccuracy: nil,
    deliveryLatency: 0...0, gapLimit: 600, reorderWindow: 30, reportsPassThroughs: true, deliversStateEvents: true)
}
