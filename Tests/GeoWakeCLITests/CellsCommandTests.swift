import Testing
import _GeoWakeTestSupport

@Suite("geowake cells")
struct CellsCommandTests {
  @Test func checkSummarisesTheOpenCellIDSubset() throws {
    let result = try CommandRunner.run(["cells", "check", "Fixtures/cells/opencellid/ocid-diff-2022-09-10-subset.csv"])
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

@Suite("geowake analyze with cells")
struct AnalyzeCellsTests {
  static let logs = "Fixtures/cells/drive_logs/"

  /// The drive logs name their serving cell: every change of (LACHEX, RAWCELLID) between rows is
  /// a handoff, a NetworkMode change alone is not — 39, 1 and 0 in the three logs.
  @Test(arguments: [
    ("Download__Driving__B_2020.02.14_09.38.22.csv", 39), ("Download__Driving__B_2019.12.16_11.49.59.csv", 1),
    ("Download__Static__B_2019.12.16_13.40.04.csv", 0),
  ])
  func driveLogHandoffsMatchTheLogs(file: String, handoffs: Int) throws {
    let result = try CommandRunner.run(["analyze", "--significant-changes", "--format", "jsonl", Self.logs + file])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    let handoffLines = lines.filter { $0.contains("\"event\":\"handoff\"") }
    #expect(handoffLines.count == handoffs)
    #expect(handoffLines.allSatisfy { $0.contains("\"fromCell\":\"") && $0.contains("\"toCell\":\"") })
    // The first cell named is an attach, not a handoff.
    let attaches = lines.filter { $0.contains("\"event\":\"attach\"") }
    #expect(attaches.count == 1 && attaches[0].contains("\"fromCell\":null"))
    let delivered = lines.filter { $0.contains("\"event\":\"significantChange\"") }
    #expect(delivered.count >= 1 && delivered[0].contains("monitoring started"))
    let suppressed = lines.filter { $0.contains("\"event\":\"significantChangeSuppressed\"") }
    #expect(delivered.count - 1 + suppressed.count == handoffs)
    #expect(suppressed.allSatisfy { $0.contains("\"deliveredAt\":null") && $0.contains("needs") })
    if file.contains("Static") { #expect(delivered.count == 1) }
  }

  /// 38 minutes standing on one cell: the start event only, or two periodic wakes with the option.
  @Test func periodicWakeIsAnOption() throws {
    let log = Self.logs + "Download__Static__B_2019.12.16_13.40.04.csv"
    let plain = try CommandRunner.run(["analyze", "--significant-changes", "--format", "jsonl", log])
    #expect(plain.stdout.components(separatedBy: "\"event\":\"significantChange\"").count - 1 == 1)
    let periodic = try CommandRunner.run(["analyze", "--significant-changes", "--periodic-wake", "--format", "jsonl", log])
    #expect(periodic.stdout.components(separatedBy: "periodic wake: ").count - 1 == 2)
    #expect(try CommandRunner.run(["analyze", "--periodic-wake", "--synthetic-cells", "urban", log]).status == 64)
  }

  @Test func syntheticCellsBesideRegions() throws {
    let result = try CommandRunner.run([
      "analyze", "--synthetic-cells", "urban", "--significant-changes", "--regions", "Fixtures/demo/tokyo-regions.csv",
      "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("cells: synthetic cells every 1500 m; 17 handoffs among 8 cells, 0 ping-pongs suppressed\n"))
    #expect(result.stdout.contains("significant location changes (profile ios): 8 delivered (the first at the start), 10 handoffs suppressed"))
    #expect(result.stdout.contains("aoyama-itchome    enter"))
  }

  @Test func towersFromOpenCellID() throws {
    let folder = try TemporaryFolder()
    let towers = try folder.file("towers.csv", containing: """
      radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal
      LTE,440,10,1,1,-1,139.70,35.66,3000,10,1,0,0,0
      LTE,440,10,1,2,-1,139.70,35.69,3000,10,1,0,0,0
      LTE,440,10,1,3,-1,139.73,35.67,3000,10,1,0,0,0
      """)
    let result = try CommandRunner.run(["analyze", "--towers", towers, "--format", "jsonl", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("\"toCell\":\"LTE 440-10-1-"))
    #expect(!result.stdout.contains("significantChange"))
  }

  @Test func usageErrors() throws {
    let track = "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"
    #expect(try CommandRunner.run(["analyze", track]).status == 64)
    #expect(try CommandRunner.run(["analyze", "--synthetic-cells", "50", track]).status == 64)
    #expect(try CommandRunner.run(["analyze", "--synthetic-cells", "urban", "--towers", "x.csv", track]).status == 64)
    #expect(try CommandRunner.run(["analyze", "--towers", "missing.csv", track]).status == 66)
  }
}

@Suite("geowake compare")
struct CompareCommandTests {
  static let args = ["compare", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx"]

  @Test func tableOfBothStrategies() throws {
    let result = try CommandRunner.run(Self.args + ["--profile", "ios-documented"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("strategy                            wakes  wakes/h  learned    missed  mean delay    median delay  energy\n"))
    #expect(result.stdout.contains("region monitoring (ios-documented)  13     1.7      13 of 88"))
    #expect(result.stdout.contains("significant changes (ios)           "))
    #expect(result.stdout.contains("88 real crossings (enter or exit), 11 pass-throughs between fixes that neither strategy can see"))
  }

  @Test func energyModelFile() throws {
    let folder = try TemporaryFolder()
    let model = try folder.file("energy.json", containing: #"{"wakePower": 0, "regionMonitoringPower": 0, "significantChangesPower": 0}"#)
    let result = try CommandRunner.run(Self.args + ["--energy-model", model])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("0.0 J (0.000 % of 12 Wh)"))
    let bad = try folder.file("bad.json", containing: "{\n  \"wakePowr\": 3\n}")
    let refused = try CommandRunner.run(Self.args + ["--energy-model", bad])
    #expect(refused.status == 65)
    #expect(refused.stderr.contains("bad.json:2:15: error: unknown key \"wakePowr\""))
  }
}

@Suite("geowake analyze --app")
struct AnalyzeAppTests {
  /// Every delivered region event wakes the app; a 40 s handler on 10 s wakes is killed each
  /// time and relaunched by the next event (two events 3 s apart share one wake: the second is
  /// delivered to the running app); JSON Lines carries the states and the budget.
  @Test func overrunningHandlerIsKilledAndRelaunched() throws {
    let folder = try TemporaryFolder()
    let scenario = try folder.file("app.json", containing: #"{"handlers": {"location": {"work": 40}}}"#)
    let args = [
      "analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx", "--app", scenario,
      "--profile", "ios-documented",
    ]
    let table = try CommandRunner.run(args)
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("location            12     123.2         49.3 J\n"))
    #expect(table.stdout.contains("terminations by the watchdog: 12 (handlers cut short: 13), expirations: 0\n"))
    #expect(table.stdout.contains("delivered to the running app; budget at least 10 s [background, 10.0 s left]"))
    #expect(table.stdout.contains("watchdog: the background time ran out with a handler still working; the next event launches the app again [background → notRunning]"))
    let jsonl = try CommandRunner.run(args + ["--format", "jsonl"])
    let delivered = jsonl.stdout.split(separator: "\n").filter { $0.contains("\"crossedAt\"") && !$0.contains("\"deliveredAt\":null") }.count
    #expect(delivered == 13)
    let wakes = jsonl.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"wake\"") }
    #expect(wakes.count == 12)
    #expect(wakes.allSatisfy { $0.contains("\"launchReason\":\"location\",\"stateBefore\":\"notRunning\",\"stateAfter\":\"background\",\"budgetRemaining\":10.000") })
  }

  @Test func badScenarioIsAnError() throws {
    let folder = try TemporaryFolder()
    let scenario = try folder.file("app.json", containing: #"{"handlers": {"location": {"wrk": 4}}}"#)
    let result = try CommandRunner.run(["analyze", "--regions", "Fixtures/demo/tokyo-regions.csv", "Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx", "--app", scenario])
    #expect(result.status == 65)
    #expect(result.stderr.contains("app.json:1:35: error: $.handlers.location.wrk: unknown key"))
  }
}
