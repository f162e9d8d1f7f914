#if Server
import Foundation

/// Where `geowake serve --nats URL` takes fixes from and puts events (docs/serve.md, NATS).
public struct NATSOptions: Sendable {
  public var url: String
  /// The stream the fixes are published to, on `fixesSubject.<device>`.
  public var fixesStream = "GEOWAKE_FIXES"
  public var fixesSubject = "geowake.fixes"
  /// The stream the events go to, on `eventsSubject.<device>`.
  public var eventsStream = "GEOWAKE_EVENTS"
  public var eventsSubject = "geowake.events"
  /// The durable consumer of the fixes (one per data directory).
  public var durable = "geowake"
  /// Fix messages used in one batch, at most.
  public var batch = 1_000

  public init(url: String) { self.url = url }

  /// What is wrong with a server URL the client would take (`nats://HOST[:PORT]` or
  /// `tls://HOST[:PORT]`, optionally `USER:PASSWORD@` or `TOKEN@` before the host, an IPv6 host
  /// in brackets; several separated by commas), or nil when nothing is.
  public static func problem(in url: String) -> String? {
    let servers = url.split(separator: ",", omittingEmptySubsequences: false)
    for server in servers {
      let text = server.trimmingCharacters(in: .whitespaces)
      // Named when there are several.
      let prefix = servers.count > 1 ? "\(text): " : ""
      guard !text.isEmpty else { return "an empty server between commas" }
      guard let scheme = text.range(of: "://") else { return prefix + "no scheme: expected nats://HOST:PORT" }
      let name = text[..<scheme.lowerBound].lowercased()
      guard name == "nats" || name == "tls" else { return prefix + "expected the scheme nats:// or tls://, not \(name)://" }
      var authority = text[scheme.upperBound...]
      if authority.hasSuffix("/") { authority = authority.dropLast() }
      if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
      guard !authority.contains("/"), !authority.contains("?") else { return prefix + "expected nothing after HOST:PORT" }
      var host = authority
      var port: Substring?
      if authority.hasPrefix("[") {
        guard let close = authority.firstIndex(of: "]") else { return prefix + "an IPv6 host without its closing ]" }
        host = authority[authority.index(after: authority.startIndex)..<close]
        let rest = authority[authority.index(after: close)...]
        if !rest.isEmpty {
          guard rest.hasPrefix(":") else { return prefix + "expected :PORT after the IPv6 host" }
          port = rest.dropFirst()
        }
      } else if let colon = authority.lastIndex(of: ":") {
        host = authority[..<colon]
        port = authority[authority.index(after: colon)...]
      }
      guard !host.isEmpty else { return prefix + "expected a host" }
      if let port, !(port.allSatisfy(\.isASCII) && Int(port).map({ (1...65_535).contains($0) }) == true) {
        return prefix + "expected a port 1…65535, not \"\(port)\""
      }
    }
    return nil
  }
}

/// The engine over NATS JetStream: fix messages from a durable pull consumer go to the engine a
/// batch at a time, as a `POST /v1/fixes` would; the events the store holds go to the events'
/// stream in order, each with `Nats-Msg-Id` = device and sequence number, so that JetStream drops
/// one published twice; and a batch's messages are acknowledged only once its fixes are used
/// (durable) and its events stored in JetStream. A crash at any point repeats nothing: fixes
/// delivered again are repeats, events published again are dropped as duplicates, and where the
/// events' publication had got to is kept in the store.
public struct NATSBridge: Sendable {
  public let engine: LiveEngine
  public let options: NATSOptions
  let log: EventLog

  public init(engine: LiveEngine, dataDirectory: String, options: NATSOptions) throws(StoreError) {
    self.engine = engine
    self.options = options
    log = try EventLog(dataDirectory: dataDirectory)
  }

  /// Connects, then runs until the task is cancelled or the notifier closed (the server stops).
  /// Any failure (a NATS outage, a store error) drops the connection and starts again from the
  /// last fix message used, so that fixes are always used in the stream's order.
  public func run() async throws {
    var failures = 0
    var announced = false
    while !Task.isCancelled && !engine.notifier.isClosed {
      do {
        let link = try await NATSLink.open(options, after: try await engine.natsFixesUsed())
        if !announced {
          announced = true
          FileHandle.standardError.write(Data(
            ("geowake serve: taking fixes from NATS \(options.url) (\(options.fixesSubject).<device>, stream \(options.fixesStream)), "
              + "events to \(options.eventsSubject).<device> (stream \(options.eventsStream))\n").utf8))
        }
        failures = 0
        try await serve(on: link)
      } catch {
        failures += 1
        if failures == 1 || failures.isMultiple(of: 20) {
          let next = announced ? "starting again from the last fix used" : "no fix is taken from NATS until it answers; trying again until it does"
          FileHandle.standardError.write(Data("geowake serve: warning: NATS: \(error); \(next)\n".utf8))
        }
        try? await Task.sleep(for: .milliseconds(min(2_000, 100 * failures)))
      }
    }
  }

  /// Fix messages to the engine and events to JetStream, until the server stops.
  func serve(on link: NATSLink) async throws {
    var published = try await engine.publishedToNATS()
    while !Task.isCancelled && !engine.notifier.isClosed {
      published = try await publish(after: published, on: link)
      let fetched = try await link.fetch(options.batch, waiting: 250)
      guard !fetched.bodies.isEmpty else { continue }
      var batch = try FixBatch(body: [])
      // A message's place in the fetch is the line its items are answered at.
      for (place, body) in fetched.bodies.enumerated() {
        let line = place + 1
        do {
          let one = try FixBatch(body: body)
          batch.items += one.items.map { var item = $0; item.index = batch.items.count; item.line = line; return item }
        } catch {
          // A message that is no fix is answered as a line that is none: rejected, with why.
          batch.items.append(.init(index: batch.items.count, line: line, column: error.column, fix: .failure(error)))
        }
      }
      let answer = try await engine.ingest(batch)
      try await engine.noteNATS(fixes: answer.items.count, rejected: answer.items.count { $0.status == .rejected }, through: fetched.last)
      published = try await publish(after: published, on: link)
      await link.acknowledge(fetched)
    }
  }

  /// Publishes the stored events after `seq`, in order, a page at a time, each page stored in
  /// JetStream before the next; returns the last published.
  func publish(after seq: Int64, on link: NATSLink) async throws -> Int64 {
    var last = seq
    while true {
      let page = try await log.eventsWithDevice(after: last, limit: 1_000)
      guard let end = page.last?.seq else { return last }
      let messages = page.map { e in
        (subject: options.eventsSubject + "." + Self.token(e.device), id: "\(e.device)-\(e.seq)", body: e.line)
      }
      try await link.publish(messages, waiting: 10_000)
      try await engine.notePublishedToNATS(through: end, count: page.count)
      last = end
    }
  }

  /// A device name as one subject token: bytes a token may not hold (`.`, `*`, `>`, `%`, spaces
  /// and control characters) written `%XX`.
  public static func token(_ device: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for byte in device.utf8 {
      switch byte {
      case UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: ">"), UInt8(ascii: "%"), 0...32, 127:
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      default: out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
#endif
