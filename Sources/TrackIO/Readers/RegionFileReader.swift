public import Geofencing
import Geodesy
import JSONBytes

/// The regions of a file, in registration order, with what the app asked to be told about each.
public struct RegionFile: Sendable {
  public var regions: [Region]
  /// `notifyOnEntry` / `notifyOnExit` / `notifyOnDwell` per region; regions not listed want all.
  public var notifications: [RegionIdentifier: RegionNotifications]

  public init(regions: [Region], notifications: [RegionIdentifier: RegionNotifications] = [:]) {
    self.regions = regions
    self.notifications = notifications
  }
}

/// Reads a region file: CSV (see ``RegionCSVReader``), GeoJSON, or a JSON array of region objects.
///
/// The format is taken from the content: a file whose first character (after a byte-order mark
/// and spaces) is `{` or `[` is JSON, anything else CSV.
///
/// - **GeoJSON**: a `FeatureCollection`, or a single `Feature`. A `Point` feature is a circle and
///   needs a `radius` property (metres); `Polygon` and `MultiPolygon` features are polygons
///   (positions `[longitude, latitude]`, RFC 7946). The identifier is the feature's `id` (string
///   or integer) or else its `id`, `identifier` or `name` property. Optional boolean properties
///   `notifyOnEntry`, `notifyOnExit` and `notifyOnDwell` (default true).
/// - **JSON**: an array of objects `{"id", "lat", "lon", "radius", "notifyOnEntry"?, "notifyOnExit"?, "notifyOnDwell"?}`.
///
/// Identifiers must be unique within a file: a repeat is an error naming both places.
public enum RegionFileReader {
  /// A check of each polygon beyond what ``PolygonRegion``'s initialiser does (such as
  /// `GEOSValidation`'s full validity), run as it is read so that a failure names its place.
  public typealias PolygonCheck = (PolygonRegion) throws(RegionError) -> Void

  /// Reads every region of the file at `path`.
  /// - Parameter checkPolygon: applied to every polygon read; its error becomes a
  ///   ``TrackIOError`` at the polygon's geometry.
  /// - Throws: ``TrackIOError`` with the line and column of the first problem.
  ///
  /// With a check, a regular file (not standard input or a FIFO, which cannot be read twice) is
  /// read on a thread of its own while the caller's thread checks its polygons
  /// (``readChecking(path:chunk:batchSize:_:)``), with the same result.
  public static func read(path: String, checkPolygon: PolygonCheck? = nil) throws(TrackIOError) -> RegionFile {
    if let checkPolygon, path != "-", InputFile.isRegularFile(path: path) { return try readChecking(path: path, checkPolygon) }
    return try read(path: path, checkPolygon: checkPolygon, shortcut: true)
  }

  /// `shortcut: false` reads every region the general way, through a tree of JSON values (tests
  /// compare the two; see ``RegionShortcut``); `chunk` is how many bytes are read at a time.
  ///
  /// A JSON file is read a chunk at a time (``JSONChunkReader``): the regions one by one as the
  /// file goes by, never the whole file in memory — except a document whose root object is not
  /// a FeatureCollection streaming its features (a single Feature), which is small.
  static func read(path: String, checkPolygon: PolygonCheck?, shortcut: Bool, chunk: Int = JSONChunkReader.chunk)
    throws(TrackIOError) -> RegionFile
  {
    let first = path == "-" ? StandardInputPushback.firstCharacter() : TrackFileReader.firstCharacter(path)
    guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
      return RegionFile(regions: try RegionCSVReader.read(path: path))
    }
    var json = try JSONChunkReader(path: path, chunk: chunk)
    var reader = Reader(checkPolygon: checkPolygon)
    // Room for the regions the file holds, estimated from the bytes the first ones took (a
    // GeoJSON circle takes ~130 bytes, a polygon several times that), so that the lists grow
    // once, not by doubling, and are not reserved for more regions than the file holds.
    let size = json.sizeAtOpen ?? 0
    let sample = 4_096
    reader.reserve(min(size / 128, sample))
    // The shortcut's room for a ring's positions (``RegionShortcut/feature(_:checkPolygon:ring:)``).
    var ring: [Coordinate] = []
    /// Reads one region: the shortcut's, or else the value whole for the general path.
    func element(_ json: inout JSONChunkReader, plain: Bool) throws(TrackIOError) {
      let item = try json.step { (s: inout JSONScanner) throws(JSONError) -> Item in
        if shortcut {
          let fast =
            plain ? RegionShortcut.plainRegion(&s) : RegionShortcut.feature(&s, checkPolygon: checkPolygon, ring: &ring)
          if let fast { return .fast(fast) }
        }
        return .node(try JSONParser.value(&s, depth: 1))
      }
      do throws(Problem) {
        switch item {
        case .fast(let fast): try reader.add(fast, line: json.line(at: fast.identifierOffset))
        case .node(let node) where plain: try reader.plainRegion(node) { json.line(at: $0) }
        case .node(let node): try reader.feature(node) { json.line(at: $0) }
        }
      } catch {
        throw json.error(error.message, at: error.offset)
      }
      if reader.regions.count == sample, json.fileOffset > 0 {
        reader.reserve(Int(Double(size) / Double(json.fileOffset) * Double(sample)), margin: 0.05)
      }
    }
    guard let opening = try json.peek() else { throw json.error("found the end of the file: expected a JSON value", at: json.position) }
    if opening == UInt8(ascii: "[") {
      // A JSON array of regions, one at a time.
      json.consume()
      if try json.peek() == UInt8(ascii: "]") {
        json.consume()
      } else {
        repeat { try element(&json, plain: true) } while try json.next(UInt8(ascii: "]"), in: "an array")
      }
      try json.expectEnd()
      return RegionFile(regions: reader.regions, notifications: reader.notifications)
    }
    // An object: a FeatureCollection's features are read one at a time, whatever the order of its
    // members; any other member is kept whole (a single Feature is small), and so are the bytes
    // read until the features start, so that a single Feature's errors can be located.
    let rootOffset = json.position
    let rootLocation = json.error("", at: rootOffset)
    func rootError(_ message: String) -> TrackIOError {
      TrackIOError(path: rootLocation.path, line: rootLocation.line, column: rootLocation.column, message: message)
    }
    json.keepsConsumed = true
    json.consume()
    var members: [(key: String, value: JSONNode)] = []
    var streamed = false
    if try json.peek() == UInt8(ascii: "}") {
      json.consume()
    } else {
      repeat {
        try json.step { (s: inout JSONScanner) throws(JSONError) in
          guard s.peek() == UInt8(ascii: "\"") else { throw s.fail("$", "found \(s.found()): expected a member name in double quotes") }
        }
        let key = try json.string()
        try json.expect(UInt8(ascii: ":"), "':' after the member name")
        if key == "features", !streamed, try json.peek() == UInt8(ascii: "["), Self.mayBeCollection(members) {
          streamed = true
          json.keepsConsumed = false
          json.consume()
          if try json.peek() == UInt8(ascii: "]") {
            json.consume()
          } else {
            repeat { try element(&json, plain: false) } while try json.next(UInt8(ascii: "]"), in: "an array")
          }
        } else {
          members.append((key, try json.value().node))
        }
      } while try json.next(UInt8(ascii: "}"), in: "an object")
    }
    try json.expectEnd()
    let root = JSONNode(value: .object(members), offset: rootOffset)
    switch root["type"]?.value {
    case .string("FeatureCollection")?:
      guard streamed else { throw rootError("a FeatureCollection needs a \"features\" array") }
    case .string("Feature")? where !streamed:
      // Nothing was dropped: the members' offsets are in the reader's bytes.
      do throws(Problem) { try reader.feature(root) { json.line(at: $0) } } catch {
        throw json.error(error.message, at: error.offset)
      }
    default:
      throw rootError("expected a GeoJSON FeatureCollection or Feature (\"type\"), or an array of regions")
    }
    return RegionFile(regions: reader.regions, notifications: reader.notifications)
  }

  /// Reads the regions of a JSON document held in memory (a request body): a GeoJSON `Feature`
  /// or `FeatureCollection`, or an array of region objects, under the rules of a region file.
  /// - Parameters:
  ///   - name: what errors name as the file (`body`, a URL).
  ///   - identifier: when given, the document must be one `Feature` for this region: a feature
  ///     without an identifier takes it, one with another is an error.
  /// - Throws: ``TrackIOError`` with the line and column of the first problem.
  public static func read(
    json bytes: [UInt8], name: String, identifier: String? = nil, checkPolygon: PolygonCheck? = nil
  ) throws(TrackIOError) -> RegionFile {
    var parser = JSONParser(path: name, bytes: bytes)
    var root = try parser.parseDocument()
    if let identifier {
      guard case .object(var members) = root.value, case .string("Feature")? = root["type"]?.value else {
        throw parser.error("\(root.kind == "an object" ? "not a Feature" : root.kind): expected one GeoJSON Feature for region \(JSONText.quoted(identifier))", at: root.offset)
      }
      let properties = root["properties"]
      if let named = root["id"] ?? properties?["id"] ?? properties?["identifier"] ?? properties?["name"] {
        let given: String? =
          switch named.value {
          case .string(let s): s
          case .number(let n) where n == n.rounded() && abs(n) < 1e15: String(Int64(n))
          default: nil
          }
        if let given, given != identifier {
          throw parser.error("the feature's identifier \(JSONText.quoted(given)) is not the region's \(JSONText.quoted(identifier)) in the path: expected the same, or none", at: named.offset)
        }
      } else {
        members.append(("id", JSONNode(value: .string(identifier), offset: root.offset)))
        root = JSONNode(value: .object(members), offset: root.offset)
      }
    }
    var reader = Reader(checkPolygon: checkPolygon)
    let line = { (offset: Int) in parser.location(of: offset).line }
    do throws(Problem) {
      switch root.value {
      case .array(let items):
        for item in items { try reader.plainRegion(item, line: line) }
      case .object:
        switch root["type"]?.value {
        case .string("FeatureCollection")?:
          guard let features = root["features"], case .array(let items) = features.value else {
            throw Problem(message: "a FeatureCollection needs a \"features\" array", offset: root.offset)
          }
          for item in items { try reader.feature(item, line: line) }
        case .string("Feature")?:
          try reader.feature(root, line: line)
        default:
          throw Problem(message: "expected a GeoJSON FeatureCollection or Feature (\"type\"), or an array of regions", offset: root.offset)
        }
      default:
        throw Problem(message: "\(root.kind): expected a GeoJSON FeatureCollection or Feature, or an array of regions", offset: root.offset)
      }
    } catch {
      throw parser.error(error.message, at: error.offset)
    }
    return RegionFile(regions: reader.regions, notifications: reader.notifications)
  }

  /// What a step over one region read: the shortcut's region, or the value whole.
  private enum Item {
    case fast(RegionShortcut)
    case node(JSONNode)
  }

  /// A problem with a value read, at its offset in the reader's bytes (located by the caller).
  private struct Problem: Error {
    var message: String
    var offset: Int
  }

  /// Whether an object with `members` read so far may still be a FeatureCollection (its
  /// `features` are then read one at a time).
  private static func mayBeCollection(_ members: [(key: String, value: JSONNode)]) -> Bool {
    guard let type = members.first(where: { $0.key == "type" })?.value else { return true }
    if case .string("FeatureCollection") = type.value { return true }
    return false
  }

  private struct Reader {
    let checkPolygon: PolygonCheck?
    var regions: [Region] = []
    var notifications: [RegionIdentifier: RegionNotifications] = [:]
    /// Identifier → its index in `regions`, and the line each region's identifier was read on.
    var seen = IdentifierTable()
    var lines: [Int32] = []

    func fail(_ message: String, _ node: JSONNode) -> Problem { Problem(message: message, offset: node.offset) }

    /// Room for `count` regions, and `margin` more of them in the lists (the identifiers' table
    /// grows without hashing again, and its size doubles: a margin could double it for nothing).
    mutating func reserve(_ count: Int, margin: Double = 0) {
      regions.reserveCapacity(Int(Double(count) * (1 + margin)))
      lines.reserveCapacity(Int(Double(count) * (1 + margin)))
      seen.reserve(count)
    }

    /// A feature read whole; `line` gives the line of an offset in it.
    mutating func feature(_ node: JSONNode, line: (Int) -> Int) throws(Problem) {
      guard case .object = node.value, node["type"].map({ if case .string("Feature") = $0.value { true } else { false } }) == true else {
        throw fail("\(node.kind): expected a GeoJSON Feature ({\"type\": \"Feature\", …})", node)
      }
      let properties = node["properties"]
      if let p = properties, !(p.value.isObject || p.value.isNull) { throw fail("\"properties\" is \(p.kind): expected an object", p) }
      let idNode = node["id"] ?? properties?["id"] ?? properties?["identifier"] ?? properties?["name"]
      let identifier = try self.identifier(idNode, near: node)
      guard let geometry = node["geometry"], case .object = geometry.value else {
        throw fail("feature \"\(identifier.rawValue)\" has no \"geometry\" object: expected a Point, Polygon or MultiPolygon", node)
      }
      guard let typeNode = geometry["type"], case .string(let type) = typeNode.value else {
        throw fail("geometry without a \"type\": expected Point, Polygon or MultiPolygon", geometry)
      }
      guard let coordinates = geometry["coordinates"] else { throw fail("\(type) without \"coordinates\"", geometry) }
      let region: Region
      switch type {
      case "Point":
        let center = try position(coordinates)
        guard let radiusNode = properties?["radius"] else {
          throw fail("Point feature \"\(identifier.rawValue)\" has no \"radius\" property: expected metres", node)
        }
        let radius = try number(radiusNode, "radius", "metres")
        region = try circle(identifier, center, radius, radiusNode)
      case "Polygon":
        region = try polygonRegion(identifier, [try polygon(coordinates)], geometry)
      case "MultiPolygon":
        guard case .array(let items) = coordinates.value else { throw fail("MultiPolygon coordinates are \(coordinates.kind): expected an array of polygons", coordinates) }
        var polygons: [PolygonRegion.Polygon] = []
        for item in items { polygons.append(try polygon(item)) }
        region = try polygonRegion(identifier, polygons, geometry)
      default:
        throw fail("geometry type \"\(type)\": expected Point (with a radius property), Polygon or MultiPolygon", typeNode)
      }
      try add(region, notify: properties, at: idNode ?? node, line: line)
    }

    private static func file(_ index: Int32, for identifier: RegionIdentifier, in table: inout IdentifierTable, regions: [Region]) -> Int32? {
      table.updateValue(index, for: identifier) { regions[Int($0)].identifier }
    }

    /// A region the shortcut read, its identifier on `line`.
    mutating func add(_ fast: RegionShortcut, line: Int) throws(Problem) {
      try add(fast.region, wanted: fast.notifications, at: fast.identifierOffset, line: line)
    }

    /// A region object of a plain array read whole; `line` gives the line of an offset in it.
    mutating func plainRegion(_ node: JSONNode, line: (Int) -> Int) throws(Problem) {
      guard case .object = node.value else { throw fail("\(node.kind): expected a region object {\"id\", \"lat\", \"lon\", \"radius\"}", node) }
      let identifier = try self.identifier(node["id"], near: node)
      func field(_ name: String, _ unit: String) throws(Problem) -> Double {
        guard let n = node[name] else { throw fail("region \"\(identifier.rawValue)\" has no \"\(name)\": expected \(unit)", node) }
        return try number(n, name, unit)
      }
      let lat = try field("lat", "degrees")
      let lon = try field("lon", "degrees")
      let center: Coordinate
      do throws(CoordinateError) { center = try Coordinate.reading(latitude: lat, longitude: lon) } catch {
        throw fail(error.description, node[error.component == .latitude ? "lat" : "lon"] ?? node)
      }
      let radius = try field("radius", "metres")
      try add(try circle(identifier, center, radius, node["radius"] ?? node), notify: node, at: node["id"] ?? node, line: line)
    }

    /// The properties that switch a region's notifications off.
    static let notificationKeys: [(key: String, flag: RegionNotifications)] = [
      ("notifyOnEntry", .entry), ("notifyOnExit", .exit), ("notifyOnDwell", .dwell),
    ]

    mutating func add(_ region: Region, notify: JSONNode?, at node: JSONNode, line: (Int) -> Int) throws(Problem) {
      var wanted = RegionNotifications.all
      for (key, flag) in Self.notificationKeys {
        guard let n = notify?[key] else { continue }
        guard case .bool(let on) = n.value else { throw fail("\"\(key)\" is \(n.kind): expected true or false", n) }
        if !on { wanted.remove(flag) }
      }
      try add(region, wanted: wanted, at: node.offset, line: line(node.offset))
    }

    /// Adds a region whose identifier's value starts at `offset`, on `line` (where a repeat is
    /// reported).
    mutating func add(_ region: Region, wanted: RegionNotifications, at offset: Int, line: Int) throws(Problem) {
      // One hash of the identifier: its first place, if it had one already.
      if let first = Self.file(Int32(regions.count), for: region.identifier, in: &seen, regions: regions) {
        throw Problem(
          message: "duplicate region identifier \"\(region.identifier.rawValue)\" (first on line \(lines[Int(first)])): expected unique identifiers",
          offset: offset)
      }
      lines.append(Int32(truncatingIfNeeded: line))
      if wanted != .all { notifications[region.identifier] = wanted }
      regions.append(region)
    }

    func identifier(_ node: JSONNode?, near feature: JSONNode) throws(Problem) -> RegionIdentifier {
      guard let node else { throw fail("region without an identifier: expected \"id\" (a string)", feature) }
      let text: String
      switch node.value {
      case .string(let s): text = s
      case .number(let n) where n == n.rounded() && abs(n) < 1e15: text = String(Int64(n))
      default: throw fail("identifier is \(node.kind): expected a string", node)
      }
      do throws(RegionError) { return try RegionIdentifier(text) } catch { throw fail(error.description, node) }
    }

    func number(_ node: JSONNode, _ name: String, _ unit: String) throws(Problem) -> Double {
      guard case .number(let v) = node.value else { throw fail("\"\(name)\" is \(node.kind): expected a number of \(unit)", node) }
      return v
    }

    func position(_ node: JSONNode) throws(Problem) -> Coordinate {
      guard case .array(let items) = node.value, items.count >= 2,
        case .number(let lon) = items[0].value, case .number(let lat) = items[1].value
      else { throw fail("position is \(node.kind == "an array" ? "not [longitude, latitude]" : node.kind): expected [longitude, latitude]", node) }
      do throws(CoordinateError) { return try Coordinate.reading(latitude: lat, longitude: lon) } catch {
        throw fail(error.description, error.component == .latitude ? items[1] : items[0])
      }
    }

    func polygon(_ node: JSONNode) throws(Problem) -> PolygonRegion.Polygon {
      guard case .array(let ringNodes) = node.value, !ringNodes.isEmpty else {
        throw fail("polygon is \(node.kind == "an array" ? "empty" : node.kind): expected an array of rings", node)
      }
      var rings: [[Coordinate]] = []
      for r in ringNodes {
        guard case .array(let positions) = r.value else { throw fail("ring is \(r.kind): expected an array of positions", r) }
        // Exactly its size: the region holds it as long as it is held.
        var ring: [Coordinate] = []
        ring.reserveCapacity(positions.count)
        for p in positions { ring.append(try position(p)) }
        rings.append(ring)
      }
      return PolygonRegion.Polygon(exterior: rings[0], holes: Array(rings.dropFirst()))
    }

    func circle(_ id: RegionIdentifier, _ center: Coordinate, _ radius: Double, _ at: JSONNode) throws(Problem) -> Region {
      do throws(RegionError) { return .circle(try CircularRegion(identifier: id, center: center, radius: radius)) } catch {
        throw fail(error.description, at)
      }
    }

    func polygonRegion(_ id: RegionIdentifier, _ polygons: [PolygonRegion.Polygon], _ at: JSONNode) throws(Problem) -> Region {
      do throws(RegionError) {
        let region = try PolygonRegion(identifier: id, polygons: polygons)
        try checkPolygon?(region)
        return .polygon(region)
      } catch {
        throw fail(error.description, at)
      }
    }
  }
}

extension JSONNode.Value {
  var isObject: Bool { if case .object = self { true } else { false } }
  package var isNull: Bool { if case .null = self { true } else { false } }
}
