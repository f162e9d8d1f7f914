import CellHandoff
import Foundation
import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("Tower CSV reader")
struct TowerCSVReaderTests {
  static let subset = "cells/opencellid/ocid-diff-2022-09-10-subset.csv"
  static let header = "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n"

  /// The OpenCellID subset loads completely, with the radio mix its SOURCES entry states.
  @Test func openCellIDSubsetLoadsCompletely() throws {
    let file = try TowerCSVReader.read(path: FixtureFiles.url(Self.subset).path)
    #expect(file.towers.count == 1_780 && file.skippedRows == 0)
    var byRadio: [Radio: Int] = [:]
    for t in file.towers { byRadio[t.identity.radio, default: 0] += 1 }
    #expect(byRadio == [.lte: 1_215, .gsm: 458, .umts: 89, .cdma: 16, .nr: 2])
    let first = file.towers[0]
    #expect(first.identity == CellIdentity(radio: .gsm, mcc: 242, net: 1, area: 11901, cell: 3722))
    #expect(first.coordinate.latitude == 59.887823 && first.coordinate.longitude == 10.687703 && first.range == 3_570)
    #expect(first.samples == 200 && first.isEstimated && first.created == 1_311_269_141 && first.updated == 1_662_693_985)
    #expect(file.towers.contains { $0.identity.cell > 1 << 28 })  // NR cell identities
    let map = try TowerMap(file.towers)
    #expect(map.count == 1_780)
  }

  @Test(arguments: [
    ("GSM,242,1,11901,3722,0,10.68,59.88,3570,200,1,1311269141,1662693985,0\nWIMAX,242,1,1,1,0,10,59,100,1,1,0,0,0\n",
     "3:1: error: radio \"WIMAX\": expected GSM, UMTS, LTE, NR or CDMA"),
    ("LTE,1000,1,1,1,0,10,59,100,1,1,0,0,0\n", "2:5: error: mcc \"1000\": expected a mobile country code 0...999"),
    ("LTE,242,x,1,1,0,10,59,100,1,1,0,0,0\n", "2:9: error: net \"x\": expected a network code 0...999 (CDMA SID 0...32767)"),
    ("LTE,242,1,1,1,0,10,95,100,1,1,0,0,0\n", "2:20: error: latitude 95.0 is out of range: expected a finite value in -90...90"),
    ("LTE,242,1,1,1,0,10,59,0,1,1,0,0,0\n", "2:23: error: range \"0\": expected metres in 1...100000"),
    ("LTE,242,1,1,1,0,10,59,100,1,2,0,0,0\n", "2:29: error: changeable \"2\": expected 0 or 1"),
    ("LTE,242,1,1,1,0,10,59,100\n", "2:1: error: 9 fields: expected 14, as in the header"),
    ("LTE,242,1,1,1,0,10,59,100,1,1,0,0,0\nLTE,242,1,1,1,0,11,60,100,1,1,0,0,0\n",
     "3:1: error: cell LTE 242-1-1-1 repeats line 2: expected each cell once"),
  ])
  func badRowsAreLocated(_ rows: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("cells.csv", containing: Self.header + rows)
    do {
      _ = try TowerCSVReader.read(path: path)
      Issue.record("accepted")
    } catch {
      #expect(error.description == "\(path):\(expected)")
    }
    // Lenient: the bad row is skipped and reported, the good ones kept.
    var warnings: [TrackIOError] = []
    let file = try TowerCSVReader.read(path: path, lenient: true) { warnings.append($0) }
    #expect(file.skippedRows == 1 && warnings.count == 1)
    #expect(warnings.first?.warningDescription == "\(path):\(expected.replacingOccurrences(of: "error: ", with: "warning: "))"
      + "; recovered: skipped the row")
    #expect(file.towers.count == rows.split(separator: "\n").count - 1)
  }

  @Test func headerMustNameTheColumns() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("cells.csv", containing: "radio,mcc,net,area,lon,lat,range\n")
    #expect(throws: TrackIOError.self) { try TowerCSVReader.read(path: path) }
    let empty = try folder.file("empty.csv", containing: "")
    #expect(throws: TrackIOError.self) { try TowerCSVReader.read(path: empty) }
  }
}
