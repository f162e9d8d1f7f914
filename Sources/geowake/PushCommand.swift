import ArgumentParser
import BackgroundRuntime
import GeoWake
import RuntimeIO
import GeoWakeReports
import TrackIO

/// `geowake push`: what APNs and the device would do with each request of a provider's schedule.
struct PushCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "push",
    abstract: "Replay a provider's push schedule through an APNs-faithful model: accepted or rejected, delivered when, and the app's wake.",
    discussion: """
      --schedule is JSON Lines, one request per line: {"at": ISO 8601, "token": hex device token, \
      "headers": {"apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id", \
      "apns-topic", "apns-id"}, "payload": the JSON body as sent} ("payloadText": a string of \
      bytes may replace "payload"). Each request is validated as APNs does (BadDeviceToken, \
      BadPriority for a background push at priority 10, InvalidPushType, MissingTopic, \
      PayloadEmpty, PayloadTooLarge over \(PushProfile.ios.payloadLimit) bytes, BadCollapseId over \(PushProfile.ios.collapseIDLimit) bytes, \
      BadExpirationDate, DuplicateHeaders, …; InvalidPayload, GeoWake's own, for a body that is \
      not JSON or a mistyped aps key, with the byte offset and key path).

      Accepted pushes are delivered, stored while the device is offline (only the newest, until \
      its expiration; apns-expiration 0: one attempt), coalesced, deferred by priority (5 waits in \
      Low Power Mode, 1 for a wake) or rate limited (silent pushes on ios, the default, as phones \
      were seen: \(PushProfile.ios.silentBudgetText); on ios-documented, read from Apple's \
      words alone: \(PushProfile.iosDocumented.silentBudgetText); past that only the newest is \
      held, and it rides along with the next priority-10 notification or leaves at a keep-alive \
      every \(Int(PushProfile.ios.keepAliveInterval / 60)) min when the budget allows). A delivered \
      content-available push wakes the app (30 s to call completion, else it is terminated); a \
      force-quit discards the held push and stops background launches until the user opens the app.

      --connectivity is a CSV start,end,condition with offline and lowPowerMode intervals. The app: \
      without --app, one that declares remote-notification and whose handler takes 2 s; with --app \
      SCENARIO.json its profile, seed, "handlers": {"remoteNotification": {…}}, "backgroundModes", \
      sessions, usage and forceQuits. The device token and topic are the first well-formed ones in \
      the schedule unless --token and --topic say otherwise. With --provider-token every request \
      must carry "authorization": "bearer <JWT>" (MissingProviderToken, InvalidProviderToken, \
      ExpiredProviderToken past one hour, TooManyProviderTokenUpdates when refreshed within 20 \
      min); the signature cannot be checked.

      The timeline has a step for each thing that happens to a request, when it happens: \
      accepted or rejected (APNs' answer, when it is sent), then delivered, delayed, piggybacked, \
      dropped, coalesced or held (at the end), and handled when the app's handler ends; the \
      app's steps come among them at their times. --format table lists them, then one line per \
      request (sent, apns-id, status, outcome, delivered, why) and the totals. --format jsonl \
      and csv write them as geowake analyze writes push and app entries: event (pushAccepted, \
      pushRejected, pushDelivered, pushDelayed, pushPiggybacked, pushDropped, pushCoalesced, \
      pushHeld, pushHandled, or an app step), at, request, sentAt, apnsId, status, apnsReason \
      (or null), timestamp (milliseconds, for Unregistered), carrier (the apns-id or keep-alive \
      it rode along with), wakesApp, app (shown, completed, failed, terminated, killed, \
      notLaunched, onScreen, notWoken) and reason (docs/formats.md).
      """ + HelpExamples.section(["geowake push --schedule Fixtures/push/news-app.jsonl",
        "geowake push --schedule Fixtures/push/news-app.jsonl --connectivity Fixtures/push/news-app-connectivity.csv --format jsonl"])
  )

  @Option(help: "Provider requests (JSON Lines).")
  var schedule: String

  @Option(help: "Device conditions (CSV start,end,condition: offline, lowPowerMode).")
  var connectivity: String?

  @Flag(name: .customLong("assume-utc"), help: "Read schedule, condition and app scenario times without a zone (2024-05-01T07:00:00) as UTC instead of refusing them.")
  var assumeUTC = false

  @Option(help: "App scenario (JSON): remote-notification handler, profile, seed, background modes, sessions, force-quits.")
  var app: String?

  @Option(help: "The device's token (hex); default: the first well-formed one in the schedule.")
  var token: String?

  @Option(help: "The app's bundle ID; default: the first topic in the schedule.")
  var topic: String?

  @Flag(name: .customLong("provider-token"), help: "Require token-based authentication: every request needs authorization: bearer <JWT> (ES256, kid; iss, iat at most 1 h old, refreshed at most every 20 min).")
  var providerToken = false

  @Option(
    name: [.customLong("platform"), .customLong("profile")],
    help: "The phone: ios (the default: the silent-push budget phones were seen to keep), ios-documented (the one read from Apple's documentation), android, android8, android-samsung or android-documented (FCM: the schedule's apns-priority 10 is high priority, content-available without an alert a data message; Doze and the standby buckets), server (as ios).")
  var platformName: Platform.Name = .ios

  @Option(name: .customLong("format"), help: "Output format: table, jsonl, csv or html (default: the one -o's extension names, else table).", transform: { $0.lowercased() })
  var formatOption: String?

  /// The format written: `--format`, else the one `-o`'s extension names, else table.
  var format: String { OutputFormat.resolve(formatOption, output: output, supported: ["table", "jsonl", "csv", "html"], fallback: "table") }

  @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
  var output: String = "-"

  @Flag(help: "With --format table on a terminal: whole lines with full times, however wide (as when the output is piped or a file); by default lines fit the terminal.")
  var wide = false

  @Flag(help: "Replace the output file if it exists.")
  var force = false

  func checkOptions() throws {
    try OutputFormat.check(formatOption, output: output, supported: ["table", "jsonl", "csv", "html"])
    guard PushReport.Format(rawValue: format) != nil else { throw ValidationError("--format must be table, jsonl, csv or html, got \(format)") }
  }

  func run() throws {
    try checkOptions()
    let requests: [ProviderRequest]
    do { requests = try PushScheduleReader.read(path: schedule, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    guard !requests.isEmpty else {
      Diagnostics.error("\(schedule): no requests: expected one JSON object per line")
      throw SysExit.dataError
    }
    if let earliest = requests.map(\.time).min(), let latest = requests.map(\.time).max(),
      let warning = InputChecks.timeWarning("the requests of \(schedule)", earliest: earliest, latest: latest, positioned: false)
    {
      Diagnostics.error(warning)
    }
    let platform = Platform.named(platformName)
    // Without --app: an app that declares remote-notification and whose handler takes 2 s.
    var scenario = AppScenario(
      behaviours: [.remoteNotification: HandlerBehaviour(work: 2)], configuration: AppConfiguration(backgroundModes: [.remoteNotification]))
    if let app {
      do { scenario = try ScenarioReader.read(path: app, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    }
    var device = PushDevice(scenario: PlatformOption.scenario(scenario, from: app ?? "", on: platform), deviceToken: token, topic: topic)
    if let connectivity {
      do { device.conditions = try DeviceConditionsCSVReader.read(path: connectivity, assumeUTC: assumeUTC) } catch { throw Diagnostics.fail(error) }
    }
    let run = PushSimulation(
      requests: requests, device: device, profile: platform.push, fetchProfile: platform.fetch, requiresProviderToken: providerToken
    ).run()
    let out: ByteSink
    do { out = try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
    do {
      var report = PushReport(run, scheduleSource: schedule)
      report.width = TerminalWidth.columns(output: output, wide: wide)
      try report.write(PushReport.Format(rawValue: format) ?? .table, to: out)
      try out.commit()
    } catch { throw Diagnostics.fail(error) }
  }
}
