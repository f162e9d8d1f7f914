// swift-tools-version:6.1
import Foundation
import PackageDescription

// The GeoWake package is the parent folder; SwiftPM names a path dependency after its folder, which
// differs between checkouts, so the name is read from the path.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let geowake = parent.lastPathComponent

let package = Package(
  name: "GeoWakeBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
  ],
  targets: [
    // package-benchmark suites: `make bench` (or `swift package benchmark` here).
    .executableTarget(
      name: "GeoWakeBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "Geodesy", package: geowake),
        .product(name: "Geofencing", package: geowake),
        .product(name: "SyntheticData", package: geowake),
        .product(name: "CellHandoff", package: geowake),
        .product(name: "BackgroundRuntime", package: geowake),
        .product(name: "TrackIO", package: geowake),
      ],
      path: "Benchmarks/GeoWakeBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    // GeoWake's side of `compare-peers`: the same files and the same timing rules as the peers.
    .executableTarget(
      name: "geowake-peer-run",
      dependencies: [
        .product(name: "Geodesy", package: geowake),
        .product(name: "Geofencing", package: geowake),
        .product(name: "TrackIO", package: geowake),
      ],
      path: "Sources/PeerRun"
    ),
    // The fleet's memory bar: many monitors over one shared fence set.
    .executableTarget(
      name: "geowake-fleet-memory",
      dependencies: [
        .product(name: "Geodesy", package: geowake),
        .product(name: "Geofencing", package: geowake),
        .product(name: "SyntheticData", package: geowake),
      ],
      path: "Sources/FleetMemory"
    ),
    // The polygon memory bar: the bytes a fence set holds per vertex and per region.
    .target(name: "MallocInUse", path: "Sources/MallocInUse"),
    .executableTarget(
      name: "geowake-region-memory",
      dependencies: [
        "MallocInUse",
        .product(name: "Geofencing", package: geowake),
        .product(name: "TrackIO", package: geowake),
      ],
      path: "Sources/RegionMemory"
    ),
    // The cell side's performance bar: serving-cell tracking against 1M towers, OpenCellID loading.
    .executableTarget(
      name: "geowake-cells-bench",
      dependencies: [
        .product(name: "Geodesy", package: geowake),
        .product(name: "CellHandoff", package: geowake),
        .product(name: "TrackIO", package: geowake),
        .product(name: "RealModule", package: "swift-numerics"),
        .product(name: "SyntheticData", package: geowake),
      ],
      path: "Sources/CellsBench"
    ),
    // The runtime's performance bar: timeline events per second through an AppRuntime.
    .executableTarget(
      name: "geowake-runtime-bench",
      dependencies: [.product(name: "BackgroundRuntime", package: geowake), .product(name: "SyntheticData", package: geowake)],
      path: "Sources/RuntimeBench"
    ),
    // The APNs model's bars: payload parsing MB/s, requests validated and scheduled per second.
    .executableTarget(
      name: "geowake-push-bench",
      dependencies: [.product(name: "BackgroundRuntime", package: geowake), .product(name: "SyntheticData", package: geowake)],
      path: "Sources/PushBench"
    ),
  ]
)
