// geowake-region-memory REGIONS...
//
// What a fence set holds: for each region file (GeoJSON or CSV, read as `geowake` reads it),
// the bytes the C allocator holds once the file's regions are in a RegionSet and the list they
// were read into is dropped — each polygon's positions (stored once), its prepared geometry,
// identifiers and the index — per vertex and per region. Prints one line per file, with
// whether it is within the polygon memory bar of docs/benchmarks.md: at most 40 bytes a vertex
// plus 200 bytes a region. Cells prepared for a moving device are not counted
// (geowake-fleet-memory measures those).
import Foundation
import Geofencing
import MallocInUse
import TrackIO

let paths = CommandLine.arguments.dropFirst()
guard !paths.isEmpty else {
  FileHandle.standardError.write(Data("usage: geowake-region-memory REGIONS...\n".utf8))
  exit(64)
}
for path in paths {
  let before = geowake_malloc_in_use()
  var vertices = 0
  var regionCount = 0
  var set: RegionSet?
  do {
    let regions = try RegionFileReader.read(path: path).regions
    regionCount = regions.count
    for case .polygon(let polygon) in regions {
      for part in polygon.polygons { vertices += part.exterior.count + part.holes.reduce(0) { $0 + $1.count } }
    }
    set = RegionSet(regions)
  } catch {
    FileHandle.standardError.write(Data("geowake-region-memory: \(error)\n".utf8))
    exit(65)
  }
  let held = Int(geowake_malloc_in_use()) - Int(before)
  let allowed = 40 * vertices + 200 * regionCount
  let perVertex = vertices > 0 ? String(format: "%.1f", Double(held) / Double(vertices)) : "-"
  let beyond = String(format: "%.0f", Double(held - 40 * vertices) / Double(max(1, regionCount)))
  print(
    "file=\((path as NSString).lastPathComponent) regions=\(regionCount) vertices=\(vertices) held_bytes=\(held)"
      + " bytes_per_region=\(held / max(1, regionCount)) bytes_per_vertex=\(perVertex)"
      + " bytes_per_region_beyond_40_a_vertex=\(beyond) index_footprint=\(set?.memoryFootprint ?? 0)"
      + " within_bar=\(held <= allowed ? "yes" : "no")")
  set = nil
}
