// geowake-fuzz: one libFuzzer harness for every parser and for what the commands do with what
// they read (analyze's timeline, push, fetch, info's statistics), the target chosen by
// GEOWAKE_FUZZ_TARGET (see `targets`). Each input is written to a file in /dev/shm (or $TMPDIR) with the extension
// the parser expects and read through the public API, as the command-line tool reads it. The
// parsers must never trap: any input ends in a value or a TrackIOError. Regions read are also
// put in an index, which must give them back unchanged.
//
//   GEOWAKE_FUZZ_TARGET=gpx .build/debug/geowake-fuzz CORPUS -max_total_time=60
//
// Built with -sanitize=fuzzer,address by `make fuzz` (scripts/fuzz.sh).
import BackgroundRuntime
import CellHandoff
import Foundation
import GEOSValidation
import GeoWake
import Geodesy
import Geofencing
import RuntimeIO
import TrackIO

/// The parsers, by name: the file extension they read and how they are driven.
let targets: [String: (extension: String, run: @Sendable (String) -> Void)] = [
  "track": ("", { path in drain { try TrackFileReader(path: path) } }),
  "gpx": ("gpx", { path in
    drain { try TrackFileReader(path: path) }
    drain { try TrackFileReader(path: path, lenient: true) }
  }),
  // What `geowake info` does with a file: its statistics, from every reader, strict and lenient.
  "statistics": ("", { path in
    _ = try? TrackStatistics.read(path: path)
    _ = try? TrackStatistics.read(path: path, lenient: true, assumeUTC: true)
  }),
  "csv": ("csv", { path in drain { try TrackFileReader(path: path, options: .init(assumeUTC: true)) } }),
  "jsonl": ("jsonl", { path in drain { try TrackFileReader(path: path) } }),
  "regions": ("geojson", { path in
    // What reads goes into an index and comes back the same, bit for bit: kept whole, or rebuilt
    // from the prepared rings.
    guard let regions = try? RegionFileReader.read(path: path).regions else { return }
    let index = RegionIndex(regions)
    let sorted = regions.sorted { $0.identifier < $1.identifier }
    let back = index.allRegions
    guard back == sorted, zip(back, sorted).allSatisfy({ bits($0) == bits($1) }) else {
      fatalError("an index gave back other regions than it was given")
    }
  }),
  // What `geowake regions check` (and every command reading regions) does: each polygon checked
  // for full validity by GEOS as it is read.
  "validated": ("geojson", { path in
    _ = try? RegionFileReader.read(path: path) { (polygon) throws(RegionError) in try polygon.validateWithGEOS() }
  }),
  "scenario": ("json", { path in _ = try? ScenarioReader.read(path: path) }),
  // What `geowake analyze` does with a track, not only its reading: every fix through a phone's
  // whole timeline (regions, cells and significant changes, the app woken, pushes), on iOS and
  // Android, finished.
  "analyze": ("", { path in
    for platform in [Platform.ios, Platform.android] {
      guard var reader = try? TrackFileReader(path: path, options: .init(lenient: true, assumeUTC: true)),
        var timeline = try? DeviceTimeline(
          regions: fuzzRegions, platform: platform, seed: 1,
          cells: .init(layout: .hexagonal(spacing: 1_500), significantChanges: .ios, description: "urban"),
          app: .init(scenario: fuzzScenario))
      else { return }
      var events: [TimelineEvent] = []
      while case .some(.some(let fix)) = try? reader.next() {
        timeline.process(fix, reportedCell: reader.reportedCell, into: &events)
        events.removeAll(keepingCapacity: true)
      }
      try? timeline.finish(into: &events)
    }
  }),
  // What `geowake fidelity` does with a departure's track: replayed through the calibrated and
  // the documented profiles around a fence at its first fix, the departure at its middle fix.
  "fidelity": ("", { path in
    guard var reader = try? TrackFileReader(path: path, options: .init(lenient: true, assumeUTC: true)) else { return }
    var track: [LocationFix] = []
    while case .some(.some(let fix)) = try? reader.next(), track.count < 20_000 { track.append(fix) }
    guard let first = track.first, let fence = try? CircularRegion(identifier: "fence", center: first.coordinate, radius: 100) else { return }
    for platform in MeasuredDeparture.Platform.allCases {
      let departure = MeasuredDeparture(
        id: "fuzz", platform: platform, departureTime: track[track.count / 2].time, exitTime: track.last?.time, fence: fence, track: track)
      for profile in platform == .ios ? [RegionMonitoringProfile.ios, .iosDocumented] : [.android, .android8, .androidDocumented] {
        _ = try? DepartureReplay().predictedExitDelay(departure, profile: profile, seed: 1)
      }
    }
  }),
  // What `geowake push` does with a schedule: validated, then delivered to one device.
  "push": ("jsonl", { path in
    guard let requests = try? PushScheduleReader.read(path: path, assumeUTC: true), !requests.isEmpty else { return }
    for platform in [Platform.ios, Platform.android] {
      _ = PushSimulation(
        requests: requests, device: PushDevice(scenario: fuzzScenario), profile: platform.push, fetchProfile: platform.fetch,
        requiresProviderToken: false
      ).run()
    }
  }),
  // What `geowake fetch` does with a user's launches: the scheduler beside its baselines.
  "fetch": ("csv", { path in
    guard let launches = try? UsageCSVReader.read(path: path, assumeUTC: true),
      let window = FetchSimulation.window(days: 3, launches: launches),
      let first = launches.first, let feed = try? ContentFeed.daytimeNews(from: first.time, days: 40, utcOffset: first.utcOffset)
    else { return }
    // A window far longer than the fuzzed launches are is not what a user runs; keep runs short.
    guard window.upperBound - window.lowerBound <= 4 * 86_400, window.lowerBound - first.time <= 30 * 86_400 else { return }
    var simulation = FetchSimulation(scenario: fuzzScenario, launches: launches, window: window, feed: feed)
    simulation.fetchProfile = Platform.ios.fetch
    _ = FetchComparison(simulation)
  }),
  "pushes": ("jsonl", { path in _ = try? PushScheduleReader.read(path: path) }),
  "towers": ("csv", { path in
    _ = try? TowerCSVReader.read(path: path)
    _ = try? TowerCSVReader.read(path: path, lenient: true)
  }),
  "schedules": ("csv", { path in
    _ = try? UsageCSVReader.read(path: path)
    _ = try? FeedCSVReader.read(path: path)
    _ = try? DeviceConditionsCSVReader.read(path: path)
    _ = try? DepartureCSVReader.read(path: path)
  }),
]

/// The regions of the whole-path targets: circles and a polygon around the Fixtures' places
/// (Tokyo, San Francisco) and a circle at 0°, 0°.
let fuzzRegions: RegionSet = {
  var regions: [Region] = []
  for (k, (lat, lon, radius)) in [(35.6591, 139.7006, 60.0), (35.6700, 139.7030, 250), (37.7955, -122.3937, 150), (0, 0, 1_000)].enumerated() {
    regions.append(.circle(try! CircularRegion(identifier: "c\(k)", center: Coordinate(latitude: lat, longitude: lon), radius: radius)))
  }
  let ring = [(35.655, 139.695), (35.655, 139.705), (35.665, 139.705), (35.665, 139.695)].map { try! Coordinate(latitude: $0.0, longitude: $0.1) }
  regions.append(.polygon(try! PolygonRegion(identifier: "p", exterior: ring)))
  return RegionSet(regions)
}()

/// The app of the whole-path targets: woken for locations, pushes and fetches.
let fuzzScenario = AppScenario(
  behaviours: [.location: HandlerBehaviour(work: 4), .remoteNotification: HandlerBehaviour(work: 2), .fetch: HandlerBehaviour(work: 3)],
  configuration: AppConfiguration(backgroundModes: [.location, .remoteNotification, .fetch], fetchPolicy: .minimum))

/// A region's numbers, bit for bit (`==` takes -0.0 for 0.0).
func bits(_ region: Region) -> [UInt64] {
  switch region {
  case .circle(let c): return [c.center.latitude.bitPattern, c.center.longitude.bitPattern, c.radius.bitPattern]
  case .polygon(let p):
    return p.polygons.flatMap { [$0.exterior] + $0.holes }.flatMap { $0.flatMap { [$0.latitude.bitPattern, $0.longitude.bitPattern] } }
  }
}

/// Reads every fix, as a run would, until the end or the first error.
func drain(_ open: () throws -> TrackFileReader) {
  guard var reader = try? open() else { return }
  while true {
    // nil: an error (the run stops there), or the end of the file.
    guard case .some(.some) = try? reader.next() else { break }
    _ = reader.takeWarnings()
  }
}

let targetName = ProcessInfo.processInfo.environment["GEOWAKE_FUZZ_TARGET"] ?? ""
let folder: String = {
  let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
  let path = "\(base)/geowake-fuzz-\(getpid())"
  mkdir(path, 0o700)
  return path
}()
let inputPath: String = {
  guard let target = targets[targetName] else {
    FileHandle.standardError.write(Data("geowake-fuzz: set GEOWAKE_FUZZ_TARGET to one of \(targets.keys.sorted().joined(separator: ", "))\n".utf8))
    exit(64)
  }
  return target.extension.isEmpty ? "\(folder)/input" : "\(folder)/input.\(target.extension)"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { return 0 }
  var offset = 0
  while offset < count {
    let n = write(fd, start + offset, count - offset)
    if n <= 0 { break }
    offset += n
  }
  close(fd)
  targets[targetName]?.run(inputPath)
  return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
) -> CInt

@_cdecl("geowake_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  _ = inputPath
  atexit {
    unlink(inputPath)
    rmdir(folder)
  }
  var c = argc
  var v = argv
  return LLVMFuzzerRunDriver(&c, &v) { fuzzOne($0, $1) }
}
