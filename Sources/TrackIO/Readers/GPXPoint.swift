public import Geodesy

/// One point of a GPX file: a track point, a route point or a waypoint, with what the file said
/// about it.
public struct GPXPoint: Hashable, Sendable {
  /// Where the point came from.
  public enum Kind: String, Hashable, Sendable {
    case track
    case route
    case waypoint
  }

  public var kind: Kind
  /// 0-based index of its `trk` (track points) or `rte` (route points) in the file; -1 for waypoints.
  public var parent: Int
  /// 0-based index of its `trkseg` in the file (track points only), else -1.
  public var segment: Int
  public var coordinate: Coordinate
  /// `time`, seconds since the Unix epoch.
  public var time: Double?
  /// `ele`, metres.
  public var elevation: Double?
  public var horizontalDilution: Double?
  public var verticalDilution: Double?
  public var positionDilution: Double?
  /// `sat`.
  public var satellites: Int?
  /// GPX 1.0 `speed` (m/s), or a Garmin TrackPointExtension v2 `speed`.
  public var speed: Double?
  /// GPX 1.0 `course` (degrees), or a Garmin TrackPointExtension v2 `course`.
  public var course: Double?
  /// Garmin TrackPointExtension `hr` (beats per minute).
  public var heartRate: Double?
  /// Garmin TrackPointExtension `cad` (revolutions per minute).
  public var cadence: Double?
  /// 1-based line of the point's start tag.
  public var line: Int

  /// Metres of horizontal accuracy per unit of HDOP, used when a file gives HDOP but no accuracy:
  /// 5 m, a typical user-equivalent range error for consumer GPS (accuracy ≈ HDOP × UERE).
  public static let accuracyPerHDOP = 5.0

  public init(kind: Kind, parent: Int, segment: Int, coordinate: Coordinate, line: Int) {
    self.kind = kind
    self.parent = parent
    self.segment = segment
    self.coordinate = coordinate
    self.line = line
  }

  /// The point as a fix: `nil` without a time. Horizontal accuracy is HDOP × ``accuracyPerHDOP``
  /// when the file gives HDOP, unknown otherwise.
  public var fix: LocationFix? {
    guard let time else { return nil }
    return LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: horizontalDilution.map { $0 * Self.accuracyPerHDOP })
  }
}

/// Counts of what a GPX file holds, as the reader has seen so far (complete once it returned nil).
public struct GPXSummary: Hashable, Sendable {
  /// The root's `version` attribute ("1.0", "1.1"), if any.
  public var version: String?
  public var tracks = 0
  /// Track segments, empty ones included.
  public var segments = 0
  public var emptySegments = 0
  public var trackPoints = 0
  public var routes = 0
  public var routePoints = 0
  public var waypoints = 0

  public init() {}
}
