// geowake-fleet-memory [--devices N] [--regions K] [--fixes F] [--seed S]
//
// The memory of many devices over one fence set: builds K circles (SyntheticRegions, radii
// 50 m – 2 km, over a square of 30 km or 0.5 km·√K a side) into one RegionSet, then N
// RegionMonitors (server profile) sharing it, each fed F fixes of its own SyntheticTrack (1 s
// apart, starting somewhere in the square), all kept alive to the end. Prints the resident set
// after each stage (from /proc/self/status, Linux) and what the devices added per device.
// Defaults: 1,000 devices, 100,000 circles, 1,000 fixes.
import Foundation
import Geodesy
import Geofencing
import SyntheticData

func residentMegabytes(_ field: String) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
  for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
    let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
    return kilobytes / 1024
  }
  return .nan
}

var devices = 1_000
var regionCount = 100_000
var fixCount = 1_000
var seed: UInt64 = 20_240_501
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
  guard let value = arguments.popFirst() else {
    FileHandle.standardError.write(Data("geowake-fleet-memory: \(flag) needs a value\n".utf8))
    exit(64)
  }
  switch flag {
  case "--devices": devices = Int(value) ?? devices
  case "--regions": regionCount = Int(value) ?? regionCount
  case "--fixes": fixCount = Int(value) ?? fixCount
  case "--seed": seed = UInt64(value) ?? seed
  default:
    FileHandle.standardError.write(Data("geowake-fleet-memory: unknown option \(flag)\n".utf8))
    exit(64)
  }
}

let center = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
let sample = SyntheticTrack(seed: seed, count: 20_000, center: center).map(\.fix.coordinate)
let start = residentMegabytes("VmRSS")
var regionList: [Region]? = SyntheticRegions(seed: seed, count: regionCount, center: center).generate(near: sample)
let fences = RegionSet(regionList!)
regionList = nil
let afterSet = residentMegabytes("VmRSS")

// Devices start uniformly over the inner half of the regions' square.
let side = max(30_000, 500 * Double(regionCount).squareRoot())
var rng = SeededGenerator(seed: seed ^ 0xD1CE)
let metresPerDegree = 111_132.0
var monitors: [RegionMonitor] = []
monitors.reserveCapacity(devices)
var events: [RegionEvent] = []
var eventCount = 0
for device in 0..<devices {
  let north = rng.uniform(-side / 4...side / 4)
  let east = rng.uniform(-side / 4...side / 4)
  let start = Coordinate(
    uncheckedLatitude: center.latitude + north / metresPerDegree,
    longitude: center.longitude + east / (metresPerDegree * cos(center.latitude * .pi / 180)))
  var monitor = try RegionMonitor(regions: fences, profile: .server, seed: UInt64(device))
  for fix in SyntheticTrack(seed: seed &+ UInt64(device) &+ 1, count: fixCount, center: start, halfSide: 2_000) {
    events.removeAll(keepingCapacity: true)
    monitor.process(fix.fix, into: &events)
    eventCount += events.count
  }
  monitors.append(monitor)
}
let afterDevices = residentMegabytes("VmRSS")
let peak = residentMegabytes("VmHWM")
let perDevice = (afterDevices - afterSet) * 1024 / Double(devices)
print(
  "regions=\(fences.count) devices=\(devices) fixes_per_device=\(fixCount) events=\(eventCount)"
    + " set_mb=\(String(format: "%.1f", afterSet - start)) index_footprint_mb=\(String(format: "%.1f", Double(fences.memoryFootprint) / 1_048_576))"
    + " devices_mb=\(String(format: "%.1f", afterDevices - afterSet)) per_device_kb=\(String(format: "%.1f", perDevice))"
    + " peak_mb=\(String(format: "%.1f", peak)) rss_mb=\(String(format: "%.1f", afterDevices))")
