import ArgumentParser
import CellHandoff
import TrackIO

/// `geowake cells`: work with cell-tower files.
struct CellsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cells",
    abstract: "Work with cell-tower files (OpenCellID / Mozilla Location Service CSV).",
    subcommands: [Check.self]
  )

  /// `geowake cells check FILE`.
  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Validate a cell-tower file and summarise it.",
      discussion: """
        FILE is CSV with the OpenCellID header radio,mcc,net,area,cell,unit,lon,lat,range,samples,\
        changeable,created,updated,averageSignal (any order; the first eight columns but unit are \
        required). Every row is checked as the analyzer would load it: a known radio (GSM, UMTS, \
        LTE, NR, CDMA), codes in range, a valid position, a range of 1 m to 100 km, each cell \
        (radio, mcc, net, area, cell) once. The first problem is reported as file:line:column \
        naming the field, the value and what was expected, with exit status 65; with --lenient \
        every bad row is reported as a warning, skipped and counted.
        """ + HelpExamples.section(["geowake cells check Fixtures/cells/opencellid/ocid-diff-2022-09-10-subset.csv"])
    )

    @Argument(help: "Cell-tower CSV file.")
    var file: String

    @Flag(help: "Skip bad rows (each a warning on standard error) instead of stopping at the first.")
    var lenient = false

    func run() throws {
      let read: TowerCSVReader.TowerFile
      do { read = try TowerCSVReader.read(path: file, lenient: lenient, warning: Diagnostics.warning) } catch {
        throw Diagnostics.fail(error)
      }
      let map: TowerMap
      do { map = try TowerMap(read.towers) } catch {
        // The reader already refuses repeats and bad ranges; this is a safety net.
        Diagnostics.error("\(file): \(error)")
        throw SysExit.dataError
      }
      var text = "\(file): \(counted(read.towers.count, "cell"))"
      text += read.skippedRows > 0 ? ", \(counted(read.skippedRows, "bad row")) skipped (--lenient)\n" : ", all valid\n"
      var byRadio: [Radio: Int] = [:]
      var byCountry: [Int: Int] = [:]
      for tower in read.towers {
        byRadio[tower.identity.radio, default: 0] += 1
        byCountry[tower.identity.mcc, default: 0] += 1
      }
      text += "  radio:  " + Radio.allCases.compactMap { r in byRadio[r].map { "\(r.rawValue) \($0)" } }.joined(separator: ", ") + "\n"
      text += "  MCC:    " + byCountry.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(8).map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
        + (byCountry.count > 8 ? ", … \(byCountry.count - 8) more" : "") + "\n"
      if !read.towers.isEmpty {
        let ranges = read.towers.map(\.range).sorted()
        text += "  range:  \(Int(ranges[0])) … \(Int(ranges[ranges.count - 1])) m, median \(Int(ranges[ranges.count / 2])) m\n"
        let lats = read.towers.map(\.coordinate.latitude)
        let lons = read.towers.map(\.coordinate.longitude)
        text += "  bounds: latitude \(lats.min()!) … \(lats.max()!), longitude \(lons.min()!) … \(lons.max()!)\n"
        text += "  index:  \(map.memoryFootprint / 1024) KiB (\(map.memoryFootprint / read.towers.count) bytes per cell)\n"
      }
      let out = ByteSink.standardOutput()
      do {
        try out.write(text)
        try out.flush()
      } catch { throw Diagnostics.fail(error) }
    }
  }
}
