import ArgumentParser
import Geofencing
import TrackIO

/// `geowake regions`: work with region files.
struct RegionsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "regions",
    abstract: "Work with region files.",
    subcommands: [Check.self]
  )

  /// `geowake regions check FILE`.
  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Validate a region file (CSV, GeoJSON or JSON) and summarise it.",
      discussion: """
        Every region is checked as the analyzer would load it: coordinates in range, radius \
        positive, polygons valid (GEOS), identifiers unique. The first problem is reported as \
        file:line:column with exit status 65.
        """ + HelpExamples.section(["geowake regions check Fixtures/demo/tokyo-regions.csv"])
    )

    @Argument(help: "Region file.")
    var file: String

    func run() throws {
      let regionFile: RegionFile
      do { regionFile = try RegionFileReader.readValidated(path: file) } catch { throw Diagnostics.fail(error) }
      var circles = 0
      var polygons = 0
      var smallest = Double.infinity
      var largest = 0.0
      for region in regionFile.regions {
        if case .circle(let c) = region {
          circles += 1
          smallest = min(smallest, c.radius)
          largest = max(largest, c.radius)
        } else {
          polygons += 1
        }
      }
      var text = "\(file): \(counted(regionFile.regions.count, "region")), all valid: "
        + counted(circles, "circle")
      if circles > 0 { text += " (radius \(smallest) … \(largest) m)" }
      text += ", \(counted(polygons, "polygon"))\n"
      // Regions that do not want both notifications (the others do).
      for (id, n) in regionFile.notifications.sorted(by: { $0.key < $1.key }) {
        let wants = n.contains(.entry) ? "entry only" : n.contains(.exit) ? "exit only" : "neither entry nor exit"
        text += "  \(id.rawValue): notifies on \(wants)\n"
      }
      if let limit = RegionMonitoringProfile.ios.maximumRegions, regionFile.regions.count > limit {
        text += "note: the ios profile monitors at most \(limit) regions; the last \(regionFile.regions.count - limit) will fail\n"
      }
      let out = ByteSink.standardOutput()
      do {
        try out.write(text)
        try out.flush()
      } catch { throw Diagnostics.fail(error) }
    }
  }
}
