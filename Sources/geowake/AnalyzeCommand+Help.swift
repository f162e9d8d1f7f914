import BackgroundRuntime
import Geofencing
import SeededRandom

extension AnalyzeCommand {
  /// The numbers the help states, from the profiles that run, so they cannot drift.
  private static let ios = RegionMonitoringProfile.ios
  private static let iosDocumented = RegionMonitoringProfile.iosDocumented
  private static let android = RegionMonitoringProfile.android
  private static let android8 = RegionMonitoringProfile.android8
  private static let samsungPower = AndroidPowerRules.samsung
  private static let androidRuntime = RuntimeProfile.android
  private static func whole(_ x: Double) -> String { x == x.rounded() ? "\(Int(x))" : "\(x)" }
  private static func range(_ d: Distribution) -> String { "\(whole(d.bounds.lowerBound))-\(whole(d.bounds.upperBound))" }
  private static func minutes(_ d: Distribution) -> String { "\(whole(d.bounds.lowerBound / 60))-\(whole(d.bounds.upperBound / 60))" }

  /// The long help of `geowake analyze`.
  static let discussion = """
    TRACK is a GPX 1.0/1.1 file (its timed track points) or a CSV or JSON Lines file of fixes. \
    Several tracks, a folder of them, or a file with a device column (CSV device, JSON Lines \
    "device") make a run over many devices: each device gets its own timeline against the one \
    region set, --jobs at a time, and every output line starts with its device, in input order \
    (see docs/formats.md). REGIONS is a \
    CSV file with id,lat,lon,radius (metres), a GeoJSON FeatureCollection (Point features with \
    a radius property, Polygon, MultiPolygon; notifyOnEntry/notifyOnExit properties) or a JSON \
    array of {id, lat, lon, radius}, in registration order. The platform decides every \
    rule — region monitoring, pushes, fetch and the app's runtime: ios (the default, as iPhones \
    were measured: \(ios.maximumRegions ?? 0)-region cap; an exit confirmed \(range(ios.triggerDepth ?? .fixed(0))) m \
    beyond the boundary plus the fix's accuracy for \(whole(ios.confirmationTime)) s, then a median \
    \(whole(ios.deliveryLatency.median)) s; entries up to \(whole(ios.entryLead?.bounds.upperBound ?? 0)) m \
    early; some crossings never reported), ios-documented (Apple's stated \
    \(whole(iosDocumented.confirmationDistance)) m / \(whole(iosDocumented.confirmationTime)) s and \
    \(minutes(iosDocumented.deliveryLatency)) min), android and android8 (as Android phones were \
    measured; \(android.maximumRegions ?? 0)-region cap, confirmation by the share of the fix's \
    accuracy disc inside, dwell after \(whole((android.loiteringDelay ?? 0) / 60)) min; android8 looks \
    at geofences about every \(whole((android8.evaluationInterval ?? 0) / 60)) min), android-samsung \
    (android8 with Samsung's battery manager: an app unused for \(whole((samsungPower.restrictedAfter) / 86_400)) days \
    asleep, for \(whole((samsungPower.deepSleepAfter ?? 0) / 86_400)) days stopped until opened), android-documented \
    (Google's stated rules), or server (the geometric truth). On the Android platforms the app \
    lives by Android's runtime: a broadcast receiver with \(whole(androidRuntime.locationWakeBudget)) s \
    (goAsync up to \(whole(androidRuntime.backgroundTaskLimit)) s), FCM's onMessageReceived with \
    \(whole(androidRuntime.handlerDeadline)) s, jobs of up to \(whole(androidRuntime.fetchDeadline / 60)) min, \
    Doze and the standby buckets (docs/platform-rules.md). Events are listed \
    in the order they happen on the device, as the track streams: a region event when the app is \
    told (or, when it is not, when the platform decided), with the time the boundary was crossed \
    and the reason; the app's steps, pushes and fetches among them at their times. A summary follows: events and time \
    inside per region, fixes reordered (within the profile's reorder window: server \
    \(whole(RegionMonitoringProfile.server.reorderWindow)) s, ios \(ios.reorderWindow == 0 ? "none" : "\(whole(ios.reorderWindow)) s")) \
    and fixes rejected, and why.

    --format jsonl writes one JSON object per event with the keys event (enter, exit, \
    passThrough, dwell, state, monitoringFailed), region, at (when it happened on the device), \
    crossedAt, deliveredAt (ISO 8601 UTC to the microsecond, or null when not delivered), lat, \
    lon (8 decimals), state (for state events, else null), reason, fromFix and toFix (as \
    geowake crossings writes a crossing); other entries (cells, app steps, push steps, fetches) \
    have at and their own keys. No summary; the schemas are in docs/formats.md. --format csv \
    has every key as a column (empty for null). \
    --format geojson is a FeatureCollection of the regions (kind "region") and the events \
    (kind "event", Point features with the JSON Lines keys as properties). --format html is \
    one self-contained file (no network): an SVG map of the track, regions and events with \
    tooltips, a timeline strip per region, the summary and a table of every event. \

    Cells: with --towers (an OpenCellID CSV file) or --synthetic-cells SPACING (metres, or \
    urban = 1500, rural = 8000: a hexagonal layout anchored at the first fix), or when the \
    track names its serving cells (a CSV cell column, or a G-NetTrack drive log: Timestamp, \
    LACHEX, RAWCELLID), the serving cell is followed along the track (A3 handoffs: 3 dB, \
    320 ms, ping-pongs within 5 s suppressed) and every change is an event with fromCell and \
    toCell: attach (the first cell), handoff (one cell to another) or serviceLost. --significant-changes adds the significant-location-change events the handoffs \
    give (500 m and 5 min apart; the first at the start), and suppressed ones with the reason; \
    without towers or cells in the track it uses the urban synthetic layout. --regions may then \
    be left out.

    App: with --app SCENARIO.json, every delivered region event and significant change wakes \
    the app under the platform's runtime (ios: \(whole(RuntimeProfile.ios.locationWakeBudget)) s per location \
    wake, background tasks up to \(whole(RuntimeProfile.ios.backgroundTaskLimit)) s from the wake; a \
    scenario's "profile" may name ios7, \(whole(RuntimeProfile.ios7.backgroundTaskLimit)) s, or ios6, \
    \(whole(RuntimeProfile.ios6.backgroundTaskLimit)) s, on an iOS \
    platform; android: see above): the timeline then lists, among the \
    location events at their times, every step of the app — wake (state before and after, budget), handler, \
    background task, budget extension, expiration, suspension, termination by the watchdog, \
    relaunch, foreground session, force-quit — and the summary adds wakes and background \
    seconds by reason, terminations, lost events and an energy estimate per reason (400 mW \
    while running: EnergyModel). The scenario: {"seed": 1, "handlers": \
    {"location": {"work": 4, "backgroundTask": 20, "endsTaskOnExpiration": true, "variation": \
    0.2}}, "sessions": [{"at": ISO time, "duration": seconds}], "usage": {"daily": ["07:30"], \
    "duration": 240, "from": "2024-05-01", "days": 14}, "forceQuits": [ISO time]}.

    A progress bar is drawn on standard error for tracks of 8 MB or more when it is a terminal \
    (GEOWAKE_PROGRESS=always or never overrides).
    """
}
