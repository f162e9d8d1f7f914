import Foundation
import Testing
import _GeoWakeTestSupport

#if canImport(FoundationXML)
  import FoundationXML
#endif

@Suite("geowake fidelity")
struct FidelityCommandTests {
  static let dataset = "Fixtures/fidelity/mobilitynet"

  static func platforms(_ arguments: [String]) throws -> [String: [String: Any]] {
    let result = try CommandRunner.run(["fidelity", dataset, "--format", "jsonl"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    var found: [String: [String: Any]] = [:]
    for line in result.stdout.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      if object["kind"] as? String == "platform" { found[object["platform"] as! String] = object }
    }
    return found
  }

  /// The calibrated profiles against the measured departures: medians and 90th percentiles within
  /// ±25 %, the share with no exit within 10 points, a Kolmogorov–Smirnov distance of at most
  /// 0.25. The documented iOS rules are far slower than the phones, which this test can tell.
  @Test func calibratedProfilesMatchTheMeasuredPhones() throws {
    for (platform, summary) in try Self.platforms(["--seeds", "10"]) {
      let measured = try #require(summary["measured"] as? [String: Any])
      let predicted = try #require(summary["predicted"] as? [String: Any])
      for key in ["median", "p90"] {
        let m = try #require(measured[key] as? Double), p = try #require(predicted[key] as? Double)
        #expect(abs(p / m - 1) <= 0.25, "\(platform) \(key): predicted \(p) s, measured \(m) s")
      }
      func share(_ s: [String: Any]) -> Double { Double(s["missed"] as! Int) / Double(s["count"] as! Int) }
      #expect(abs(share(predicted) - share(measured)) <= 0.10, "\(platform)")
      #expect(try #require(summary["ks"] as? Double) <= 0.25, "\(platform)")
    }
    let documented = try Self.platforms(["--seeds", "3", "--ios-profile", "ios-documented", "--android-profile", "android-documented"])
    let ios = try #require(documented["ios"])
    let measured = (ios["measured"] as! [String: Any])["median"] as! Double
    let predicted = (ios["predicted"] as! [String: Any])["median"] as! Double
    #expect(predicted > 1.5 * measured)
    #expect(try #require(ios["ks"] as? Double) > 0.5)
  }

  @Test func tableAndPageNameTheProfiles() throws {
    let table = try CommandRunner.run(["fidelity", Self.dataset, "--seeds", "2"])
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("ios: 57 departures compared, profile ios, 2 seeds (1 to 2)\n"))
    #expect(table.stdout.contains("android: 45 departures compared (6 with a premature measured exit left out), profile android, 2 seeds (1 to 2)\n"))
    let premature = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("android2_20190724T0751_mtv_to_berkeley_sf_bart ") })
    #expect(premature.contains(" android   -215 s ") && premature.hasSuffix("premature measured exit: not compared"))
    let html = try CommandRunner.run(["fidelity", Self.dataset, "--seeds", "2", "--format", "html"])
    #expect(html.status == 0)
    #expect(html.stdout.components(separatedBy: "<path class=\"measured\"").count == 3)
    #expect(html.stdout.contains("<h2>ios: profile ios</h2>"))
    #expect(try CommandRunner.run(["fidelity", Self.dataset, "--seeds", "2"]).stdout == table.stdout)
  }

  /// `--published`: every published measurement with GeoWake's value, its difference and the
  /// verdict, in all three formats; it excludes a data set, and one of the two is needed.
  @Test func publishedMeasurements() throws {
    let table = try CommandRunner.run(["fidelity", "--published", "--seeds", "1"])
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.hasPrefix("published measurements of phones against the profiles on synthetic data (data seed 1, 1 replay seeds;"))
    #expect(table.stdout.contains("\nentries reported, 10 m fences "))
    #expect(table.stdout.contains(" of 17 within ±20 % of the published value\n"))
    #expect(table.stdout.contains("reproduced by: 360 synthetic walks × 1 seeds, ios and android8\n"))
    let jsonl = try CommandRunner.run(["fidelity", "--published", "--seeds", "1", "--format", "jsonl"])
    let rows = jsonl.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    #expect(rows.count == 17 && rows.allSatisfy { $0 != nil })
    for key in ["measurement", "source", "unit", "published", "reproduced", "difference", "withinTolerance", "reproducedBy"] {
      #expect(rows.allSatisfy { $0?[key] != nil }, "\(key)")
    }
    let html = try CommandRunner.run(["fidelity", "--published", "--seeds", "1", "--format", "html"])
    #expect(html.status == 0)
    let parser = XMLParser(data: Data(html.stdout.utf8))
    #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
    #expect(html.stdout.components(separatedBy: "<span class=\"range\">").count - 1 == 17)
    let neither = try CommandRunner.run(["fidelity"])
    #expect(neither.status == 64 && neither.stderr.contains("give a DATASET folder, or --published"))
    let both = try CommandRunner.run(["fidelity", Self.dataset, "--published"])
    #expect(both.status == 64 && both.stderr.contains("give it without a DATASET"))
  }

  /// The Android profile follows each phone's `os`: before 8, `android`; from 8, `android8`; an
  /// `os` naming no version is replayed with `android`, with a warning at its line.
  @Test func androidProfileByTheOSColumn() throws {
    let folder = try TemporaryFolder()
    let base = folder.url.path
    for id in ["old", "new", "odd"] {
      try FileManager.default.createDirectory(atPath: base + "/" + id, withIntermediateDirectories: true)
      _ = try folder.file("\(id)/track.csv", containing: "time,lat,lon,accuracy\n" + (0...400).map { "\(1_000 + $0),\(37.39 + Double($0) * 0.00001),-122.08,5" }.joined(separator: "\n") + "\n")
      _ = try folder.file("\(id)/fence.csv", containing: "id,lat,lon,radius\nhome,37.39,-122.08,100\n")
    }
    _ = try folder.file(
      "departures.csv",
      containing: "id,platform,os,departure_time,exit_time\nold,android,Android 6.0.1,1000,1200\nnew,android,Android 14,1000,1200\nodd,android,Android,1000,1200\n")
    let run = try CommandRunner.run(["fidelity", base, "--seeds", "2"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("profile android+android8, 2 seeds"))
    #expect(run.stderr.contains("departures.csv:4:1: warning: os \"Android\" names no version: replayed with android (as before Android 8)"))
    let chosen = try CommandRunner.run(["fidelity", base, "--seeds", "2", "--android-profile", "android8"])
    #expect(chosen.stdout.contains("profile android8, 2 seeds") && chosen.stderr.isEmpty)
  }

  @Test func badDataSetsAreLocated() throws {
    let folder = try TemporaryFolder()
    let base = folder.url.path
    #expect(try CommandRunner.run(["fidelity", base + "/missing"]).status == 66)
    _ = try folder.file("departures.csv", containing: "id,platform,departure_time,exit_time\na,windows,1,2\n")
    let platform = try CommandRunner.run(["fidelity", base])
    #expect(platform.status == 65)
    #expect(platform.stderr.contains("departures.csv:2:3: error: platform \"windows\" is not known: expected ios or android"))
    _ = try folder.file("departures.csv", containing: "id,platform,departure_time,exit_time\n../x,ios,1,2\n")
    #expect(try CommandRunner.run(["fidelity", base]).stderr.contains("id \"../x\" is not a folder name"))
    _ = try folder.file("departures.csv", containing: "id,platform,departure_time,exit_time\na,ios,1,soon\n")
    #expect(try CommandRunner.run(["fidelity", base]).stderr.contains("departures.csv:2:9: error: exit_time \"soon\" is not a time"))
    _ = try folder.file("departures.csv", containing: "id,platform,departure_time,exit_time\na,ios,100,200\n")
    try FileManager.default.createDirectory(atPath: base + "/a", withIntermediateDirectories: true)
    _ = try folder.file("a/track.csv", containing: "time,lat,lon\n90,37.39,-122.08\n80,37.39,-122.08\n")
    _ = try folder.file("a/fence.csv", containing: "id,lat,lon,radius\nhome,37.39,-122.08,100\nwork,37.4,-122.1,100\n")
    let order = try CommandRunner.run(["fidelity", base])
    #expect(order.status == 65)
    #expect(order.stderr.contains("a/track.csv:3:1: error: time is earlier than the fix before"))
    _ = try folder.file("a/track.csv", containing: "time,lat,lon\n80,37.39,-122.08\n90,37.39,-122.08\n")
    let fences = try CommandRunner.run(["fidelity", base])
    #expect(fences.status == 65)
    #expect(fences.stderr.contains("a/fence.csv:1:1: error: 2 regions: expected one circle, the fence"))
    _ = try folder.file("departures.csv", containing: "id,platform,departure_time,exit_time\n")
    #expect(try CommandRunner.run(["fidelity", base]).status == 65)
    #expect(try CommandRunner.run(["fidelity", Self.dataset, "--ios-profile", "windows"]).status == 64)
  }
}
