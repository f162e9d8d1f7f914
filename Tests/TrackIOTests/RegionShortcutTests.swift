import Foundation
import Geodesy
import Geofencing
import JSONBytes
import SeededRandom
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// The region shortcut changes speed and memory, never results: every region file reads to the
/// same regions and notifications, or the same error (message, line, column), with and without it.
@Suite("Region file shortcut")
struct RegionShortcutTests {
  /// What a read gives: the regions and notifications, or the error.
  struct Outcome: Equatable {
    var regions: [Region] = []
    var notifications: [RegionIdentifier: RegionNotifications] = [:]
    var error: String?
  }

  /// A polygon check that refuses polygons whose first ring has an odd number of positions, so
  /// that both paths are seen applying it.
  static func check(_ polygon: PolygonRegion) throws(RegionError) {
    if polygon.polygons[0].exterior.count % 2 == 1 {
      throw RegionError(identifier: polygon.identifier.rawValue, reason: .invalidPolygon("odd ring"))
    }
  }

  static func read(_ path: String, shortcut: Bool, checked: Bool, chunk: Int = JSONChunkReader.chunk) -> Outcome {
    do throws(TrackIOError) {
      let file = try RegionFileReader.read(
        path: path, checkPolygon: checked ? { (p) throws(RegionError) in try check(p) } : nil, shortcut: shortcut, chunk: chunk)
      return Outcome(regions: file.regions, notifications: file.notifications)
    } catch {
      return Outcome(error: error.description)
    }
  }

  /// ``read(_:shortcut:checked:chunk:)`` checked, with the reading on a thread of its own.
  static func readChecking(_ path: String, batchSize: Int) -> Outcome {
    do throws(TrackIOError) {
      let file = try RegionFileReader.readChecking(path: path, batchSize: batchSize) { (p) throws(RegionError) in try check(p) }
      return Outcome(regions: file.regions, notifications: file.notifications)
    } catch {
      return Outcome(error: error.description)
    }
  }

  // MARK: A generator of features of every shape

  /// Writes values and features, mostly as exporters write them, sometimes not (`odd` is the
  /// chance of each oddity).
  struct Writer {
    var random: SeededGenerator
    var odd: Double

    mutating func chance(_ p: Double) -> Bool { Double(random.next() % 1_000_000) / 1_000_000 < p }
    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func space() -> String { chance(0.2) ? pick([" ", "\n", "\t ", " \r\n  "]) : "" }

    /// A number as JSON writes it, in one of several spellings.
    mutating func number(_ v: Double) -> String {
      switch random.next() % 6 {
      case 0: return "\(v)"
      case 1: return v == v.rounded() && abs(v) < 1e9 ? "\(Int(v))" : "\(v)"
      case 2: return v == 0 ? "0e0" : "\(v / 10)e1"
      case 3: return "\((v * 1e7).rounded() / 1e7)"
      default: return "\(v)"
      }
    }

    /// Any JSON value, for members the reader skips.
    mutating func anyValue(depth: Int = 0) -> String {
      switch random.next() % (depth > 2 ? 5 : 7) {
      case 0: return "null"
      case 1: return pick(["true", "false"])
      case 2: return number(Double(Int(random.next() % 20_000)) / 7 - 1_000)
      case 3: return pick(["\"x\"", "\"caf\\u00e9\"", "\"tab\\there\"", "\"\"", "\"日本\""])
      case 4: return "[]"
      case 5: return "[" + (0..<Int(random.next() % 4)).map { _ in anyValue(depth: depth + 1) }.joined(separator: ",") + "]"
      default:
        return "{" + (0..<Int(random.next() % 3)).map { k in "\"k\(k)\":" + anyValue(depth: depth + 1) }.joined(separator: ",") + "}"
      }
    }

    mutating func identifier(_ k: Int) -> String {
      guard chance(odd) else { return chance(0.8) ? "\"r\(k)\"" : "\(k)" }
      return pick(["\"r\\u0030\(k)\"", "\(k).5", "\(k).0", "1e20", "null", "[\"r\(k)\"]", "\"\"", "\"dup\"", "\"r\(k)\\n\"", "true", "-\(k)"])
    }

    mutating func position(_ lat: Double, _ lon: Double) -> String {
      var items = [number(lon), number(lat)]
      if chance(0.2) { items.append(number(12.5)) }
      if chance(odd) {
        switch random.next() % 6 {
        case 0: items = [number(lon)]
        case 1: items[0] = "\"\(lon)\""
        case 2: items[1] = number(lat + 200)
        case 3: items.append(anyValue())
        case 4: items[0] = number(lon + 720)
        default: items = []
        }
      }
      return "[" + items.map { space() + $0 + space() }.joined(separator: ",") + "]"
    }

    mutating func ring(_ lat: Double, _ lon: Double, holeOf: Bool = false) -> String {
      let n = 3 + Int(random.next() % 6)
      let size = holeOf ? 0.001 : 0.004
      var positions = (0..<n).map { j -> (Double, Double) in
        let angle = Double(j) * 2 * Double.pi / Double(n)
        return (lat + size * sin(angle), lon + size * cos(angle))
      }
      if !chance(odd) || chance(0.5) { positions.append(positions[0]) }
      var texts = positions.map { position($0.0, $0.1) }
      if chance(odd) { texts = Array(texts.prefix(Int(random.next() % 3))) }
      return "[" + texts.joined(separator: "," + space()) + "]"
    }

    mutating func polygon(_ lat: Double, _ lon: Double) -> String {
      var rings = [ring(lat, lon)]
      if chance(0.3) { rings.append(ring(lat, lon, holeOf: true)) }
      if chance(odd / 2) { rings = [] }
      return "[" + rings.joined(separator: ",") + "]"
    }

    mutating func geometry(_ lat: Double, _ lon: Double) -> String {
      var type = pick(["Point", "Point", "Point", "Polygon", "MultiPolygon"])
      let coordinates: String
      switch type {
      case "Point": coordinates = position(lat, lon)
      case "Polygon": coordinates = polygon(lat, lon)
      default:
        coordinates = "[" + (0..<Int(1 + random.next() % 3)).map { j in polygon(lat + Double(j) * 0.02, lon) }.joined(separator: ",") + "]"
      }
      if chance(odd) { type = pick(["LineString", "point", "Poin\\u0074", ""]) }
      var members = ["\"type\":" + space() + "\"\(type)\"", "\"coordinates\":" + space() + coordinates]
      if chance(0.2) { members.append("\"bbox\":" + anyValue()) }
      if chance(odd) { members.append(pick(["\"type\":\"Point\"", "\"coordinates\":[0,0]"])) }
      if chance(odd) { members.removeFirst(Int(random.next() % 2) + 1) }
      members.shuffle(using: &random)
      return "{" + space() + members.joined(separator: "," + space()) + space() + "}"
    }

    mutating func notifyMembers() -> [String] {
      var members: [String] = []
      for key in ["notifyOnEntry", "notifyOnExit", "notifyOnDwell"] where chance(0.3) {
        members.append("\"\(key)\":" + (chance(odd) ? pick(["\"no\"", "0", "null"]) : pick(["true", "false"])))
      }
      if chance(odd), let first = members.first { members.append(first) }
      return members
    }

    /// One feature (GeoJSON) with identifier number `k`.
    mutating func feature(_ k: Int) -> String {
      let lat = Double(Int(random.next() % 160_000)) / 1_000 - 80
      let lon = Double(Int(random.next() % 360_000)) / 1_000 - 180
      var properties: [String] = []
      let idPlace = random.next() % 5
      if idPlace == 1 { properties.append("\"id\":" + identifier(k)) }
      if idPlace == 2 { properties.append("\"identifier\":" + identifier(k)) }
      if idPlace >= 3 { properties.append("\"name\":" + identifier(k)) }
      if chance(0.3) { properties.append("\"name\":" + anyValue()) }
      if !chance(odd) { properties.append("\"radius\":" + (chance(odd) ? pick(["-5", "0", "\"100\"", "1e400", "2e7"]) : number(Double(1 + random.next() % 2_000)))) }
      properties += notifyMembers()
      if chance(0.3) { properties.append("\"color\":" + anyValue()) }
      properties.shuffle(using: &random)
      var members = ["\"type\":" + (chance(odd) ? pick(["\"feature\"", "\"Featur\\u0065\"", "1"]) : "\"Feature\""), "\"geometry\":" + geometry(lat, lon)]
      if idPlace == 0 || chance(0.2) { members.append("\"id\":" + identifier(k)) }
      if !chance(0.1) { members.append("\"properties\":" + (chance(odd) ? pick(["null", "[]", "\"p\""]) : "{" + properties.joined(separator: "," + space()) + "}")) }
      if chance(0.1) { members.append("\"bbox\":" + anyValue()) }
      if chance(odd) { members.append(pick(["\"t\\u0079pe\":\"Feature\"", "\"geometry\":null", "\"id\":\"again\""])) }
      members.shuffle(using: &random)
      return "{" + space() + members.joined(separator: "," + space()) + space() + "}"
    }

    /// One object of a plain JSON array of regions.
    mutating func plainRegion(_ k: Int) -> String {
      let lat = Double(Int(random.next() % 160_000)) / 1_000 - 80
      let lon = Double(Int(random.next() % 360_000)) / 1_000 - 180
      var members = ["\"id\":" + identifier(k), "\"lat\":" + number(lat), "\"lon\":" + number(lon), "\"radius\":" + number(Double(1 + random.next() % 500))]
      if chance(odd) { members.removeLast() }
      if chance(odd) { members[1] = "\"lat\":" + pick(["\"37\"", "95", "null"]) }
      if chance(odd) { members.append(pick(["\"lat\":1", "\"l\\u0061t\":1"])) }
      members += notifyMembers()
      if chance(0.2) { members.append("\"label\":" + anyValue()) }
      members.shuffle(using: &random)
      return "{" + members.joined(separator: "," + space()) + "}"
    }

    /// A whole file: a FeatureCollection or a plain array; now and then a JSON syntax error.
    mutating func file(count: Int) -> String {
      let collection = chance(0.75)
      var items = (0..<count).map { collection ? feature($0) : plainRegion($0) }
      if chance(odd), !items.isEmpty {
        let k = Int(random.next() % UInt64(items.count))
        var text = Array(items[k].utf8)
        let cut = Int(random.next() % UInt64(text.count))
        switch random.next() % 3 {
        case 0: text.remove(at: cut)
        case 1: text.insert(UInt8(ascii: pick(["}", ",", "\"", "x"])), at: cut)
        default: text = Array(text.prefix(cut))
        }
        items[k] = String(decoding: text, as: UTF8.self)
      }
      let body = items.joined(separator: "," + space() + "\n")
      guard collection else { return "[\n" + body + "\n]\n" }
      switch random.next() % 8 {
      case 0:  // features first, other members after
        return "{\"features\":[\n" + body + "\n]," + space() + "\"type\":\"FeatureCollection\",\"name\":" + anyValue() + "}\n"
      case 1:  // other members before the features
        return "{\"type\":\"FeatureCollection\",\"bbox\":[-180,-90,180,90],\"crs\":" + anyValue() + ",\"features\":[\n" + body + "\n]}\n"
      case 2 where !items.isEmpty:  // a single Feature as the document
        return items[0] + "\n"
      default:
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + body + "\n]}\n"
      }
    }
  }

  // MARK: Tests

  /// Generated files of every shape — member orders, spacing, number spellings, skipped members
  /// of any kind, escapes, repeated members and identifiers, invalid regions, syntax errors, a
  /// single Feature, a collection's members around its features — read the same both ways, with
  /// and without a polygon check, and the same when the file is read a few bytes at a time.
  @Test(arguments: [UInt64(1), 2, 3, 4])
  func generatedFilesReadTheSameBothWays(seed: UInt64) throws {
    let folder = try TemporaryFolder()
    var writer = Writer(random: SeededGenerator(seed: seed), odd: 0.01)
    var outcomes = (regions: 0, errors: 0)
    for trial in 0..<150 {
      let text = writer.file(count: 1 + trial % 12)
      let path = try folder.file("r\(trial).json", containing: text)
      for checked in [false, true] {
        let fast = Self.read(path, shortcut: true, checked: checked)
        let general = Self.read(path, shortcut: false, checked: checked)
        #expect(fast == general, "seed \(seed), file \(trial), checked \(checked):\n\(text)")
        if fast.error == nil { outcomes.regions += fast.regions.count } else { outcomes.errors += 1 }
        if checked {
          // Read on a thread while the caller checks, a polygon or two handed over at a time.
          for batchSize in [1, 2, 1_024] {
            #expect(Self.readChecking(path, batchSize: batchSize) == fast, "read and checked apart, seed \(seed), file \(trial)")
          }
        }
        // Read a few bytes at a time: every value, token and region is cut somewhere.
        for chunk in [13, 101] {
          #expect(Self.read(path, shortcut: true, checked: checked, chunk: chunk) == fast, "chunks of \(chunk), seed \(seed), file \(trial)")
          #expect(Self.read(path, shortcut: false, checked: checked, chunk: chunk) == general, "chunks of \(chunk), general, seed \(seed), file \(trial)")
        }
      }
    }
    // Both kinds of outcome are exercised.
    #expect(outcomes.regions > 300 && outcomes.errors > 100, "\(outcomes)")
  }

  /// A polygon's rings are held for as long as its region is: read either way, each ring's
  /// array is about as large as its positions, not grown by doubling (appending 37 positions
  /// one by one leaves room for 64).
  @Test func ringsAreReadIntoArraysOfTheirSize() throws {
    let folder = try TemporaryFolder()
    var random = SeededGenerator(seed: 8)
    func ring(_ count: Int, x: Double, y: Double, r: Double) -> String {
      let positions = (0..<count).map { k -> String in
        let angle = Double(k) / Double(count) * 2 * .pi
        let radius = r * random.uniform(0.8...1)
        return "[\(x + radius * cos(angle)),\(y + radius * sin(angle))]"
      }
      return "[" + (positions + [positions[0]]).joined(separator: ",") + "]"
    }
    var features: [String] = []
    for (k, count) in [3, 36, 37, 300, 1_100].enumerated() {
      let x = -122.4 + 0.1 * Double(k)
      let shell = ring(count, x: x, y: 37.7, r: 0.02)
      let hole = ring(max(3, count / 3), x: x, y: 37.7, r: 0.005)
      let other = ring(count, x: x + 0.05, y: 37.7, r: 0.01)
      features.append(#"{"type":"Feature","id":"p\#(k)","properties":{},"geometry":{"type":"Polygon","coordinates":[\#(shell),\#(hole)]}}"#)
      features.append(#"{"type":"Feature","id":"m\#(k)","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[[\#(shell)],[\#(other)]]}}"#)
    }
    let path = try folder.file(
      "rings.geojson", containing: #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}")
    for shortcut in [true, false] {
      let read = Self.read(path, shortcut: shortcut, checked: false)
      #expect(read.error == nil && read.regions.count == features.count)
      for case .polygon(let region) in read.regions {
        for ring in region.polygons.flatMap({ [$0.exterior] + $0.holes }) {
          #expect(ring.capacity < ring.count + ring.count / 4 + 2, "\(ring.count) positions in room for \(ring.capacity)")
        }
      }
    }
  }

  /// What exporters write plainly is read by the shortcut (otherwise it would change nothing).
  @Test func plainFeaturesTakeTheShortcut() {
    let texts = [
      #"{"type":"Feature","id":"r00000","properties":{"radius":512.00},"geometry":{"type":"Point","coordinates":[-122.3223605,37.7923422]}}"#,
      #"{ "type": "Feature", "properties": { "name": "Mission", "notifyOnExit": false }, "geometry": { "coordinates": [[[-122.42, 37.75], [-122.41, 37.75], [-122.41, 37.76], [-122.42, 37.75]]], "type": "Polygon" } }"#,
      #"{"type":"Feature","id":7,"bbox":[0,0,1,1],"properties":{"radius":5,"style":{"fill":"red"}},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[0,1],[0,0]]]]}}"#,
    ]
    for text in texts {
      let bytes = Array(text.utf8)
      let read = bytes.withUnsafeBufferPointer { buffer in
        var scanner = JSONScanner(buffer)
        var ring: [Coordinate] = []
        return (RegionShortcut.feature(&scanner, checkPolygon: nil, ring: &ring), scanner.i)
      }
      #expect(read.0 != nil && read.1 == bytes.count, "\(text)")
    }
    let plain = Array(#"{"id": "home", "lat": 37.7749, "lon": -122.4194, "radius": 150, "notifyOnExit": false}"#.utf8)
    let region = plain.withUnsafeBufferPointer { buffer in
      var scanner = JSONScanner(buffer)
      return RegionShortcut.plainRegion(&scanner)
    }
    #expect(region?.notifications == [.entry, .dwell])
  }

  /// What it does not know it leaves with the cursor where it was.
  @Test func oddFeaturesAreLeftToTheGeneralPath() {
    let texts = [
      #"{"type":"Feature","id":"r\u0030","properties":{"radius":5},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      #"{"type":"Feature","id":"a","id":"b","properties":{"radius":5},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      #"{"type":"Feature","id":"a","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      #"{"type":"Feature","id":"a","properties":{"radius":5},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}"#,
      #"{"type":"Feature","id":"a","properties":{"radius":5},"geometry":{"type":"Point","coordinates":[1,95]}}"#,
    ]
    for text in texts {
      let bytes = Array(text.utf8)
      let read = bytes.withUnsafeBufferPointer { buffer in
        var scanner = JSONScanner(buffer)
        var ring: [Coordinate] = []
        return (RegionShortcut.feature(&scanner, checkPolygon: nil, ring: &ring), scanner.i)
      }
      #expect(read.0 == nil && read.1 == 0, "\(text)")
    }
  }
}

/// A JSON file is read a chunk at a time; one value taken whole may not grow without end.
@Suite("JSON read in chunks")
struct JSONChunkReaderTests {
  @Test func aValueLargerThanTheLimitIsAnError() throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("big.json", containing: "[\n\"" + String(repeating: "x", count: 5_000) + "\"]\n")
    var json = try JSONChunkReader(path: path, chunk: 64, largestValue: 1_000)
    #expect(try json.peek() == UInt8(ascii: "["))
    json.consume()
    #expect {
      _ = try json.value()
    } throws: { error in
      let message = (error as? TrackIOError)?.description ?? ""
      return message.contains("big.json:1:2") && message.contains("a JSON value larger than")
    }
    // The same value under the limit reads.
    var roomy = try JSONChunkReader(path: path, chunk: 64, largestValue: 10_000)
    roomy.consume()
    #expect(try roomy.value().node.kind == "a string")
  }
}
