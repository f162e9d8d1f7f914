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

  // Points are copied on the reading hot path, so they are kept to 128 bytes, what a copy does
  // inline (a larger one calls memmove), in this order (stored properties are laid out as
  // declared): track and segment indices in 32 bits beside the kind (2³¹ tracks or segments
  // would need a file of hundreds of gigabytes), and optional values as a Double with an
  // "absent" bit pattern (a NaN payload no parser produces) rather than `Double?`, whose 9 bytes
  // pad to 16.
  public var kind: Kind
  private var _satellites: Int32 = -1
  private var _parent: Int32
  private var _segment: Int32

  /// 0-based index of its `trk` (track points) or `rte` (route points) in the file; -1 for waypoints.
  public var parent: Int {
    get { Int(_parent) }
    set { _parent = Int32(clamping: newValue) }
  }
  /// 0-based index of its `trkseg` in the file (track points only), else -1.
  public var segment: Int {
    get { Int(_segment) }
    set { _segment = Int32(clamping: newValue) }
  }
  public var coordinate: Coordinate
  /// 1-based line of the point's start tag.
  public var line: Int

  private var _time = Self.absent
  private var _elevation = Self.absent
  private var _horizontalDilution = Self.absent
  private var _verticalDilution = Self.absent
  private var _positionDilution = Self.absent
  private var _speed = Self.absent
  private var _course = Self.absent
  private var _heartRate = Self.absent
  private var _cadence = Self.absent
  private var _temperature = Self.absent
  private var _power = Self.absent

  /// `time`, seconds since the Unix epoch.
  public var time: Double? {
    get { Self.value(_time) }
    set { _time = Self.stored(newValue) }
  }
  /// `ele`, metres.
  public var elevation: Double? {
    get { Self.value(_elevation) }
    set { _elevation = Self.stored(newValue) }
  }
  public var horizontalDilution: Double? {
    get { Self.value(_horizontalDilution) }
    set { _horizontalDilution = Self.stored(newValue) }
  }
  public var verticalDilution: Double? {
    get { Self.value(_verticalDilution) }
    set { _verticalDilution = Self.stored(newValue) }
  }
  public var positionDilution: Double? {
    get { Self.value(_positionDilution) }
    set { _positionDilution = Self.stored(newValue) }
  }
  /// GPX 1.0 `speed` (m/s), or a Garmin TrackPointExtension v2 `speed`.
  public var speed: Double? {
    get { Self.value(_speed) }
    set { _speed = Self.stored(newValue) }
  }
  /// GPX 1.0 `course` (degrees), or a Garmin TrackPointExtension v2 `course`.
  public var course: Double? {
    get { Self.value(_course) }
    set { _course = Self.stored(newValue) }
  }
  /// Heart rate, beats per minute: `hr` (Garmin TrackPointExtension, Cluetrust GPXData).
  public var heartRate: Double? {
    get { Self.value(_heartRate) }
    set { _heartRate = Self.stored(newValue) }
  }
  /// Cadence, revolutions (or steps per foot) per minute: `cad` (Garmin TrackPointExtension) or
  /// `cadence` (Cluetrust GPXData).
  public var cadence: Double? {
    get { Self.value(_cadence) }
    set { _cadence = Self.stored(newValue) }
  }
  /// Temperature, °C: `atemp` (Garmin TrackPointExtension), `Temperature` (Garmin GpxExtensions
  /// v3) or `temp` (Cluetrust GPXData).
  public var temperature: Double? {
    get { Self.value(_temperature) }
    set { _temperature = Self.stored(newValue) }
  }
  /// Power, watts: `power` (Strava and others) or `PowerInWatts` (Garmin PowerExtension).
  public var power: Double? {
    get { Self.value(_power) }
    set { _power = Self.stored(newValue) }
  }
  /// `sat`.
  public var satellites: Int? {
    get { _satellites < 0 ? nil : Int(_satellites) }
    set { _satellites = newValue.map { Int32(clamping: $0) } ?? -1 }
  }

  private static let absent = Double(bitPattern: 0x7FF8_DEAD_0000_0001)
  @inline(__always) private static func value(_ stored: Double) -> Double? {
    stored.bitPattern == absent.bitPattern ? nil : stored
  }
  @inline(__always) private static func stored(_ value: Double?) -> Double { value ?? absent }

  public static func == (a: GPXPoint, b: GPXPoint) -> Bool {
    a.kind == b.kind && a.parent == b.parent && a.segment == b.segment && a.coordinate == b.coordinate && a.line == b.line
      && a._satellites == b._satellites && a.time == b.time && a.elevation == b.elevation
      && a.horizontalDilution == b.horizontalDilution && a.verticalDilution == b.verticalDilution
      && a.positionDilution == b.positionDilution && a.speed == b.speed && a.course == b.course
      && a.heartRate == b.heartRate && a.cadence == b.cadence && a.temperature == b.temperature && a.power == b.power
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
    hasher.combine(parent)
    hasher.combine(segment)
    hasher.combine(coordinate)
    hasher.combine(line)
    hasher.combine(time)
    hasher.combine(elevation)
  }

  /// Metres of horizontal accuracy per unit of HDOP, used when a file gives HDOP but no accuracy:
  /// 5 m, a typical user-equivalent range error for consumer GPS (accuracy ≈ HDOP × UERE).
  public static let accuracyPerHDOP = 5.0

  public init(kind: Kind, parent: Int, segment: Int, coordinate: Coordinate, line: Int) {
    self.kind = kind
    self._parent = Int32(clamping: parent)
    self._segment = Int32(clamping: segment)
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
