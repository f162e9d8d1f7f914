import Geodesy
import Geofencing
import JSONBytes

/// The shortcut ``RegionFileReader`` takes for a region written the way exporters write them a
/// hundred thousand times: a GeoJSON feature, or an object of a plain JSON array of regions,
/// read member by member straight into its region, with no tree of JSON values built.
///
/// ```json
/// {"type":"Feature","id":"r00000","properties":{"radius":512.0},"geometry":{"type":"Point","coordinates":[-122.3223605,37.7923422]}}
/// {"type":"Feature","properties":{"name":"Mission"},"geometry":{"type":"Polygon","coordinates":[[[-122.42,37.75],…]]}}
/// {"id":"home","lat":37.7749,"lon":-122.4194,"radius":150,"notifyOnExit":false}
/// ```
///
/// Accepted: members in any order (a geometry's `coordinates` before its `type` too), with any
/// whitespace; other members (`bbox`, other properties) holding any valid JSON value, skipped;
/// identifiers that are strings without escapes or whole numbers; positions of two or more
/// numbers; `Point`, `Polygon` and `MultiPolygon` geometries; every region valid. Anything else —
/// a member name, type or identifier with an escape, a member repeated, a value of an unexpected
/// kind, an invalid region, a polygon `checkPolygon` refuses, any JSON error — makes
/// ``feature(_:checkPolygon:)`` and ``plainRegion(_:)`` return nil with the scanner where it was,
/// and the reader reads the value the general way (a tree of ``JSONNode``s), which gives the same
/// region or the error with its line and column. So the shortcut changes speed and memory, never
/// results (tests read generated files of every shape both ways and compare).
struct RegionShortcut {
  var region: Region
  /// The notifications left on.
  var notifications: RegionNotifications
  /// Where the identifier's value starts (the region's start when it comes from the properties
  /// of a feature that has none of its own): where a repeat of it is reported.
  var identifierOffset: Int

  /// Reads the GeoJSON feature at the cursor, or returns nil with the cursor unmoved.
  ///
  /// - Parameter ring: Room for a ring's positions while they are read, kept from feature to
  ///   feature: each ring is then copied into an array of exactly its size. (Appending to the
  ///   ring itself left it up to twice as large as its positions, for as long as the region is
  ///   held.)
  static func feature(
    _ s: inout JSONScanner, checkPolygon: RegionFileReader.PolygonCheck?, ring: inout [Coordinate]
  ) -> RegionShortcut? {
    let start = s.i
    do throws(Bail) {
      return try readFeature(&s, checkPolygon: checkPolygon, ring: &ring)
    } catch {
      s.i = start
      return nil
    }
  }

  /// Reads the region object of a plain JSON array at the cursor, or returns nil with the cursor
  /// unmoved.
  static func plainRegion(_ s: inout JSONScanner) -> RegionShortcut? {
    let start = s.i
    do throws(Bail) {
      return try readPlainRegion(&s)
    } catch {
      s.i = start
      return nil
    }
  }

  /// Why the shortcut gave up; the general path says what is wrong, if anything.
  struct Bail: Error {}

  /// An identifier as written (nil: a value that cannot be one), and where its value starts.
  private struct IdentifierValue {
    var text: String?
    var offset: Int
  }

  private enum GeometryType {
    case point, polygon, multiPolygon
  }

  /// The geometry a feature's `coordinates` gave.
  private enum Geometry {
    case point(Coordinate)
    case polygons([PolygonRegion.Polygon])
  }

  private static func readFeature(
    _ s: inout JSONScanner, checkPolygon: RegionFileReader.PolygonCheck?, ring: inout [Coordinate]
  ) throws(Bail) -> RegionShortcut {
    try open(&s)
    var isFeature = false
    var identifier: IdentifierValue?
    var properties = Properties()
    var sawProperties = false
    var geometry: Geometry?
    try members(&s) { (s, key) throws(Bail) in
      if s.equals(key, "type") {
        guard !isFeature, try stringValue(&s) == .feature else { throw Bail() }
        isFeature = true
      } else if s.equals(key, "id") {
        guard identifier == nil else { throw Bail() }
        identifier = try identifierValue(&s)
      } else if s.equals(key, "properties") {
        guard !sawProperties else { throw Bail() }
        sawProperties = true
        if s.peek() == UInt8(ascii: "n") {
          try literal(&s, "null")
        } else {
          properties = try readProperties(&s)
        }
      } else if s.equals(key, "geometry") {
        guard geometry == nil else { throw Bail() }
        geometry = try readGeometry(&s, ring: &ring)
      } else {
        try skip(&s)
      }
    }
    guard isFeature, let geometry,
      let id = identifier ?? properties.id ?? properties.identifier ?? properties.name
    else { throw Bail() }
    guard let text = id.text else { throw Bail() }
    let name = try regionIdentifier(text)
    let region: Region
    switch geometry {
    case .point(let center):
      guard let radius = properties.radius else { throw Bail() }
      region = try circle(name, center, radius)
    case .polygons(let polygons):
      do throws(RegionError) {
        let polygon = try PolygonRegion(identifier: name, polygons: polygons)
        try checkPolygon?(polygon)
        region = .polygon(polygon)
      } catch {
        throw Bail()
      }
    }
    return RegionShortcut(region: region, notifications: properties.notifications, identifierOffset: id.offset)
  }

  private static func readPlainRegion(_ s: inout JSONScanner) throws(Bail) -> RegionShortcut {
    try open(&s)
    var identifier: IdentifierValue?
    var latitude: Double?
    var longitude: Double?
    var radius: Double?
    var flags = NotificationFlags()
    try members(&s) { (s, key) throws(Bail) in
      if s.equals(key, "id") {
        guard identifier == nil else { throw Bail() }
        identifier = try identifierValue(&s)
      } else if s.equals(key, "lat") {
        guard latitude == nil else { throw Bail() }
        latitude = try number(&s)
      } else if s.equals(key, "lon") {
        guard longitude == nil else { throw Bail() }
        longitude = try number(&s)
      } else if s.equals(key, "radius") {
        guard radius == nil else { throw Bail() }
        radius = try number(&s)
      } else if try !flags.read(&s, key: key) {
        try skip(&s)
      }
    }
    guard let identifier, let text = identifier.text, let latitude, let longitude, let radius else { throw Bail() }
    let center = try coordinate(latitude: latitude, longitude: longitude)
    let region = try circle(try regionIdentifier(text), center, radius)
    return RegionShortcut(region: region, notifications: flags.notifications, identifierOffset: identifier.offset)
  }

  // MARK: Members

  /// A feature's properties that make its region.
  private struct Properties {
    var radius: Double?
    var id: IdentifierValue?
    var identifier: IdentifierValue?
    var name: IdentifierValue?
    var flags = NotificationFlags()
    var notifications: RegionNotifications { flags.notifications }
  }

  /// `notifyOnEntry`, `notifyOnExit`, `notifyOnDwell`, each at most once.
  private struct NotificationFlags {
    var seen: RegionNotifications = []
    var off: RegionNotifications = []
    var notifications: RegionNotifications { RegionNotifications.all.subtracting(off) }

    /// Reads the member's value if `key` is one of the three; false if it is not.
    mutating func read(_ s: inout JSONScanner, key: Range<Int>) throws(Bail) -> Bool {
      let flag: RegionNotifications
      if s.equals(key, "notifyOnEntry") {
        flag = .entry
      } else if s.equals(key, "notifyOnExit") {
        flag = .exit
      } else if s.equals(key, "notifyOnDwell") {
        flag = .dwell
      } else {
        return false
      }
      guard !seen.contains(flag) else { throw Bail() }
      seen.insert(flag)
      switch s.peek() {
      case UInt8(ascii: "t"): try RegionShortcut.literal(&s, "true")
      case UInt8(ascii: "f"):
        try RegionShortcut.literal(&s, "false")
        off.insert(flag)
      default: throw Bail()
      }
      return true
    }
  }

  private static func readProperties(_ s: inout JSONScanner) throws(Bail) -> Properties {
    try open(&s)
    var p = Properties()
    try members(&s) { (s, key) throws(Bail) in
      if s.equals(key, "radius") {
        guard p.radius == nil else { throw Bail() }
        p.radius = try number(&s)
      } else if s.equals(key, "id") {
        guard p.id == nil else { throw Bail() }
        p.id = try identifierValue(&s)
      } else if s.equals(key, "identifier") {
        guard p.identifier == nil else { throw Bail() }
        p.identifier = try identifierValue(&s)
      } else if s.equals(key, "name") {
        guard p.name == nil else { throw Bail() }
        p.name = try identifierValue(&s)
      } else if try !p.flags.read(&s, key: key) {
        try skip(&s)
      }
    }
    return p
  }

  private static func readGeometry(_ s: inout JSONScanner, ring: inout [Coordinate]) throws(Bail) -> Geometry {
    try open(&s)
    var type: GeometryType?
    var coordinates: Geometry?
    /// Where `coordinates` starts when it came before `type`.
    var pending: Int?
    try members(&s) { (s, key) throws(Bail) in
      if s.equals(key, "type") {
        guard type == nil else { throw Bail() }
        switch try stringValue(&s) {
        case .point: type = .point
        case .polygon: type = .polygon
        case .multiPolygon: type = .multiPolygon
        default: throw Bail()
        }
      } else if s.equals(key, "coordinates") {
        guard coordinates == nil, pending == nil else { throw Bail() }
        if let type {
          coordinates = try readCoordinates(&s, type, ring: &ring)
        } else {
          s.skipSpace()
          pending = s.i
          try skip(&s)
        }
      } else {
        try skip(&s)
      }
    }
    guard let type else { throw Bail() }
    if let pending {
      let end = s.i
      s.i = pending
      coordinates = try readCoordinates(&s, type, ring: &ring)
      s.i = end
    }
    guard let coordinates else { throw Bail() }
    return coordinates
  }

  private static func readCoordinates(
    _ s: inout JSONScanner, _ type: GeometryType, ring: inout [Coordinate]
  ) throws(Bail) -> Geometry {
    switch type {
    case .point: return .point(try position(&s))
    case .polygon: return .polygons([try polygon(&s, ring: &ring)])
    case .multiPolygon:
      var polygons: [PolygonRegion.Polygon] = []
      try elements(&s, allowEmpty: true) { (s) throws(Bail) in polygons.append(try polygon(&s, ring: &ring)) }
      return .polygons(polygons)
    }
  }

  private static func polygon(_ s: inout JSONScanner, ring: inout [Coordinate]) throws(Bail) -> PolygonRegion.Polygon {
    var exterior: [Coordinate]?
    var holes: [[Coordinate]] = []
    try elements(&s, allowEmpty: false) { (s) throws(Bail) in
      ring.removeAll(keepingCapacity: true)
      try elements(&s, allowEmpty: true) { (s) throws(Bail) in ring.append(try position(&s)) }
      // An empty ring is the empty array: `unsafeUninitializedCapacity` with a capacity of 0
      // writes the count into the one empty-array storage all threads share.
      let exact =
        ring.isEmpty
        ? [] : [Coordinate](unsafeUninitializedCapacity: ring.count) { storage, initialized in
          initialized = storage.initialize(fromContentsOf: ring)
        }
      if exterior == nil { exterior = exact } else { holes.append(exact) }
    }
    // `elements` with `allowEmpty: false` read at least one ring.
    return PolygonRegion.Polygon(exterior: exterior ?? [], holes: holes)
  }

  /// `[longitude, latitude, …]`: two numbers, then any values (an altitude).
  private static func position(_ s: inout JSONScanner) throws(Bail) -> Coordinate {
    guard s.peek() == UInt8(ascii: "[") else { throw Bail() }
    s.i += 1
    let longitude = try number(&s)
    guard s.peek() == UInt8(ascii: ",") else { throw Bail() }
    s.i += 1
    let latitude = try number(&s)
    while true {
      switch s.peek() {
      case UInt8(ascii: "]"):
        s.i += 1
        return try coordinate(latitude: latitude, longitude: longitude)
      case UInt8(ascii: ","):
        s.i += 1
        try skip(&s)
      default: throw Bail()
      }
    }
  }

  // MARK: Tokens

  /// Consumes an object's `{`.
  private static func open(_ s: inout JSONScanner) throws(Bail) {
    guard s.peek() == UInt8(ascii: "{") else { throw Bail() }
    s.i += 1
  }

  /// The members of the object whose `{` was consumed, through its `}`: `body` reads each value.
  /// Member names with escapes bail.
  private static func members(_ s: inout JSONScanner, _ body: (inout JSONScanner, Range<Int>) throws(Bail) -> Void) throws(Bail) {
    if s.peek() == UInt8(ascii: "}") {
      s.i += 1
      return
    }
    while true {
      guard s.peek() == UInt8(ascii: "\"") else { throw Bail() }
      let key: (raw: Range<Int>, decoded: String?)
      do throws(JSONError) { key = try s.key("") } catch { throw Bail() }
      guard key.decoded == nil, s.peek() == UInt8(ascii: ":") else { throw Bail() }
      s.i += 1
      try body(&s, key.raw)
      switch s.peek() {
      case UInt8(ascii: ","): s.i += 1
      case UInt8(ascii: "}"):
        s.i += 1
        return
      default: throw Bail()
      }
    }
  }

  /// The elements of the array at the cursor, through its `]`: `body` reads each.
  private static func elements(_ s: inout JSONScanner, allowEmpty: Bool, _ body: (inout JSONScanner) throws(Bail) -> Void) throws(Bail) {
    guard s.peek() == UInt8(ascii: "[") else { throw Bail() }
    s.i += 1
    if s.peek() == UInt8(ascii: "]") {
      guard allowEmpty else { throw Bail() }
      s.i += 1
      return
    }
    while true {
      try body(&s)
      switch s.peek() {
      case UInt8(ascii: ","): s.i += 1
      case UInt8(ascii: "]"):
        s.i += 1
        return
      default: throw Bail()
      }
    }
  }

  /// Validates and skips one value.
  private static func skip(_ s: inout JSONScanner) throws(Bail) {
    do throws(JSONError) { _ = try s.skipValue("") } catch { throw Bail() }
  }

  private static func literal(_ s: inout JSONScanner, _ word: StaticString) throws(Bail) {
    do throws(JSONError) { try s.literal(word, "") } catch { throw Bail() }
  }

  /// A string's raw bytes; a string with escapes bails.
  private static func plainString(_ s: inout JSONScanner) throws(Bail) -> Range<Int> {
    guard s.peek() == UInt8(ascii: "\"") else { throw Bail() }
    let scanned: (range: Range<Int>, escaped: Bool)
    do throws(JSONError) { scanned = try s.scanString("") } catch { throw Bail() }
    guard !scanned.escaped else { throw Bail() }
    return scanned.range
  }

  /// A number, converted as ``JSONParser`` converts it.
  private static func number(_ s: inout JSONScanner) throws(Bail) -> Double {
    guard let first = s.peek(), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw Bail() }
    do throws(JSONError) { return try s.number("", converting: ByteNumbers.double).value } catch { throw Bail() }
  }

  /// The strings a shortcut compares a `type` with.
  private enum TypeName {
    case feature, point, polygon, multiPolygon, other
  }

  /// A string value without escapes, as one of the type names.
  private static func stringValue(_ s: inout JSONScanner) throws(Bail) -> TypeName {
    let range = try plainString(&s)
    if s.equals(range, "Feature") { return .feature }
    if s.equals(range, "Point") { return .point }
    if s.equals(range, "Polygon") { return .polygon }
    if s.equals(range, "MultiPolygon") { return .multiPolygon }
    return .other
  }

  /// A string without escapes, or a whole number written as the general path writes it; any
  /// other value is skipped and marked unusable (it bails only if it is the identifier chosen).
  private static func identifierValue(_ s: inout JSONScanner) throws(Bail) -> IdentifierValue {
    guard let first = s.peek() else { throw Bail() }
    let offset = s.i
    switch first {
    case UInt8(ascii: "\""):
      let range = try plainString(&s)
      return IdentifierValue(text: String(decoding: UnsafeBufferPointer(rebasing: s.bytes[range]), as: UTF8.self), offset: offset)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      let n = try number(&s)
      guard n == n.rounded(), abs(n) < 1e15 else { return IdentifierValue(text: nil, offset: offset) }
      return IdentifierValue(text: String(Int64(n)), offset: offset)
    default:
      try skip(&s)
      return IdentifierValue(text: nil, offset: offset)
    }
  }

  // MARK: Regions

  private static func regionIdentifier(_ text: String) throws(Bail) -> RegionIdentifier {
    do throws(RegionError) { return try RegionIdentifier(text) } catch { throw Bail() }
  }

  private static func coordinate(latitude: Double, longitude: Double) throws(Bail) -> Coordinate {
    do throws(CoordinateError) { return try Coordinate.reading(latitude: latitude, longitude: longitude) } catch { throw Bail() }
  }

  private static func circle(_ id: RegionIdentifier, _ center: Coordinate, _ radius: Double) throws(Bail) -> Region {
    do throws(RegionError) { return .circle(try CircularRegion(identifier: id, center: center, radius: radius)) } catch { throw Bail() }
  }
}
