import Geodesy

/// What a track file holds, summarised the way gpxpy's `gpxinfo` does: counts, bounds, first and
/// last times, length and duration — computed in one streaming pass, in bounded memory.
///
/// - **Length** (``length2D``): the sum, over every track segment, of the WGS84 geodesic
///   distances between consecutive track points (see `PathLength`: steps up to 1 km from their
///   chord, within 0.52 µm each; longer ones by Karney's algorithm). Routes and waypoints add
///   nothing; the gap between two segments adds nothing.
/// - **Duration** (``duration``): the sum, over every track segment, of its time span (latest
///   minus earliest time among its points). `nil` when some track point has no time, because the
///   duration is then not known (gpxpy also gives none for such files).
/// - **Times** (``firstTime``, ``lastTime``): those of the first and last timed track points in
///   document order; ``earliestTime`` and ``latestTime``, the extremes wherever they lie.
/// - **Bounds** (``bounds``): of every track point, route point and waypoint.
/// - **Sensors** (``heartRate``, ``cadence``, ``power``, ``temperature``): the range and mean of
///   the values GPX track points carry in their extensions (see ``GPXPoint``), over the track
///   points that carry each.
///
/// ```swift
/// let statistics = try TrackStatistics.read(path: "ride.gpx")
/// print(statistics.length2D, statistics.duration ?? .nan)
/// ```
public struct TrackStatistics: Hashable, Sendable {
  /// The file's format.
  public enum Format: String, Hashable, Sendable {
    case gpx
    case csv
    case jsonLines
    case geojson
    case locationHistory

    /// The format's name, as people write it.
    public var name: String {
      switch self {
      case .gpx: "GPX"
      case .csv: "CSV"
      case .jsonLines: "JSON Lines"
      case .geojson: "GeoJSON"
      case .locationHistory: "Google location history"
      }
    }
  }

  /// Latitude and longitude extremes, in degrees.
  public struct Bounds: Hashable, Sendable {
    public var minLatitude, maxLatitude, minLongitude, maxLongitude: Double

    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
      self.minLatitude = minLatitude
      self.maxLatitude = maxLatitude
      self.minLongitude = minLongitude
      self.maxLongitude = maxLongitude
    }
  }

  /// A sensor's readings over the track points that carry it.
  public struct Readings: Hashable, Sendable {
    /// Track points with a reading.
    public private(set) var points = 0
    public private(set) var minimum = Double.infinity
    public private(set) var maximum = -Double.infinity
    private var sum = CompensatedSum()

    /// The mean reading; nil without any.
    public var mean: Double? { points > 0 ? sum.value / Double(points) : nil }

    public init() {}

    /// Takes one reading.
    public mutating func add(_ value: Double) {
      points += 1
      minimum = min(minimum, value)
      maximum = max(maximum, value)
      sum.add(value)
    }

    /// Takes the readings of `other` too.
    mutating func join(_ other: Readings) {
      points += other.points
      minimum = min(minimum, other.minimum)
      maximum = max(maximum, other.maximum)
      sum.add(other.sum)
    }
  }

  /// One track (`trk`) of the file.
  public struct Track: Hashable, Sendable {
    /// Segments holding at least one point.
    public var segments = 0
    public var points = 0
    /// Points without a `time`.
    public var pointsWithoutTime = 0
    /// Metres, geodesic, along its segments.
    public var length2D = 0.0
    /// Seconds: the sum of its segments' time spans; `nil` when a point has no time.
    public var duration: Double? { pointsWithoutTime == 0 ? timeSpan : nil }
    /// ``length2D``'s sum, and that of the segments' time spans (see ``CompensatedSum``).
    var lengthSum = CompensatedSum()
    var timeSpanSum = CompensatedSum()
    public var firstTime: Double?
    public var lastTime: Double?
    var timeSpan: Double { timeSpanSum.value }

    /// Adds a step of `metres`.
    mutating func addStep(_ metres: Double) {
      lengthSum.add(metres)
      length2D = lengthSum.value
    }

    public init() {}
  }

  public var format: Format
  /// The GPX `version` attribute, if any.
  public var version: String?
  /// Whether the file is gzip-compressed (it was read inflated).
  public var compressed = false
  public var tracks = 0
  /// Track segments, empty ones included.
  public var segments = 0
  public var emptySegments = 0
  public var trackPoints = 0
  public var trackPointsWithoutTime = 0
  public var routes = 0
  public var routePoints = 0
  public var waypoints = 0
  /// Seconds since the epoch of the first timed track point in document order.
  public var firstTime: Double?
  /// Seconds since the epoch of the last timed track point in document order.
  public var lastTime: Double?
  /// Seconds since the epoch of the earliest timed track point, wherever it is in the file.
  public var earliestTime: Double?
  /// Seconds since the epoch of the latest timed track point, wherever it is in the file.
  public var latestTime: Double?
  /// Track points at exactly 0°, 0°, where a receiver without a position writes zeros.
  public var trackPointsAtZero = 0
  /// Timed track points dated earlier than the timed point before them in their segment: a
  /// clock that jumped back, or points out of order.
  public var trackPointsBackInTime = 0
  /// `nil` for a file without points.
  public var bounds: Bounds?
  /// Metres: WGS84 geodesic length along the track segments.
  public var length2D = 0.0
  /// Per track, in document order (for a file that names devices, per device: see ``devices``).
  public var perTrack: [Track] = []
  /// The devices a CSV or JSON Lines file names (a `device` column or member), in the order they
  /// first appear; each is a track of its own. Empty when the file names none.
  public var devices: [String] = []
  /// Heart rate (beats per minute) over the track points that give it.
  public var heartRate = Readings()
  /// Cadence (revolutions per minute) over the track points that give it.
  public var cadence = Readings()
  /// Power (watts) over the track points that give it.
  public var power = Readings()
  /// Temperature (°C) over the track points that give it.
  public var temperature = Readings()

  /// Seconds: the sum of the segments' time spans; `nil` when some track point has no time.
  public var duration: Double? {
    guard trackPointsWithoutTime == 0 else { return nil }
    var total = CompensatedSum()
    for track in perTrack { total.add(track.timeSpanSum) }
    return total.value
  }

  /// ``length2D``'s sum (see ``CompensatedSum``).
  private var lengthSum = CompensatedSum()

  /// Adds a step of `metres` to the whole track's length.
  private mutating func addStep(_ metres: Double) {
    lengthSum.add(metres)
    length2D = lengthSum.value
  }

  // The segment being accumulated.
  private var segment = -1
  private var segmentTrack = -1
  private var path = PathLength()
  private var segmentEarliest = Double.infinity
  private var segmentLatest = -Double.infinity
  /// The time of the segment's last timed point so far.
  private var segmentPrevious = -Double.infinity

  // Statistics of a part of a file that starts inside a segment (``init(continuingSegmentOf:)``):
  // its first segment (segment 0 of track 0) goes on from points it has not seen, so its first
  // point, first time and time span are kept apart for ``joining(_:_:_:_:)``.
  private var continuesSegment = false
  private var headCoordinate: Coordinate?
  private var headFirstTime: Double?
  private var headEarliest = Double.infinity
  private var headLatest = -Double.infinity

  /// Empty statistics for a file of `format`; feed it with ``add(_:)`` and ``finish(_:)``.
  public init(format: Format) {
    self.format = format
  }

  /// Empty statistics for the part of a GPX file from a track point on, fed with points whose
  /// ``GPXPoint/parent`` and ``GPXPoint/segment`` count from the track and segment open there
  /// (``GPXReader/init(resuming:path:from:lenient:)``), to be joined to the part before it.
  init(continuingSegmentOf format: Format) {
    self.format = format
    continuesSegment = true
  }

  /// Reads the file at `path`: GPX, or CSV, JSON Lines or GeoJSON fixes (one track, one segment); see
  /// ``TrackFileReader/format(path:)``. `lenient` recovers from damage in a GPX file (see
  /// ``GPXReader``), calling `warning` with each recovery as it is made (and with a CSV file's
  /// warnings, such as a last line that may be cut short). `assumeUTC` reads CSV and JSON Lines
  /// times without a zone as UTC (see ``TrackFileReader/Options``).
  public static func read(
    path: String, lenient: Bool = false, assumeUTC: Bool = false, warning: (TrackIOError) -> Void = { _ in }
  ) throws(TrackIOError) -> TrackStatistics {
    var statistics = try readUncompressed(path: path, lenient: lenient, assumeUTC: assumeUTC, warning: warning)
    statistics.compressed = TrackFileReader.isCompressed(path)
    return statistics
  }

  private static func readUncompressed(
    path: String, lenient: Bool, assumeUTC: Bool, warning: (TrackIOError) -> Void
  ) throws(TrackIOError) -> TrackStatistics {
    if try TrackFileReader.readsAsGPX(path: path) {
      return try readGPX(path: path, lenient: lenient, warning: warning).statistics
    }
    // Parsing on a thread of its own, measuring on this one.
    let reader = ReadAheadTrackReader(try TrackFileReader(path: path, options: .init(assumeUTC: assumeUTC)))
    let format: Format
    switch reader.format {
    case .jsonLines: format = .jsonLines
    case .geoJSON: format = .geojson
    case .locationHistory: format = .locationHistory
    case .csv, .gpx: format = .csv
    }
    var statistics = TrackStatistics(format: format)
    // A file that names devices: each device's fixes are a track of their own, however the
    // devices' lines interleave.
    var perDevice: [TrackStatistics] = []
    var line = 0
    while let fix = try reader.next() {
      var point = GPXPoint(kind: .track, parent: 0, segment: 0, coordinate: fix.coordinate, line: line)
      point.time = fix.time
      statistics.add(point)
      let device = reader.deviceIndex
      if device >= 0 {
        while perDevice.count <= device { perDevice.append(TrackStatistics(format: format)) }
        perDevice[device].add(point)
      }
      line += 1
    }
    reader.takeWarnings().forEach(warning)
    var summary = GPXSummary()
    summary.tracks = line > 0 ? 1 : 0
    summary.segments = summary.tracks
    summary.trackPoints = line
    statistics.finish(summary)
    if !perDevice.isEmpty { statistics.takeTracks(of: perDevice, named: reader.devices) }
    return statistics
  }

  /// Makes each device's statistics (fed with its fixes only, unfinished) a track of these,
  /// which were fed with every fix: tracks, segments, per-track figures, the length and the
  /// points dated before the one before them are then per device; counts, bounds, times and
  /// readings stay the file's.
  private mutating func takeTracks(of devices: [TrackStatistics], named names: [String]) {
    self.devices = names
    tracks = devices.count
    segments = devices.count
    perTrack = []
    lengthSum = CompensatedSum()
    trackPointsBackInTime = 0
    for var device in devices {
      var summary = GPXSummary()
      summary.tracks = 1
      summary.segments = 1
      summary.trackPoints = device.perTrack.first?.points ?? 0
      device.finish(summary)
      perTrack.append(device.perTrack[0])
      lengthSum.add(device.lengthSum)
      trackPointsBackInTime += device.trackPointsBackInTime
    }
    length2D = lengthSum.value
  }

  /// Takes one point, in document order.
  public mutating func add(_ point: GPXPoint) {
    let c = point.coordinate
    if var b = bounds {
      b.minLatitude = min(b.minLatitude, c.latitude)
      b.maxLatitude = max(b.maxLatitude, c.latitude)
      b.minLongitude = min(b.minLongitude, c.longitude)
      b.maxLongitude = max(b.maxLongitude, c.longitude)
      bounds = b
    } else {
      bounds = Bounds(minLatitude: c.latitude, maxLatitude: c.latitude, minLongitude: c.longitude, maxLongitude: c.longitude)
    }
    guard point.kind == .track else { return }
    while perTrack.count <= point.parent { perTrack.append(Track()) }
    if point.segment != segment {
      closeSegment(startingAt: point)
      perTrack[point.parent].segments += 1
    }
    perTrack[point.parent].points += 1
    if let v = point.heartRate { heartRate.add(v) }
    if let v = point.cadence { cadence.add(v) }
    if let v = point.power { power.add(v) }
    if let v = point.temperature { temperature.add(v) }
    let d = path.add(c)
    addStep(d)
    perTrack[point.parent].addStep(d)
    if c.latitude == 0 && c.longitude == 0 { trackPointsAtZero += 1 }
    if let t = point.time {
      if firstTime == nil { firstTime = t }
      lastTime = t
      earliestTime = min(earliestTime ?? t, t)
      latestTime = max(latestTime ?? t, t)
      if perTrack[point.parent].firstTime == nil { perTrack[point.parent].firstTime = t }
      perTrack[point.parent].lastTime = t
      segmentEarliest = min(segmentEarliest, t)
      segmentLatest = max(segmentLatest, t)
      if continuesSegment && segment == 0 && headFirstTime == nil { headFirstTime = t }
      if t < segmentPrevious { trackPointsBackInTime += 1 }
      segmentPrevious = t
    } else {
      trackPointsWithoutTime += 1
      perTrack[point.parent].pointsWithoutTime += 1
    }
    segmentTrack = point.parent
  }

  private mutating func closeSegment(startingAt point: GPXPoint?) {
    if continuesSegment && segment == 0 {
      headEarliest = segmentEarliest
      headLatest = segmentLatest
    } else if segmentTrack >= 0 && segmentLatest >= segmentEarliest {
      perTrack[segmentTrack].timeSpanSum.add(segmentLatest - segmentEarliest)
    }
    if continuesSegment && point?.segment == 0 { headCoordinate = point?.coordinate }
    segment = point?.segment ?? -1
    path.breakPath()
    segmentEarliest = .infinity
    segmentLatest = -.infinity
    segmentPrevious = -.infinity
  }

  /// The statistics of a whole file from those of its two parts: `front`, fed with the points
  /// before a track point and not finished, what its reader counted there (`frontSummary`); and
  /// `back` (``init(continuingSegmentOf:)``), fed with the points from that one on and finished
  /// with its reader's counts (`backSummary`). Equal to statistics fed with every point: lengths,
  /// durations and sensor readings are sums that do not depend on how their terms are grouped
  /// (``CompensatedSum``).
  static func joining(
    _ front: TrackStatistics, _ frontSummary: GPXSummary, _ back: TrackStatistics, _ backSummary: GPXSummary
  ) -> TrackStatistics {
    var joined = front
    // The track and segment open where `back` starts.
    let track = frontSummary.tracks - 1
    let frontInSegment = joined.segment == frontSummary.segments - 1
    if !frontInSegment { joined.closeSegment(startingAt: nil) }
    while joined.perTrack.count <= track { joined.perTrack.append(Track()) }
    var first = back.perTrack[0]
    // The step into `back`'s first point, and its first time against the segment's last.
    if frontInSegment, let c = back.headCoordinate {
      let step = joined.path.add(c)
      joined.addStep(step)
      joined.perTrack[track].addStep(step)
    }
    if frontInSegment, let t = back.headFirstTime, t < joined.segmentPrevious { joined.trackPointsBackInTime += 1 }
    let earliest = min(frontInSegment ? joined.segmentEarliest : .infinity, back.headEarliest)
    let latest = max(frontInSegment ? joined.segmentLatest : -.infinity, back.headLatest)
    if latest >= earliest { joined.perTrack[track].timeSpanSum.add(latest - earliest) }
    // Both counted the segment when they had a point of it.
    if frontInSegment { first.segments -= 1 }
    joined.perTrack[track].segments += first.segments
    joined.perTrack[track].points += first.points
    joined.perTrack[track].pointsWithoutTime += first.pointsWithoutTime
    joined.perTrack[track].lengthSum.add(first.lengthSum)
    joined.perTrack[track].length2D = joined.perTrack[track].lengthSum.value
    joined.perTrack[track].timeSpanSum.add(first.timeSpanSum)
    if joined.perTrack[track].firstTime == nil { joined.perTrack[track].firstTime = first.firstTime }
    if let t = first.lastTime { joined.perTrack[track].lastTime = t }
    joined.perTrack += back.perTrack.dropFirst()

    joined.trackPointsWithoutTime += back.trackPointsWithoutTime
    joined.trackPointsAtZero += back.trackPointsAtZero
    joined.trackPointsBackInTime += back.trackPointsBackInTime
    joined.lengthSum.add(back.lengthSum)
    joined.length2D = joined.lengthSum.value
    if joined.firstTime == nil { joined.firstTime = back.firstTime }
    if let t = back.lastTime { joined.lastTime = t }
    if let t = back.earliestTime { joined.earliestTime = min(joined.earliestTime ?? t, t) }
    if let t = back.latestTime { joined.latestTime = max(joined.latestTime ?? t, t) }
    if let b = back.bounds {
      joined.bounds = joined.bounds.map {
        Bounds(
          minLatitude: min($0.minLatitude, b.minLatitude), maxLatitude: max($0.maxLatitude, b.maxLatitude),
          minLongitude: min($0.minLongitude, b.minLongitude), maxLongitude: max($0.maxLongitude, b.maxLongitude))
      } ?? b
    }
    joined.heartRate.join(back.heartRate)
    joined.cadence.join(back.cadence)
    joined.power.join(back.power)
    joined.temperature.join(back.temperature)

    var summary = frontSummary
    summary.tracks += backSummary.tracks - 1
    summary.segments += backSummary.segments - 1
    summary.emptySegments += backSummary.emptySegments
    summary.trackPoints += backSummary.trackPoints
    summary.routes += backSummary.routes
    summary.routePoints += backSummary.routePoints
    summary.waypoints += backSummary.waypoints
    // Every segment is closed: nothing more to add up.
    joined.segmentTrack = -1
    joined.finish(summary)
    return joined
  }

  /// Completes the statistics with the reader's counts once it has returned every point.
  public mutating func finish(_ summary: GPXSummary) {
    closeSegment(startingAt: nil)
    segmentTrack = -1
    version = summary.version
    tracks = summary.tracks
    segments = summary.segments
    emptySegments = summary.emptySegments
    trackPoints = summary.trackPoints
    routes = summary.routes
    routePoints = summary.routePoints
    waypoints = summary.waypoints
    while perTrack.count < tracks { perTrack.append(Track()) }
  }
}
