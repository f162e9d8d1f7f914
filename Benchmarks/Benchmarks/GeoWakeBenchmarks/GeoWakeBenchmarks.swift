import BackgroundRuntime
import Benchmark
import CellHandoff
import Geodesy
import Geofencing
import Foundation
import SyntheticData
import TrackIO

// The peer baselines' setting (../shared/PERF.md): a 1,000,000-fix city track at 1 s and
// circles of 50 m – 2 km, all generated here, deterministically.
let center = Coordinate(uncheckedLatitude: 37.77, longitude: -122.42)
let track: [LocationFix] = SyntheticTrack(seed: 20_240_501, count: 1_000_000, center: center).map(\.fix)
let trackSample: [Coordinate] = stride(from: 0, to: track.count, by: 50).map { track[$0].coordinate }
let circleSets: [Int: [Region]] = Dictionary(
  uniqueKeysWithValues: [20, 1_000, 100_000].map {
    ($0, SyntheticRegions(seed: 20_240_501, count: $0, center: center).generate(near: trackSample))
  })

/// The benchmark track as GPX 1.1 in a temporary file, written once (removed at exit).
nonisolated(unsafe) var gpxFile: String?
func generatedGPX() throws -> String {
  if let gpxFile { return gpxFile }
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-bench-\(getpid()).gpx").path
  var writer = try TrackWriter(format: .gpx, sink: ByteSink(path: path, overwrite: true), name: "benchmark")
  for generated in SyntheticTrack(seed: 20_240_501, count: 1_000_000, center: center) {
    try writer.write(generated.fix, hdop: generated.hdop, elevation: generated.elevation)
  }
  try writer.finish()
  atexit { if let gpxFile { unlink(gpxFile) } }
  gpxFile = path
  return path
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
    maxDuration: .seconds(10), maxIterations: 10)

  // Containment and crossings for the whole track: every fix's state for every circle, every
  // crossing with its interpolated time. Scaled per fix: throughput is fixes per second.
  for count in [20, 1_000, 100_000] {
    Benchmark("CrossingDetector track 1M fixes, \(count) circles", configuration: .init(scalingFactor: .mega)) { benchmark in
      let index = RegionIndex(circleSets[count] ?? [])
      var detector = CrossingDetector(regions: index)
      var crossings: [RegionCrossing] = []
      crossings.reserveCapacity(1 << 18)
      benchmark.startMeasurement()
      try detector.process(track, into: &crossings)
      benchmark.stopMeasurement()
      blackHole(crossings.count)
    }
  }

  // The steady state: a second pass over the track, every cell already known. No allocation
  // per fix: the malloc counter must stay at zero for a million fixes.
  Benchmark(
    "CrossingDetector steady state, 1M fixes, 100000 circles",
    configuration: .init(
      metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega,
      thresholds: [.mallocCountTotal: .init(absolute: [.p100: 0])])
  ) { benchmark in
    let index = RegionIndex(circleSets[100_000] ?? [])
    var detector = CrossingDetector(regions: index)
    var crossings: [RegionCrossing] = []
    crossings.reserveCapacity(1 << 20)
    try detector.process(track, into: &crossings)
    let secondPass = track.map { LocationFix(time: $0.time + 2e6, coordinate: $0.coordinate) }
    try detector.process(secondPass.prefix(1), into: &crossings)
    benchmark.startMeasurement()
    try detector.process(secondPass.dropFirst(), into: &crossings)
    benchmark.stopMeasurement()
    blackHole(crossings.count)
  }

  Benchmark("RegionIndex build, 100000 circles") { benchmark in
    let regions = circleSets[100_000] ?? []
    benchmark.startMeasurement()
    let index = RegionIndex(regions)
    benchmark.stopMeasurement()
    blackHole(index.count)
  }

  // Bytes per region: the index's own arrays and tables, plus identifier storage beyond what
  // fits inline in a String (15 bytes).
  Benchmark(
    "RegionIndex memory per region, 100000 circles",
    configuration: .init(metrics: [.custom("bytes per region", polarity: .prefersSmaller, useScalingFactor: false)], maxIterations: 1)
  ) { benchmark in
    let regions = circleSets[100_000] ?? []
    let index = RegionIndex(regions)
    let identifierBytes = regions.reduce(0) { $0 + ($1.identifier.rawValue.utf8.count > 15 ? $1.identifier.rawValue.utf8.count + 32 : 0) }
    benchmark.measurement(.custom("bytes per region"), (index.memoryFootprint + identifierBytes) / index.count)
  }

  // A device's fixes through a RegionMonitor one at a time, as `geowake analyze` gives them:
  // no allocation per fix (an event still costs a few). Retains and releases are counted with
  // perf probes instead (docs/benchmarks.md): package-benchmark's retain counters crash under
  // Swift 6.3 (ordo-one/benchmark#349).
  Benchmark(
    "RegionMonitor 1M fixes one at a time, 1000 circles",
    configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
  ) { benchmark in
    var monitor = try RegionMonitor(regions: circleSets[1_000] ?? [], profile: .server)
    var events: [RegionEvent] = []
    events.reserveCapacity(1 << 17)
    benchmark.startMeasurement()
    for fix in track { _ = monitor.process(fix, into: &events) }
    benchmark.stopMeasurement()
    blackHole(events.count)
  }

  // Serving-cell tracking of the whole track on the synthetic urban layout (the default when no
  // tower file is given). The steady state allocates nothing per fix.
  Benchmark(
    "ServingCellTracker 1M fixes, synthetic urban cells",
    configuration: .init(
      metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega,
      thresholds: [.mallocCountTotal: .init(absolute: [.p100: 100])])
  ) { benchmark in
    var tracker = try ServingCellTracker(layout: .hexagonal(spacing: HexagonalCellLayout.urbanSpacing))
    var changes: [ServingCellChange] = []
    changes.reserveCapacity(1 << 16)
    for fix in track.prefix(10_000) { tracker.process(fix, into: &changes) }  // warm the buffers
    benchmark.startMeasurement()
    for fix in track.dropFirst(10_000) { tracker.process(fix, into: &changes) }
    benchmark.stopMeasurement()
    blackHole(changes.count)
  }

  // The background runtime: timeline events per second (scaled per system event).
  Benchmark("AppRuntime 1M system events", configuration: .init(scalingFactor: .mega)) { benchmark in
    var rng = SeededGenerator(seed: 20_240_501)
    var t = 1_700_000_000.0
    let kinds: [SystemEvent.Kind] = [.location, .location, .location, .fetch, .remoteNotification]
    let events = (0..<1_000_000).map { _ -> SystemEvent in
      t += Double(rng.next() % 120)
      return SystemEvent(time: t, kind: kinds[Int(rng.next() % UInt64(kinds.count))])
    }
    var runtime = AppRuntime(
      profile: .ios, behaviours: [.location: HandlerBehaviour(work: 4, backgroundTask: 20, variation: 0.5)], seed: 7)
    var out: [RuntimeEvent] = []
    out.reserveCapacity(8_000_000)
    benchmark.startMeasurement()
    for e in events { runtime.schedule(e) }
    runtime.run(into: &out)
    benchmark.stopMeasurement()
    blackHole(out.count)
  }

  // The APNs model: a silent / alert mix validated, delivered, rate limited and waking the app
  // (scaled per request; geowake-push-bench runs the same at 1M with device conditions).
  Benchmark("PushSimulation 100k provider requests", configuration: .init(scalingFactor: .kilo)) { benchmark in
    let token = String(repeating: "ab", count: 32)
    let silent = Array(#"{"aps":{"content-available":1},"feed":"sports","seq":12345}"#.utf8)
    let alert = Array(#"{"aps":{"alert":{"title":"Breaking news","body":"Markets open higher"},"sound":"default","badge":3}}"#.utf8)
    var t = 1_714_550_400.0
    var rng = SeededGenerator(seed: 3)
    let requests = (0..<100_000).map { k -> ProviderRequest in
      t += Double(rng.next() % 21)
      let isSilent = k % 10 < 7
      return ProviderRequest(
        time: t, token: token,
        headers: [
          .init("apns-push-type", isSilent ? "background" : "alert"), .init("apns-priority", isSilent ? "5" : "10"),
          .init("apns-topic", "com.example.news"),
        ],
        payload: isSilent ? silent : alert)
    }
    benchmark.startMeasurement()
    let run = PushSimulation(requests: requests).run()
    benchmark.stopMeasurement()
    blackHole(run.outcomes.count)
  }

  // Strict payload parsing with a typed aps dictionary (scaled per payload).
  Benchmark("NotificationPayload parse, 100k payloads", configuration: .init(scalingFactor: .kilo)) { benchmark in
    let payload = Array(#"{"aps":{"alert":{"title":"Breaking news","body":"Markets open higher after a quiet night"},"sound":"default","badge":3,"thread-id":"markets"},"article":{"id":"a-20240501-0800","section":"business"}}"#.utf8)
    benchmark.startMeasurement()
    var members = 0
    payload.withUnsafeBufferPointer { b in
      for _ in 0..<100_000 { members &+= (try? NotificationPayload(parsing: b))?.aps.members.count ?? 0 }
    }
    benchmark.stopMeasurement()
    blackHole(members)
  }

  // GPX reading of the full fix (lat, lon, ele, time, hdop): the generated 1,000,000-point file
  // (about 122 MB), scaled per point, so throughput is points per second (M) and the malloc
  // count is per point (the reader's few buffers are all it allocates).
  Benchmark(
    "GPXReader 1M points (lat, lon, ele, time, hdop)",
    configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
  ) { benchmark in
    let path = try generatedGPX()
    benchmark.startMeasurement()
    var reader = try GPXReader(path: path)
    var sum = 0.0
    while let point = try reader.next() { sum += (point.time ?? 0) + (point.elevation ?? 0) + (point.horizontalDilution ?? 0) }
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  // Karney's inverse problem, the exact refinement step.
  Benchmark("Geodesic inverse, 1000 random pairs", configuration: .init(scalingFactor: .kilo)) { benchmark in
    var rng = SeededGenerator(seed: 7)
    let pairs = (0..<1_000).map { _ in
      (Coordinate(uncheckedLatitude: rng.latitude(), longitude: rng.longitude()),
       Coordinate(uncheckedLatitude: rng.latitude(), longitude: rng.longitude()))
    }
    benchmark.startMeasurement()
    var total = 0.0
    for (p, q) in pairs { total += Geodesic.wgs84.distance(from: p, to: q) }
    benchmark.stopMeasurement()
    blackHole(total)
  }
}
