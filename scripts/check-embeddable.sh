#!/bin/sh
# GeoWake as an app or a server adds it: a throwaway package that depends on a clone of this
# repository tagged 1.0.0, by version, and builds every library product. SwiftPM refuses unsafe
# build flags in a versioned dependency, so this fails if any library target has them.
#
# The geometry core must not need GEOS: the consumer of the core products is checked not to
# link libgeos and not to compile the GEOS module; GEOSValidation, which does, is built apart.
#
# Every ```swift block of the README, docs/library.md and docs/scaling.md becomes a program of the consumer (ReadmeExample1, …),
# built and run against the tagged clone, so the README's examples compile as users copy them; the
# DocC articles' and doc comments' blocks are built too (DocExamples).
#
# It clones the last commit (HEAD), not uncommitted changes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/geowake-embed.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

git clone -q "$root" "$work/GeoWake"
git -C "$work/GeoWake" tag 1.0.0

consumer="$work/Consumer"
mkdir -p "$consumer/Sources/TrackConsumer" "$consumer/Sources/CoreConsumer" "$consumer/Sources/ValidationConsumer"
# The README's Swift blocks, one program each.
readme_targets=$(awk -v dir="$consumer/Sources" '
  /^```swift$/ { n++; inside = 1; path = dir "/ReadmeExample" n; system("mkdir -p " path); file = path "/main.swift"; next }
  /^```$/ && inside { inside = 0; close(file); next }
  inside { print > file }
  END { for (i = 1; i <= n; i++) printf "ReadmeExample%d ", i }
' "$work/GeoWake/README.md" "$work/GeoWake/docs/library.md" "$work/GeoWake/docs/scaling.md")
# The DocC articles' and the doc comments' Swift blocks: fragments that name a few things (regions,
# fixes, fences, a monitor…), so each becomes the body of a function in one target, beside a
# prelude that defines those names; the target is built, not run.
docs="$consumer/Sources/DocExamples"
mkdir -p "$docs"
{
  find "$work/GeoWake/Sources" -path '*.docc/*.md' | sort | while read -r f; do
    awk '/^```swift$/ { inside = 1; print "//// " FILENAME; next } /^```$/ { inside = 0; next } inside' "$f"
  done
  find "$work/GeoWake/Sources" -name '*.swift' | sort | while read -r f; do
    awk '/^ *\/\/\/ *```swift$/ { inside = 1; print "//// " FILENAME; next }
      /^ *\/\/\/ *```$/ { inside = 0; next }
      inside { sub(/^ *\/\/\/ ?/, ""); print }' "$f"
  done
} | awk -v dir="$docs" '
  /^\/\/\/\/ / { if (file) { print "}" > file; close(file) } n++; file = dir "/Example" n ".swift"
    print "// " substr($0, 6) > file; print "import Foundation\nimport Geodesy\nimport Geofencing\nimport CellHandoff\nimport BackgroundRuntime\nimport GeoWake\nimport TrackIO" > file
    print "func example" n "() async throws {" > file; next }
  /^import / { next }
  { print "  " $0 > file }
  END { if (file) print "}" > file }'
cat > "$docs/Prelude.swift" <<'SWIFT'
// What the documentation's fragments take as given.
import BackgroundRuntime
import CellHandoff
import GeoWake
import Geodesy
import Geofencing

let regions: [Region] = [.circle(try! CircularRegion(identifier: "pier", center: Coordinate(latitude: 37.7955, longitude: -122.3937), radius: 150))]
let fixes: [LocationFix] = [LocationFix(time: 0, coordinate: try! Coordinate(latitude: 37.79, longitude: -122.39), horizontalAccuracy: 5)]
let fences = RegionSet(regions)
let index: RegionIndex = {
  var index = RegionIndex()
  _ = index.insert(regions[0])
  return index
}()
struct Phone { var seed: UInt64 }
let devices = [Phone(seed: 1), Phone(seed: 2)]
let device = devices[0]
let monitor = try! RegionMonitor(regions: fences, profile: .server)
let scenario = AppScenario(behaviours: [.location: HandlerBehaviour(work: 4)])
let app: DeviceTimeline.App? = .init(scenario: scenario)
let cellConfiguration: CellTimeline.Configuration? = nil
let timeline = try! DeviceTimeline(regions: fences, profile: .ios, app: app)
let deviceFiles = ["a.gpx", "b.gpx"]
func analyse(_ path: String) -> String { path }
func write(_ output: String) throws {}
SWIFT
readme_target_list=""
for t in $readme_targets; do
  readme_target_list="$readme_target_list
    .executableTarget(name: \"$t\", dependencies: core),"
done
cat > "$consumer/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription

let core: [Target.Dependency] = [
  .product(name: "Geodesy", package: "GeoWake"),
  .product(name: "Geofencing", package: "GeoWake"),
  .product(name: "CellHandoff", package: "GeoWake"),
  .product(name: "BackgroundRuntime", package: "GeoWake"),
  .product(name: "GeoWake", package: "GeoWake"),
  .product(name: "TrackIO", package: "GeoWake"),
  .product(name: "RuntimeIO", package: "GeoWake"),
  .product(name: "GeoWakeReports", package: "GeoWake"),
  .product(name: "SyntheticData", package: "GeoWake"),
]

let package = Package(
  name: "Consumer",
  platforms: [.macOS(.v13)],
  dependencies: [.package(url: "file://$work/GeoWake", from: "1.0.0")],
  targets: [
    .executableTarget(name: "TrackConsumer", dependencies: [.product(name: "TrackIO", package: "GeoWake")]),
    .executableTarget(name: "CoreConsumer", dependencies: core),$readme_target_list
    .target(name: "DocExamples", dependencies: core, swiftSettings: [.swiftLanguageMode(.v5)]),
    .executableTarget(
      name: "ValidationConsumer",
      dependencies: [
        .product(name: "Geofencing", package: "GeoWake"),
        .product(name: "GEOSValidation", package: "GeoWake"),
      ]
    ),
  ]
)
SWIFT
cat > "$consumer/Sources/TrackConsumer/main.swift" <<'SWIFT'
import Foundation
import TrackIO

let path = NSTemporaryDirectory() + "/track-consumer-\(getpid()).gpx"
try #"<gpx version="1.1"><trk><trkseg><trkpt lat="35.0" lon="139.0"><time>2024-05-01T07:00:00Z</time></trkpt><trkpt lat="35.001" lon="139.0"><time>2024-05-01T07:00:10Z</time></trkpt></trkseg></trk></gpx>"#
  .write(toFile: path, atomically: false, encoding: .utf8)
defer { try? FileManager.default.removeItem(atPath: path) }
var reader = try TrackFileReader(path: path)
var fixes = 0
while try reader.next() != nil { fixes += 1 }
guard fixes == 2 else { fatalError("expected 2 fixes, read \(fixes)") }
print("TrackIO alone: \(fixes) fixes")
SWIFT
cat > "$consumer/Sources/CoreConsumer/main.swift" <<'SWIFT'
import BackgroundRuntime
import CellHandoff
import Geodesy
import Geofencing
import GeoWake
import GeoWakeReports
import RuntimeIO
import SyntheticData
import TrackIO

let pier = try CircularRegion(identifier: "pier", center: Coordinate(latitude: 35.6586, longitude: 139.7454), radius: 100)
let square = try PolygonRegion(
  identifier: "square",
  exterior: [(0.0, 0.0), (0.01, 0.0), (0.01, 0.01), (0.0, 0.01)].map { try Coordinate(latitude: $0.1, longitude: $0.0) })
var monitor = try RegionMonitor(regions: [.circle(pier), .polygon(square)], profile: .server)
var events: [RegionEvent] = []
for (k, metres) in [-300.0, 0, 300].enumerated() {
  let fix = LocationFix(time: Double(k) * 60, coordinate: pier.center.moved(metres), horizontalAccuracy: 5)
  monitor.process(fix, into: &events)
}
monitor.finish(into: &events)
let kinds = events.map { "\($0.kind)" }
guard kinds.contains("enter"), kinds.contains("exit") else { fatalError("expected an enter and an exit, got \(kinds)") }
print("core products: \(events.count) events")

extension Coordinate {
  func moved(_ metres: Double) -> Coordinate {
    Geodesic.wgs84.direct(from: self, azimuth: 90, distance: metres)!.destination
  }
}
SWIFT
cat > "$consumer/Sources/ValidationConsumer/main.swift" <<'SWIFT'
import GEOSValidation
import Geodesy
import Geofencing

let bowtie = try PolygonRegion(
  identifier: "bowtie",
  exterior: [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)].map { try Coordinate(latitude: $0.1, longitude: $0.0) })
do {
  try bowtie.validateWithGEOS()
  fatalError("GEOS accepted a self-intersecting ring")
} catch {
  print("GEOSValidation: \(error)")
}
SWIFT

cd "$consumer"
# Reading tracks needs neither GEOS nor the background runtime (the app, push and fetch models).
echo "check-embeddable: building TrackIO alone as a versioned dependency" >&2
swift build --product TrackConsumer >&2
bin=$(swift build --show-bin-path)
"$bin/TrackConsumer"
for module in GEOSValidation CGEOS BackgroundRuntime GeoWake; do
  if ls "$bin/$module.build/"*.o >/dev/null 2>&1 || [ -e "$bin/Modules/$module.swiftmodule" ]; then
    echo "check-embeddable: building TrackIO alone compiled $module" >&2
    exit 1
  fi
done
echo "check-embeddable: building the core products as a versioned dependency" >&2
swift build --product CoreConsumer >&2
bin=$(swift build --show-bin-path)
"$bin/CoreConsumer"
if ldd "$bin/CoreConsumer" | grep -q geos; then
  echo "check-embeddable: the core products link libgeos:" >&2
  ldd "$bin/CoreConsumer" | grep geos >&2
  exit 1
fi
# SwiftPM plans a folder for every target; only compiled objects or a module mean it was built.
if ls "$bin/GEOSValidation.build/"*.o >/dev/null 2>&1 || [ -e "$bin/Modules/GEOSValidation.swiftmodule" ]; then
  echo "check-embeddable: building the core products compiled GEOSValidation" >&2
  exit 1
fi
for t in $readme_targets; do
  echo "check-embeddable: building and running the README's $t" >&2
  swift build --product "$t" >&2
  "$bin/$t" >/dev/null
done
echo "check-embeddable: building the documentation's examples ($(ls "$docs" | grep -c Example) fragments)" >&2
swift build --target DocExamples >&2
echo "check-embeddable: building GEOSValidation as a versioned dependency" >&2
swift build --product ValidationConsumer >&2
"$bin/ValidationConsumer"
