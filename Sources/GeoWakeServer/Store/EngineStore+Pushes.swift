#if Server
import BackgroundRuntime
import CSQLite
import Foundation
import JSONBytes

/// The APNs endpoint's inputs, in the order they were taken (table `pushes`): a provider's request
/// (`kind` 0, with its time, its token, its method, path and headers as JSON, its body as sent), the push devices' clock run to a time
/// (`kind` 1: a simulated clock moved, or real time reached with steps released), a device's life
/// ended (`kind` 2, its token). The push devices are a function of it: replaying it gives their
/// state and every step again, and each row is written in the transaction of the steps it
/// released, so a crash leaves no step without its input and no input without its steps.
extension EngineStore {
  enum PushInput: Sendable, Equatable {
    case request(PushLogRequest)
    case run(until: Double)
    case end(token: String, at: Double)
  }

  /// A request as the endpoint took it.
  struct PushLogRequest: Sendable, Equatable {
    var time: Double
    var method: String
    var path: String
    var token: String
    var headers: [ProviderRequest.Header]
    var body: [UInt8]?
  }

  /// What is stored of a request besides its time, token and body: its method, path and headers
  /// (`[[name, value], …]`), as JSON written here (a JSON encoder would cost more than the rest
  /// of the request).
  struct RequestLine: Decodable {
    var method: String
    var path: String
    var headers: [[String]]

    static func text(_ r: PushLogRequest) -> String {
      var out: [UInt8] = []
      out.reserveCapacity(48 + r.path.utf8.count + r.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 })
      out.append(contentsOf: "{\"method\":".utf8)
      JSONText.appendQuoted(r.method, to: &out)
      out.append(contentsOf: ",\"path\":".utf8)
      JSONText.appendQuoted(r.path, to: &out)
      out.append(contentsOf: ",\"headers\":[".utf8)
      for (i, header) in r.headers.enumerated() {
        out.append(contentsOf: i > 0 ? ",[".utf8 : "[".utf8)
        JSONText.appendQuoted(header.name, to: &out)
        out.append(UInt8(ascii: ","))
        JSONText.appendQuoted(header.value, to: &out)
        out.append(UInt8(ascii: "]"))
      }
      out.append(contentsOf: "]}".utf8)
      return String(decoding: out, as: UTF8.self)
    }
  }

  func appendPushInput(_ input: PushInput) throws(StoreError) {
    let insert = insertPush
    defer { insert.reset() }
    switch input {
    case .request(let r):
      try insert.bind(.integer(0), .real(r.time), .text(r.token), .text(RequestLine.text(r)), r.body.map { .blob($0) })
    case .run(let time): try insert.bind(.integer(1), .real(time), nil, nil, nil)
    case .end(let token, let time): try insert.bind(.integer(2), .real(time), .text(token), nil, nil)
    }
    try insert.run()
  }

  /// The `meta` key of what the push devices were set up with (their platforms, apps and keys).
  static let pushSetupKey = "apns-setup"

  /// Stores `fingerprint` as the push devices' setup, or checks it against the stored one when
  /// inputs are stored: they replay to the same devices only under the same setup.
  /// - Throws: ``StoreError`` when inputs were taken under another setup.
  func adoptPushSetup(_ fingerprint: String) throws(StoreError) {
    try readPosition.bind(.text(Self.pushSetupKey))
    let stored = try readPosition.step() ? readPosition.text(0) : nil
    readPosition.reset()
    if let stored, stored != fingerprint {
      let count = try connection.prepare("SELECT 1 FROM pushes LIMIT 1")
      if try count.step() {
        throw StoreError(
          message: "\(path) holds pushes taken with other APNs devices (--apns-devices, --apns-app, --apns-key or --platform differ): "
            + "start with the same ones, or with another --data directory",
          code: SQLITE_MISMATCH)
      }
    }
    try writePosition.bind(.text(Self.pushSetupKey), .text(fingerprint))
    try writePosition.run()
  }

  /// Every push input, in the order taken.
  func pushInputs() throws(StoreError) -> [PushInput] {
    let read = try connection.prepare("SELECT kind, time, token, request, body FROM pushes ORDER BY id")
    var out: [PushInput] = []
    let decoder = JSONDecoder()
    while try read.step() {
      switch read.integer(0) {
      case 0:
        let line: RequestLine
        do { line = try decoder.decode(RequestLine.self, from: Data(read.text(3).utf8)) } catch {
          throw StoreError(message: "a stored push request cannot be read: \(error)", code: 1)
        }
        out.append(.request(PushLogRequest(
          time: read.real(1), method: line.method, path: line.path, token: read.text(2),
          headers: line.headers.map { .init($0.first ?? "", $0.count > 1 ? $0[1] : "") },
          body: read.isNull(4) ? nil : read.blob(4))))
      case 1: out.append(.run(until: read.real(1)))
      default: out.append(.end(token: read.text(2), at: read.real(1)))
      }
    }
    return out
  }
}
#endif
