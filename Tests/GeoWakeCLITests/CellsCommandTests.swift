import Testing
import _GeoWakeTestSupport

@Suite("geowake cells")
struct CellsCommandTests {
  @Test func checkSummarisesTheOpenCellIDSubset() throws {
    let result = try CommandRunner.run(["cells", "check", "Fixtures/cells/opencellid/ocid_diff_2022-09-10_subset_mcc272_505_242_216_cdma_nr.csv"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(": 1780 cells, all valid\n"))
    #expect(result.stdout.contains("  radio:  GSM 458, UMTS 89, CDMA 16, LTE 1215, NR 2\n"))
    #expect(result.stdout.contains("  range:  500 … 64258 m, median 1000 m\n"))
  }

  @Test func badRowsStopOrAreSkipped() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("cells.csv", containing: """
      radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal
      LTE,272,1,100,5,-1,-8.47,51.89,1200,3,1,0,0,0
      LTE,272,1,100,6,-1,-8.47,51.89,-5,3,1,0,0,0
      """)
    let strict = try CommandRunner.run(["cells", "check", path])
    #expect(strict.status == 65)
    #expect(strict.stderr == "\(path):3:32: error: range \"-5\": expected metres in 1...100000\n")
    let lenient = try CommandRunner.run(["cells", "check", "--lenient", path])
    #expect(lenient.status == 0)
    #expect(lenient.stdout.hasPrefix("\(path): 1 cell, 1 bad row skipped (--lenient)\n"))
    #expect(lenient.stderr.contains(":3:32: warning: range \"-5\""))
    #expect(try CommandRunner.run(["cells", "check", folder.url.path + "/missing.csv"]).status == 66)
  }
}
