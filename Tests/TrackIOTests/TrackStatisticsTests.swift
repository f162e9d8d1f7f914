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
}
