// swift-tools-version:6.1
import PackageDescription

/// Settings every GeoWake target shares (Swift 6 language mode comes from the tools version):
/// explicit `any`, internal imports by default, and expensive invariant checks in debug builds only.
let sharedSwiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .define("GEOWAKE_INTERNAL_CHECKS", .when(configuration: .debug)),
]

let package = Package(
  name: "GeoWake",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "Geodesy", targets: ["Geodesy"]),
    .library(name: "Geofencing", targets: ["Geofencing"]),
    .library(name: "GEOSValidation", targets: ["GEOSValidation"]),
    .library(name: "CellHandoff", targets: ["CellHandoff"]),
    .library(name: "BackgroundRuntime", targets: ["BackgroundRuntime"]),
    .library(name: "GeoWake", targets: ["GeoWake"]),
    .library(name: "TrackIO", targets: ["TrackIO"]),
    .library(name: "RuntimeIO", targets: ["RuntimeIO"]),
    .library(name: "GeoWakeReports", targets: ["GeoWakeReports"]),
    .library(name: "SyntheticData", targets: ["SyntheticData"]),
    .executable(name: "geowake", targets: ["geowake"]),
  ],
  traits: [
    // The live engine (`geowake serve`): on by default. `--disable-default-traits` builds the
    // command-line tool without it and without the server packages (the sanitizer runs do).
    .trait(name: "Server", description: "geowake serve: the live engine and the APNs endpoint, on Hummingbird, SQLite and swift-crypto"),
    .default(enabledTraits: ["Server"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    // The APNs endpoint (`geowake serve --apns`): ES256 provider tokens and a self-signed certificate.
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
  ],
  targets: []
)

// MARK: - C libraries

package.targets += [
  .systemLibrary(
    name: "CGEOS",
    pkgConfig: "geos",
    providers: [.apt(["libgeos-dev"]), .brew(["geos"])]
  ),
  // The system zlib, for gzip-compressed inputs (every platform has it; headers: zlib1g-dev).
  .systemLibrary(
    name: "CZlib",
    pkgConfig: "zlib",
    providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
  ),
  // The detector's kernels in C (see Geofencing's CircleFilter): headers, inlined.
  .target(name: "CDetectorKernels"),
]

// MARK: - Seeded randomness (one generator, its mappings defined by the project)

package.targets += [
  .target(
    name: "SeededRandom",
    dependencies: [.product(name: "RealModule", package: "swift-numerics")]
  )
]

// MARK: - Saved state (what restoring a snapshot can find wrong, for every model that saves one)

package.targets += [
  .target(name: "SavedState")
]

// MARK: - JSON over bytes, no Foundation: the one scanner and the text writer every format uses

package.targets += [
  .target(name: "JSONBytes")
]

// MARK: - Geometry core

package.targets += [
  .target(
    name: "Geodesy",
    dependencies: [.product(name: "RealModule", package: "swift-numerics")]
  ),
  .target(
    name: "Geofencing",
    dependencies: ["Geodesy", "SeededRandom", "SavedState", "CDetectorKernels", .product(name: "RealModule", package: "swift-numerics")]
  ),
  // Full OGC validity of polygons with GEOS, for polygons from outside (the command-line tool's
  // readers); the geometry core itself needs no GEOS.
  .target(
    name: "GEOSValidation",
    dependencies: ["Geofencing", "CGEOS"]
  ),
]

// MARK: - Cells: towers, serving cell, significant changes

package.targets += [
  .target(
    name: "CellHandoff",
    dependencies: ["Geodesy", "SeededRandom", "SavedState", .product(name: "RealModule", package: "swift-numerics")]
  )
]

// MARK: - Background runtime

package.targets += [
  .target(
    name: "BackgroundRuntime",
    dependencies: ["SeededRandom", "SavedState", "JSONBytes"],
    // No Foundation: rounding comes from libm, linked explicitly for executables that use only this.
    linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
  )
]

// MARK: - Façade: whole simulations and comparisons

package.targets += [
  .target(
    name: "GeoWake",
    dependencies: ["Geodesy", "Geofencing", "CellHandoff", "BackgroundRuntime", "SeededRandom"]
  )
]

// MARK: - Synthetic data (benchmarks, tests, `geowake generate`)

package.targets += [
  .target(
    name: "SyntheticData",
    dependencies: [
      "Geodesy", "Geofencing", "BackgroundRuntime", "SeededRandom", .product(name: "RealModule", package: "swift-numerics"),
    ]
  )
]

// MARK: - Input and output

package.targets += [
  .target(
    name: "TrackIO",
    dependencies: ["Geodesy", "Geofencing", "CellHandoff", "JSONBytes", "CZlib", .product(name: "RealModule", package: "swift-numerics")]
  ),
  .target(
    name: "RuntimeIO",
    dependencies: ["TrackIO", "BackgroundRuntime", "JSONBytes"]
  ),
]

// MARK: - Reports of whole simulations

package.targets += [
  .target(
    name: "GeoWakeReports",
    dependencies: [
      "GeoWake", "TrackIO", "BackgroundRuntime", "CellHandoff", "Geofencing", "Geodesy", "JSONBytes", .product(name: "RealModule", package: "swift-numerics"),
    ]
  )
]

// MARK: - The live engine (the Server trait; no library product depends on it)

/// A dependency only with the Server trait.
func server(_ dependency: Target.Dependency) -> Target.Dependency {
  switch dependency {
  case .productItem(let name, let package, let moduleAliases, _):
    .productItem(name: name, package: package, moduleAliases: moduleAliases, condition: .when(traits: ["Server"]))
  case .targetItem(let name, _): .targetItem(name: name, condition: .when(traits: ["Server"]))
  case .byNameItem(let name, _): .byNameItem(name: name, condition: .when(traits: ["Server"]))
  @unknown default: dependency
  }
}

package.targets += [
  // The system SQLite, the server's embedded store (headers: libsqlite3-dev).
  .systemLibrary(
    name: "CSQLite",
    pkgConfig: "sqlite3",
    providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
  ),
  // The NATS C client with JetStream, for `geowake serve --nats` (headers: libnats-dev).
  .systemLibrary(
    name: "CNATS",
    pkgConfig: "libnats",
    providers: [.apt(["libnats-dev"]), .brew(["cnats"])]
  ),
  .target(
    name: "GeoWakeServer",
    dependencies: [
      "GeoWake", "GeoWakeReports", "TrackIO", "Geofencing", "GEOSValidation", "Geodesy", "JSONBytes", "SeededRandom",
      server("CSQLite"), server("CNATS"), server(.product(name: "Hummingbird", package: "hummingbird")),
      server(.product(name: "HummingbirdHTTP2", package: "hummingbird")), server(.product(name: "Crypto", package: "swift-crypto")),
      server(.product(name: "X509", package: "swift-certificates")), server(.product(name: "SwiftASN1", package: "swift-asn1")),
    ]
  ),
]

// MARK: - Command-line tool

package.targets += [
  .executableTarget(
    name: "geowake",
    dependencies: [
      "Geodesy", "Geofencing", "GEOSValidation", "CellHandoff", "BackgroundRuntime", "GeoWake", "GeoWakeReports", "TrackIO", "RuntimeIO", "JSONBytes", "SeededRandom",
      "SyntheticData", .product(name: "ArgumentParser", package: "swift-argument-parser"), server("GeoWakeServer"),
    ]
  )
]

// MARK: - Tests

package.targets += [
  .target(
    name: "_GeoWakeTestSupport",
    dependencies: ["Geodesy", "Geofencing", "SyntheticData", .product(name: "RealModule", package: "swift-numerics")],
    path: "Sources/_GeoWakeTestSupport"
  ),
  .testTarget(
    name: "SeededRandomTests",
    dependencies: ["SeededRandom"]
  ),
  .testTarget(
    name: "GeodesyTests",
    dependencies: ["Geodesy", "SeededRandom", "_GeoWakeTestSupport", .product(name: "Numerics", package: "swift-numerics")]
  ),
  .testTarget(
    name: "GeofencingTests",
    dependencies: ["Geofencing", "Geodesy", "SeededRandom", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "GEOSValidationTests",
    dependencies: ["GEOSValidation", "Geofencing", "Geodesy", "SyntheticData", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "CellHandoffTests",
    dependencies: ["CellHandoff", "Geodesy", "SyntheticData", "SeededRandom", "SavedState", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "GeoWakeTests",
    dependencies: ["GeoWake", "BackgroundRuntime", "CellHandoff", "Geofencing", "Geodesy", "SyntheticData", "SeededRandom", "SavedState", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "TrackIOTests",
    dependencies: ["TrackIO", "JSONBytes", "Geofencing", "CellHandoff", "Geodesy", "SeededRandom", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "RuntimeIOTests",
    dependencies: ["RuntimeIO", "TrackIO", "BackgroundRuntime", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "GeoWakeReportsTests",
    dependencies: ["GeoWakeReports", "TrackIO", "Geofencing", "Geodesy", "_GeoWakeTestSupport"]
  ),
  .testTarget(
    name: "GeoWakeServerTests",
    dependencies: [
      "geowake", server("GeoWakeServer"), "Geofencing", "Geodesy", "SyntheticData", "_GeoWakeTestSupport", "BackgroundRuntime", "GeoWakeReports",
      server(.product(name: "Crypto", package: "swift-crypto")),
    ]
  ),
  .testTarget(
    name: "GeoWakeCLITests",
    dependencies: ["geowake", "Geofencing", "BackgroundRuntime", "SeededRandom", "_GeoWakeTestSupport"]
  ),
]

for target in package.targets where target.type != .system {
  target.swiftSettings = (target.swiftSettings ?? []) + sharedSwiftSettings
}
