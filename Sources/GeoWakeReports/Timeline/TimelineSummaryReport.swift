public import GeoWake
import BackgroundRuntime
import CellHandoff
import Geofencing
public import TrackIO

/// The summary of a ``DeviceTimeline`` as `geowake analyze` prints it after the events: fixes
/// used, reordered and rejected; events and time inside per region; cells and significant
/// changes; fetch freshness; pushes; the app's wakes, background time, terminations and energy.
public struct TimelineSummaryReport {
  public var summary: DeviceTimeline.Summary
  /// Whether regions were given (a cells-only timeline does not speak of regions).
  public var regionsGiven: Bool
  /// Damage the track reader recovered from (`--lenient`).
  public var damageRecovered: Int
  /// Track points without a time, which the reader left out.
  public var pointsWithoutTime: Int
  /// The files the launches, pushes and app scenario came from, for the headings.
  public var usageSource: String
  public var pushSource: String
  public var appSource: String

  public init(
    _ summary: DeviceTimeline.Summary, regionsGiven: Bool, damageRecovered: Int = 0, pointsWithoutTime: Int = 0,
    usageSource: String = "", pushSource: String = "", appSource: String = ""
  ) {
    self.summary = summary
    self.regionsGiven = regionsGiven
    self.damageRecovered = damageRecovered
    self.pointsWithoutTime = pointsWithoutTime
    self.usageSource = usageSource
    self.pushSource = pushSource
    self.appSource = appSource
  }

  /// The whole summary, starting with a blank line.
  public var text: String {
    var text = regionText
    if let cells = summary.cells { text += Self.cellText(cells) }
    if let fetch = summary.fetch, let scenario = appScenario {
      text += "\nfetch (\(usageSource), policy \(scenario.configuration.fetchPolicy)): \(fetch.fetches) fetches, "
        + "\(fetch.staleness.fresh) of \(fetch.staleness.launches) launches fresh, staleness p90 \(NumberText.duration(fetch.staleness.p90))"
        + (scenario.configuration.fetchDiagnostic.map { "; \($0)" } ?? "") + "\n"
    }
    if let pushes = summary.pushes, let profile = summary.pushProfile {
      text += "\npushes (\(pushSource)): "
        + PushReport.summaryText(
          pushes, source: pushSource, runtime: summary.app ?? RuntimeSummary(),
          trackRecord: summary.trackRecord ?? FetchTrackRecord(profile: .ios), profile: profile)
    }
    if let app = summary.app, let scenario = appScenario { text += appText(app, scenario: scenario) }
    return text
  }

  private var appScenario: AppScenario? { summary.appScenario }

  private var regionText: String {
    let m = summary.monitor
    let span = summary.span.map { $0.upperBound - $0.lowerBound } ?? 0
    var text = "\n\(m.fixCount) fixes used over \(NumberText.duration(span))"
    if regionsGiven {
      text += ", \(m.regions.count) regions monitored (profile \(m.profile.name))"
        + (m.failedRegions.isEmpty ? "" : ", \(m.failedRegions.count) refused past the cap")
    }
    text += "\n"
    if m.reorderedFixCount > 0 {
      text += "fixes put back in time order: \(m.reorderedFixCount) (reorder window \(Int(m.profile.reorderWindow)) s)\n"
    }
    if damageRecovered > 0 {
      text += "damage recovered from (--lenient): \(counted(damageRecovered, "problem")), each a warning on standard error\n"
    }
    let rejected = m.rejections.values.reduce(0, +) + pointsWithoutTime
    if rejected > 0 {
      var causes = m.rejections.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
      if pointsWithoutTime > 0 { causes.append("\(pointsWithoutTime) without a time") }
      text += "fixes rejected: \(rejected) (" + causes.joined(separator: ", ") + ")\n"
    }
    let active = summary.activity.totals.filter { !$0.value.failed }.sorted { $0.key < $1.key }
    if !active.isEmpty {
      let dwells = m.profile.loiteringDelay != nil
      // The region column as wide as the longest name; "suppressed": flaps the platform hid.
      let width = max(18, (active.map(\.key.rawValue.count).max() ?? 0) + 2)
      text += "\n" + "region".column(width) + "enters  exits  pass  " + (dwells ? "dwells  " : "") + "suppressed  undelivered  time inside\n"
      for (id, t) in active {
        text += id.rawValue.column(width) + "\(t.enters)".column(8) + "\(t.exits)".column(7)
          + "\(t.passThroughs)".column(6) + (dwells ? "\(t.dwells)".column(8) : "") + "\(m.suppressedFlaps[id] ?? 0)".column(12)
          + "\(t.undelivered)".column(13) + NumberText.duration(t.timeInside) + "\n"
      }
    }
    let quiet = m.regions.count - active.count
    if quiet > 0 { text += "\(quiet) regions had no events\n" }
    return text
  }

  private static func cellText(_ cells: CellTimeline) -> String {
    var text = "\ncells: \(cells.description); \(counted(cells.tracker.handoffCount, "handoff")) among \(counted(cells.cellsSeen.count, "cell"))"
    text += ", \(counted(cells.tracker.suppressedPingPongs, "ping-pong")) suppressed\n"
    if let monitor = cells.monitor {
      text += "significant location changes (profile \(monitor.profile.name)): \(monitor.deliveredCount) delivered"
        + " (the first at the start), \(counted(monitor.suppressedCount, "handoff")) suppressed (under \(Int(monitor.profile.minimumDistance)) m or"
        + " \(Int(monitor.profile.minimumInterval)) s from the last)"
        + (monitor.profile.periodicWakeInterval.map { ", a periodic wake after \(Int($0)) s without one" } ?? "") + "\n"
    }
    if cells.outOfOrder > 0 { text += "fixes out of time order left out of the cell model: \(cells.outOfOrder)\n" }
    return text
  }

  /// The app's totals: wakes and background seconds by reason, terminations, losses, energy.
  private func appText(_ s: RuntimeSummary, scenario: AppScenario) -> String {
    let energy = EnergyModel.standard
    var text = "\napp (\(appSource), runtime profile \(scenario.profile.name)):\n"
    text += "reason              wakes  background s  energy (\(Int(energy.wakePower)) mW while running)\n"
    for reason in LaunchReason.allCases where (s.wakes[reason] ?? 0) > 0 || (s.backgroundSeconds[reason] ?? 0) > 0 {
      let seconds = s.backgroundSeconds[reason] ?? 0
      text += reason.rawValue.column(20) + "\(s.wakes[reason] ?? 0)".column(7) + NumberText.fixed(seconds, decimals: 1).column(14)
        + NumberText.fixed(seconds * energy.wakePower / 1_000, decimals: 1) + " J\n"
    }
    if scenario.profile.lifecycle == .android {
      text += "processes killed past a limit (an ANR, onMessageReceived's window, a job's 10 min): \(s.terminations) (handlers cut short: \(s.interrupted))\n"
    } else {
      text += "terminations by the watchdog: \(s.terminations) (handlers cut short: \(s.interrupted)), expirations: \(s.expirations)\n"
    }
    if s.sessions > 0 { text += "foreground: \(counted(s.sessions, "session")), \(NumberText.duration(s.foregroundSeconds)) on screen\n" }
    let lost = s.lost.values.reduce(0, +)
    if lost > 0 {
      text += "events lost after a force-quit: \(lost) ("
        + s.lost.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ") + ")\n"
    }
    return text
  }

  /// "1 region", "3 regions".
  private static func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
  private func counted(_ n: Int, _ noun: String) -> String { Self.counted(n, noun) }
}

extension TimelineEntry {
  /// The entry of one event of a ``DeviceTimeline``.
  public init(_ event: TimelineEvent) {
    switch event {
    case .region(let e): self.init(e)
    case .cellChange(let c): self.init(c)
    case .significantChange(let s): self.init(s)
    case .fetch(let f, let at): self.init(f, coordinate: at)
    case .push(let p, let at): self.init(p, coordinate: at)
    case .app(let r, let at): self.init(r, coordinate: at)
    }
  }
}

extension TimelineWriter {
  /// Writes one event of a ``DeviceTimeline``.
  public mutating func write(_ event: TimelineEvent) throws(TrackIOError) { try write(TimelineEntry(event)) }
}
