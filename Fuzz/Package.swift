// swift-tools-version:6.1
import Foundation
import PackageDescription

// libFuzzer harnesses for GeoWake's parsers (`make fuzz`). A package of its own, as Benchmarks/
// is, so that the sanitizer flags never reach `make test` or a package that depends on GeoWake.
// The GeoWake package is the parent folder; SwiftPM names a path dependency after its folder.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let geowake = parent.lastPathComponent

let package = Package(
  name: "GeoWakeFuzz",
  platforms: [.macOS(.v13)],
  dependencies: [.package(path: "..")],
  targets: [
    .executableTarget(
      name: "geowake-fuzz",
      dependencies: [
        .product(name: "TrackIO", package: geowake), .product(name: "RuntimeIO", package: geowake),
        .product(name: "Geofencing", package: geowake), .product(name: "GeoWake", package: geowake),
        .product(name: "BackgroundRuntime", package: geowake), .product(name: "CellHandoff", package: geowake),
        .product(name: "Geodesy", package: geowake), .product(name: "GEOSValidation", package: geowake),
      ],
      path: "Sources/geowake-fuzz"
    )
  ]
)
