import SeededRandom
import Testing
import _GeoWakeTestSupport

@testable import TrackIO

/// A file with a device column read in pieces on several threads against the same file read by
/// one reader: the same steps, row for row, on generated files with every kind of row.
@Suite("Device rows read in pieces")
struct DeviceRowPiecesTests {
  /// What a reader's steps say, with the batches' cuts and the rows' grouping taken out: each
  /// device change, good row, error and warning, in file order.
  enum Event: Hashable {
    case device(String, line: Int)
    case row(time: Double, lat: Double, lon: Double, accuracy: Double?, line: Int32, cell: String?)
    case error(String)
    case warning(String)
  }

  static func events(_ batches: [DeviceRowBatch]) -> [Event] {
    var out: [Event] = []
    for b in batches {
      for step in b.steps {
        switch step {
        case .device(let name, let line, _): out.append(.device(name, line: line))
        case .rows(let r):
          for i in r {
            let f = b.rows.fixes[i]
            out.append(
              .row(
                time: f.time, lat: f.coordinate.latitude, lon: f.coordinate.longitude, accuracy: f.horizontalAccuracy,
                line: b.rows.lines[i], cell: b.rows.cells.isEmpty ? nil : b.rows.cells[i].map(\.description)))
          }
        case .error(let e): out.append(.error(e.description))
        case .warning(let w): out.append(.warning(w.description))
        }
      }
    }
    return out
  }

  /// A fleet's file: devices interleaved or in runs, times in seconds, ISO 8601 or milliseconds
  /// (sometimes mixed), quoted names, comments, empty lines, bad rows of every kind, and a last
  /// line with or without its line end.
  static func file(seed: UInt64, rows: Int) -> String {
    var random = SeededGenerator(seed: seed)
    let cells = random.integer(in: 0...1) == 1
    var text = "# a fleet\n" + (cells ? "device,time,lat,lon,accuracy,cell\n" : "device,time,lat,lon,accuracy\n")
    let devices = random.integer(in: 1...12)
    let runs = random.integer(in: 0...1) == 1
    let millis = random.integer(in: 0...3)
    var device = 0
    for k in 0..<rows {
      if !runs || random.integer(in: 0...40) == 0 { device = random.integer(in: 0...(devices - 1)) }
      let name = random.integer(in: 0...30) == 0 ? "\"d\(device)\"" : "d\(device)"
      let seconds = 1_714_550_400 + k
      let time: String
      switch millis {
      case 0: time = "\(seconds)"
      case 1: time = "\(seconds * 1000)"
      case 2: time = random.integer(in: 0...200) == 0 ? "\(seconds * 1000)" : "\(seconds)"
      default: time = "2024-05-01T07:\(String(format2: (k / 60) % 60)):\(String(format2: k % 60))Z"
      }
      var lat = String(37.7 + random.uniform(0.0...0.1))
      var line = "\(name),\(time),\(lat),-122.4,\(random.integer(in: 1...20))"
      switch random.integer(in: 0...120) {
      case 0: line = "\(name),\(time),\(lat)"  // too few fields
      case 1:
        lat = "91.5"
        line = "\(name),\(time),\(lat),-122.4,5"
      case 2: line = ",\(time),\(lat),-122.4,5"  // no device
      case 3: line = "# a comment"
      case 4: line = ""
      case 5: line = "\(name),yesterday,\(lat),-122.4,5"
      default: break
      }
      if cells && !line.hasPrefix("#") && !line.isEmpty { line += random.integer(in: 0...5) == 0 ? "," : ",LTE 310-410-\(7 + device)-\(100 + device)" }
      text += line + "\n"
    }
    if random.integer(in: 0...1) == 1 { text.removeLast() }
    return text
  }

  @Test(arguments: Array(UInt64(1)...UInt64(24)))
  func piecesMakeTheStepsOfOneReader(seed: UInt64) throws {
    let folder = try TemporaryFolder()
    let path = try folder.file("fleet-\(seed).csv", containing: Self.file(seed: seed, rows: 400 + Int(seed) * 37))
    var one = DeviceRowReader(reader: try TrackFileReader(path: path), pending: nil)
    var expected: [DeviceRowBatch] = []
    while let b = one.next() { expected.append(b) }
    let want = Self.events(expected)
    #expect(want.contains { if case .row = $0 { true } else { false } })
    for (readers, piece) in [(1, 97), (2, 300), (3, 1_000), (2, 1 << 20)] {
      var pieces = try DeviceRowPieces(path: path, assumeUTC: false, readers: readers, pieceSize: piece)
      var got: [DeviceRowBatch] = []
      while let b = pieces.next() { got.append(b) }
      let have = Self.events(got)
      if let k = Array(zip(have, want)).firstIndex(where: { $0.0 != $0.1 }) ?? (have.count == want.count ? nil : min(have.count, want.count)) {
        let around = { (e: [Event]) in e[max(0, k - 2)..<min(e.count, k + 2)].map { "\($0)" }.joined(separator: "\n  ") }
        Issue.record("seed \(seed), \(readers) readers, pieces of \(piece) bytes, step \(k):\n pieces\n  \(around(have))\n one reader\n  \(around(want))")
      }
    }
  }

  @Test func aDeviceGoingOnAcrossACutDoesNotChangeThere() throws {
    let folder = try TemporaryFolder()
    var text = "device,time,lat,lon\n"
    for k in 0..<200 { text += "van,\(1_714_550_400 + k),37.7,-122.4\n" }
    let path = try folder.file("one.csv", containing: text)
    var pieces = try DeviceRowPieces(path: path, assumeUTC: false, readers: 3, pieceSize: 256)
    var got: [DeviceRowBatch] = []
    while let b = pieces.next() { got.append(b) }
    #expect(got.count > 5)
    let devices = Self.events(got).filter { if case .device = $0 { true } else { false } }
    #expect(devices == [.device("van", line: 2)])
  }

  @Test func onlyPlainCSVFilesWithADeviceColumnAreReadInPieces() throws {
    let folder = try TemporaryFolder()
    #expect(DeviceRowPieces.readable(path: try folder.file("a.csv", containing: "device,time,lat,lon\na,1,2,3\n")))
    #expect(!DeviceRowPieces.readable(path: try folder.file("b.csv", containing: "time,lat,lon\n1,2,3\n")))
    #expect(!DeviceRowPieces.readable(path: try folder.file("c.jsonl", containing: "{\"device\":\"a\",\"time\":1,\"lat\":2,\"lon\":3}\n")))
    #expect(!DeviceRowPieces.readable(path: "-"))
  }
}

extension String {
  fileprivate init(format2 n: Int) { self = n < 10 ? "0\(n)" : "\(n)" }
}
