import Testing
import TrackIO
import _GeoWakeTestSupport

@Suite("Track statistics")
struct TrackStatisticsTests {
  /// Counts, length (against GeographicLib) and duration (against gpxpy) of every fixture.
  @Test(arguments: GPXExpectation.all)
  func agreesWithTheReferences(_ expected: GPXExpectation) throws {
    let s = try TrackStatistics.read(path: FixtureFiles.url("gpx/" + expected.file).path)
    #expect(s.format == .gpx)
    #expect(s.tracks == expected.tracks && s.segments == expected.segments && s.trackPoints == expected.trackPoints)
    #expect(s.routes == expected.routes && s.routePoints == expected.routePoints && s.waypoints == expected.waypoints)
    #expect(s.perTrack.count == s.tracks)
    #expect(s.perTrack.reduce(0) { $0 + $1.points } == s.trackPoints)
    // The reference is printed to the millimetre; on these tracks our Karney distances agree with
    // GeographicLib to within a micrometre per segment, so the sums agree to the printed digit.
    let reference = try #require(expected.length2DGeodesic)
    #expect(abs(s.length2D - reference) <= 0.000_5 + 1e-6 * Double(s.trackPoints), "length \(s.length2D) vs \(reference)")
    if let duration = expected.duration {
      #expect(abs((s.duration ?? .nan) - duration) < 1e-3, "duration \(String(describing: s.duration)) vs \(duration)")
    } else {
      #expect(s.duration == nil)
      #expect(s.trackPointsWithoutTime > 0)
    }
    if let first = gpxpyTime(expected.firstTime), let last = gpxpyTime(expected.lastTime) {
      #expect(abs((s.firstTime ?? .nan) - first) < 1e-3 && abs((s.lastTime ?? .nan) - last) < 1e-3)
    }
    if let minLat = expected.minLat, let maxLon = expected.maxLon {
      #expect(s.bounds?.minLatitude == minLat && s.bounds?.maxLongitude == maxLon)
    } else {
      #expect(s.bounds == nil)
    }
  }

  /// The gap between two segments is neither length nor duration.
  @Test func segmentsAreMeasuredSeparately() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file(
      "two.gpx",
      containing: """
        <gpx version="1.1"><trk><trkseg>
        <trkpt lat="0" lon="0"><time>2024-01-01T00:00:00Z</time></trkpt>
        <trkpt lat="0" lon="0.001"><time>2024-01-01T00:00:10Z</time></trkpt>
        </trkseg><trkseg>
        <trkpt lat="10" lon="10"><time>2024-01-01T05:00:00Z</time></trkpt>
        <trkpt lat="10" lon="10.001"><time>2024-01-01T05:00:30Z</time></trkpt>
        </trkseg></trk><wpt lat="-5" lon="20"/></gpx>
        """)
    let s = try TrackStatistics.read(path: path)
    // 0.001° of longitude: 111.319491 m on the equator, 109.639364 m at 10° (GeographicLib Inverse).
    #expect(abs(s.length2D - (111.319_491 + 109.639_364)) < 1e-3, "\(s.length2D)")
    #expect(s.duration == 40)
    #expect(s.perTrack == [s.perTrack[0]] && s.perTrack[0].segments == 2)
    #expect(s.bounds == TrackStatistics.Bounds(minLatitude: -5, maxLatitude: 10, minLongitude: 0, maxLongitude: 20))
    #expect(s.firstTime == 1_704_067_200 && s.lastTime == 1_704_067_200 + 5 * 3600 + 30)
  }

  /// A CSV track is one track of one segment.
  @Test func csvTracksAreOneSegment() throws {
    let gpx = try TrackStatistics.read(path: FixtureFiles.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx").path)
    let csv = try TrackStatistics.read(path: FixtureFiles.url("demo/tokyo-track.csv").path)
    #expect(csv.format == .csv)
    #expect(csv.tracks == 1 && csv.segments == 1 && csv.trackPoints == gpx.trackPoints)
    #expect(csv.duration == gpx.duration)
    #expect(abs(csv.length2D - gpx.length2D) < 1e-6)
  }

  /// A file of many devices (a device column, their lines interleaved at random) gives each
  /// device a track of its own, equal to the statistics of a file of that device's fixes alone;
  /// counts, bounds and times stay the file's. CSV and JSON Lines alike, for several seeds.
  @Test(arguments: [1, 2, 3] as [UInt64])
  func eachDeviceIsATrack(seed: UInt64) throws {
    let folder = try TemporaryFolder()
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    func unit() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) * 0x1p-53
    }
    let names = ["van-\(seed)", "bike", "7"]
    var rows: [(device: Int, time: Double, lat: Double, lon: Double)] = []
    for k in names.indices {
      var (lat, lon) = (35 + unit(), 139 + unit())
      for i in 0..<(5 + Int(unit() * 40)) {
        lat += (unit() - 0.5) * 0.002
        lon += (unit() - 0.5) * 0.002
        rows.append((k, 1_714_546_800 + Double(i) * 30 + Double(k), lat, lon))
      }
    }
    // Interleaved at random, each device's own fixes still in order.
    var queues = names.indices.map { k in rows.filter { $0.device == k } }
    var interleaved: [(device: Int, time: Double, lat: Double, lon: Double)] = []
    while queues.contains(where: { !$0.isEmpty }) {
      let k = queues.indices.filter { !queues[$0].isEmpty }[Int(unit() * 1e6) % queues.filter { !$0.isEmpty }.count]
      interleaved.append(queues[k].removeFirst())
    }
    func csv(_ rows: [(device: Int, time: Double, lat: Double, lon: Double)]) -> String {
      "device,time,lat,lon\n" + rows.map { "\(names[$0.device]),\(Int($0.time)),\($0.lat),\($0.lon)\n" }.joined()
    }
    func jsonl(_ rows: [(device: Int, time: Double, lat: Double, lon: Double)]) -> String {
      rows.map { #"{"device":"\#(names[$0.device])","time":\#(Int($0.time)),"lat":\#($0.lat),"lon":\#($0.lon)}"# + "\n" }.joined()
    }
    for (ext, write) in [("csv", csv), ("jsonl", jsonl)] {
      let fleet = try TrackStatistics.read(path: try folder.file("fleet.\(ext)", containing: write(interleaved)))
      // In the order the devices first appear.
      #expect(fleet.devices == names.indices.sorted { a, b in
        interleaved.firstIndex { $0.device == a }! < interleaved.firstIndex { $0.device == b }!
      }.map { names[$0] }, "\(ext)")
      #expect(fleet.tracks == 3 && fleet.segments == 3 && fleet.perTrack.count == 3 && fleet.trackPoints == rows.count)
      var length = 0.0
      for k in names.indices {
        let alone = try TrackStatistics.read(path: try folder.file("alone\(k).\(ext)", containing: write(rows.filter { $0.device == k })))
        #expect(alone.devices == [names[k]])
        #expect(fleet.perTrack[fleet.devices.firstIndex(of: names[k]) ?? -1] == alone.perTrack[0], "\(ext) device \(k)")
        length += alone.length2D
      }
      #expect(abs(fleet.length2D - length) <= 1e-9 * length)
      #expect(fleet.firstTime == interleaved.first?.time && fleet.lastTime == interleaved.last?.time)
      #expect(fleet.trackPointsBackInTime == 0)
      // Without a device column: one track, as before.
      let plain = try TrackStatistics.read(path: try folder.file("plain.\(ext)", containing: ext == "csv"
        ? "time,lat,lon\n" + rows.filter { $0.device == 0 }.map { "\(Int($0.time)),\($0.lat),\($0.lon)\n" }.joined()
        : rows.filter { $0.device == 0 }.map { #"{"time":\#(Int($0.time)),"lat":\#($0.lat),"lon":\#($0.lon)}"# + "\n" }.joined()))
      #expect(plain.devices.isEmpty && plain.tracks == 1)
    }
  }
}
