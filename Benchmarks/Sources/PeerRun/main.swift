// geowake-peer-run TRACK.csv REGIONS [REPEAT]
// geowake-peer-run gpx TRACK.gpx [REPEAT]
//
// `gpx`: times reading every point of a GPX file with GPXReader (the full fix: lat, lon, time,
// ele, hdop), best of REPEAT whole passes, and prints bytes, seconds, MB/s and points.
//
// GeoWake's entry in Benchmarks/compare-peers. Reads the track and the regions (CSV circles, or
// GeoJSON circles and polygons; not timed), then
// times, as every peer does: building the index, and running the whole track through it (the
// CrossingDetector: every fix's containment state for every region, every crossing with its
// interpolated time). Prints one line of key=value pairs; `pairs` is the number of (fix, region)
// pairs with the fix inside, the check that every engine answered the same question.
import Dispatch
import Foundation
import Geodesy
import Geofencing
import TrackIO

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let arguments = CommandLine.arguments
if arguments.count >= 3 && arguments[1] == "gpx" {
  let path = arguments[2]
  let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
  var best = Double.infinity
  var points = 0
  var timed = 0
  var checksum = 0.0
  for _ in 0..<repeats {
    points = 0
    timed = 0
    checksum = 0
    best = min(best, try seconds {
      var reader = try GPXReader(path: path)
      while let point = try reader.next() {
        points += 1
        if let time = point.time {
          timed += 1
          checksum += time + point.coordinate.latitude + (point.elevation ?? 0) + (point.horizontalDilution ?? 0)
        }
      }
    })
  }
  let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  print("engine=geowake task=gpx bytes=\(bytes) run_s=\(best) mb_per_s=\(Double(bytes) / best / 1e6) points=\(points) timed=\(timed) checksum=\(checksum)")
  exit(0)
}
guard arguments.count >= 3 else {
  print("usage: geowake-peer-run TRACK.csv REGIONS [REPEAT] | geowake-peer-run gpx TRACK.gpx [REPEAT]")
  exit(64)
}
let repeatCount = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
var reader = try FixCSVReader(path: arguments[1])
let fixes = try reader.readAll()
let regions = try RegionFileReader.read(path: arguments[2]).regions

let level = ProcessInfo.processInfo.environment["GEOWAKE_GRID_LEVEL"].flatMap { Int($0) }
/// Passes (an index build, then the track) go on until there have been REPEAT of them and they
/// took PEER_MIN_SECONDS in all (compare-peers gives every engine the same two numbers).
let minimumSeconds = ProcessInfo.processInfo.environment["PEER_MIN_SECONDS"].flatMap { Double($0) } ?? 0

/// One timed pass of the whole track through the detector's batch entry point (locals only: no
/// captured variables, no global state). The number of (fix, region) containment pairs follows
/// from the initial state and the crossings: an enter between fixes i and i+1 adds one pair for
/// every fix from i+1 on, an exit removes one.
/// `set` holds the cells detectors prepared: a fresh one for a pass as the peers run, a shared one
/// for a warm pass.
@inline(never)
func runTrack(_ fixes: [LocationFix], _ set: RegionSet) throws -> (seconds: Double, pairs: Int, crossings: Int) {
  let index = set.index
  var detector = CrossingDetector(regions: set)
  var crossings: [RegionCrossing] = []
  crossings.reserveCapacity(1 << 18)
  let start = DispatchTime.now().uptimeNanoseconds
  try detector.process(fixes, into: &crossings)
  let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  var pairs = fixes.isEmpty ? 0 : index.regions(containing: fixes[0].coordinate).count * fixes.count
  for c in crossings { pairs += (c.direction == .enter ? 1 : -1) * (fixes.count - c.toFix) }
  return (elapsed, pairs, crossings.count)
}

var bestBuild = Double.infinity
var index = RegionIndex()
var best = (seconds: Double.infinity, pairs: 0, crossings: 0)
var passes = 0
var spent = 0.0
repeat {
  var built = RegionIndex()
  let buildSeconds = try seconds { built = RegionIndex(regions, configuration: .init(gridLevel: level)) }
  bestBuild = min(bestBuild, buildSeconds)
  index = built
  let run = try runTrack(fixes, RegionSet(index))
  if run.seconds < best.seconds { best = run }
  spent += buildSeconds + run.seconds
  passes += 1
} while passes < repeatCount || spent < minimumSeconds
// Not in the comparison: with PEER_WARM_PASSES=N, the track N times more over a set whose cells
// a pass before prepared, as a fleet's later devices find a shared set (`RegionSet`); the best
// of them. (Off by default, so that a run under callgrind counts the passes asked for.)
let warmPasses = ProcessInfo.processInfo.environment["PEER_WARM_PASSES"].flatMap { Int($0) } ?? 0
var warm = ""
if warmPasses > 0 {
  let shared = RegionSet(index)
  _ = try runTrack(fixes, shared)
  var seconds = Double.infinity
  for _ in 0..<warmPasses { seconds = min(seconds, try runTrack(fixes, shared).seconds) }
  warm = " warm_fixes_per_s=\(Double(fixes.count) / seconds)"
}
print(
  "engine=geowake grid_level=\(index.gridLevel) exact=WGS84 fixes=\(fixes.count) regions=\(regions.count) build_s=\(bestBuild) run_s=\(best.seconds) "
    + "fixes_per_s=\(Double(fixes.count) / best.seconds) pairs=\(best.pairs) crossings=\(best.crossings)" + warm)

