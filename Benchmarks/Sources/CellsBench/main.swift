// geowake-cells-bench TRACK.csv [TOWERS] [REPEAT]
//
// Times the cell side of GeoWake, as the performance bar states it:
// 1. serving-cell tracking of every fix of TRACK.csv against a map of TOWERS towers (default
//    1,000,000; seeded, uniform over a 600 km square around the track, ranges log-uniform
//    300 m - 5 km: about 2.8 towers per km², some 40 reaching each point), best of REPEAT passes;
// 2. loading an OpenCellID-format CSV of 45,000 rows (written first, not timed) and indexing it.
// Prints key=value lines.
import CellHandoff
import Dispatch
import Foundation
import Geodesy
import RealModule
import SyntheticData
import TrackIO

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
  print("usage: geowake-cells-bench TRACK.csv [TOWERS] [REPEAT]")
  exit(64)
}
let towerCount = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
var reader = try FixCSVReader(path: arguments[1])
let fixes = try reader.readAll()
let centre = fixes[0].coordinate

var random = SeededGenerator(seed: 20_240_501)
let halfSide = 300_000.0
let metresPerDegree = 111_320.0
let towers = (0..<towerCount).map { k in
  let north = Double.random(in: -halfSide...halfSide, using: &random)
  let east = Double.random(in: -halfSide...halfSide, using: &random)
  let latitude = centre.latitude + north / metresPerDegree
  let longitude = centre.longitude + east / (metresPerDegree * Double.cos(centre.latitude * .pi / 180))
  let range = Double.exp(Double.random(in: Double.log(300)...Double.log(5_000), using: &random))
  return CellTower(
    identity: CellIdentity(radio: .lte, mcc: 999, net: k % 1000, area: k / 1000, cell: k),
    coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude), range: range)
}
var map = try TowerMap([])
let build = try seconds { map = try TowerMap(towers) }

@inline(never)
func run(_ fixes: [LocationFix], _ map: TowerMap) throws -> (Double, Int, Int, Int) {
  let radius = ProcessInfo.processInfo.environment["GEOWAKE_CACHE_RADIUS"].flatMap(Double.init) ?? ServingCellTracker.defaultCacheRadius
  var tracker = try ServingCellTracker(layout: .towers(map), cacheRadius: radius)
  var changes: [ServingCellChange] = []
  changes.reserveCapacity(1 << 16)
  let elapsed = seconds {
    for fix in fixes { tracker.process(fix, into: &changes) }
  }
  print("cache_fills=\(tracker.cacheFills)")
  return (elapsed, tracker.handoffCount, tracker.suppressedPingPongs, tracker.skippedFixes)
}

var best = (Double.infinity, 0, 0, 0)
let onlyLoad = ProcessInfo.processInfo.environment["GEOWAKE_ONLY_LOAD"] != nil
for _ in 0..<(onlyLoad ? 0 : repeats) {
  let r = try run(fixes, map)
  if r.0 < best.0 { best = r }
}
print("task=serving-cell towers=\(towerCount) fixes=\(fixes.count) build_s=\(build) run_s=\(best.0) fixes_per_s=\(Double(fixes.count) / best.0) handoffs=\(best.1) ping_pongs=\(best.2) skipped=\(best.3) index_bytes=\(map.memoryFootprint)")

// OpenCellID-format file of 45,000 rows (the size of the export the fixture subset comes from).
let path = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-ocid-45k.csv").path
var text = "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n"
for k in 0..<45_000 {
  let t = towers[k]
  // Six decimals, as OpenCellID writes positions.
  let lon = (t.coordinate.longitude * 1e6).rounded() / 1e6
  let lat = (t.coordinate.latitude * 1e6).rounded() / 1e6
  text += "LTE,\(t.identity.mcc),\(t.identity.net),\(t.identity.area),\(t.identity.cell),-1,\(lon),\(lat),\(Int(t.range)),12,1,1311269141,1662693985,0\n"
}
try text.write(toFile: path, atomically: true, encoding: .utf8)
var loadBest = Double.infinity
var loaded = 0
for _ in 0..<max(repeats, 3) {
  loadBest = min(loadBest, try seconds {
    let file = try TowerCSVReader.read(path: path)
    loaded = try TowerMap(file.towers).count
  })
}
print("task=opencellid-load rows=45000 cells=\(loaded) load_and_index_s=\(loadBest)")
