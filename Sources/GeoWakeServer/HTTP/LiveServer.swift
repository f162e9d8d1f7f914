#if Server
import Foundation
import JSONBytes
import Geofencing
import Hummingbird
import TrackIO
import NIOCore
import ServiceLifecycle

/// How `geowake serve` listens and whom it lets in.
public struct ServerOptions: Sendable {
  public var host: String
  public var port: Int
  public var tokens: AccessTokens?
  /// The largest request body read (bytes); larger gets 413 before it is read whole.
  public var maxBody: Int
  /// Each client's share of ingest.
  public var limits: ClientLimits.Settings

  public init(host: String, port: Int, tokens: AccessTokens?, maxBody: Int = 16 << 20, limits: ClientLimits.Settings = .init()) {
    self.host = host
    self.port = port
    self.tokens = tokens
    self.maxBody = maxBody
    self.limits = limits
  }

  /// Whether `host` is a loopback address (the only kind served without tokens).
  public static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host.hasPrefix("127.")
  }
}

/// The HTTP API of the live engine (docs/serve.md).
public struct LiveServer: Sendable {
  public let engine: LiveEngine
  public let log: EventLog
  public let options: ServerOptions
  /// The APNs endpoint served beside the API, if any.
  public let apns: APNsEndpoint?
  let limits: ClientLimits

  public init(engine: LiveEngine, log: EventLog, options: ServerOptions, apns: APNsEndpoint? = nil) {
    self.engine = engine
    self.log = log
    self.options = options
    self.apns = apns
    limits = ClientLimits(options.limits)
  }

  /// Serves until SIGINT or SIGTERM; `onRunning` gets the bound port, `onAPNsRunning` the APNs
  /// endpoint's. Checkpoints the engine every `settings.checkpointInterval` seconds and once
  /// more on the way out.
  public func run(onRunning: @escaping @Sendable (Int) -> Void, onAPNsRunning: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
    let router = Router(context: ServerContext.self)
    router.add(middleware: ReasonMiddleware(routes: [
      (["healthz"], [.get]), (["openapi.json"], [.get]), (["metrics"], [.get]), (["v1", "fixes"], [.post]),
      (["v1", "events"], [.get]), (["v1", "regions"], [.get]), (["v1", "regions", ":id"], [.get, .put, .delete]),
      (["v1", "devices", ":id"], [.get, .delete]), (["v1", "clock"], [.get, .post]),
    ], authenticate: { request in _ = try await self.authorize(request, nil) }))
    routes(router)
    clockRoutes(router)
    let app = Application(
      router: router,
      configuration: .init(address: .hostname(options.host, port: options.port), serverName: "geowake"),
      onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) })
    var services: [any Service] = [app]
    if let apns { services.append(try apns.application(onRunning: onAPNsRunning)) }
    // Under real time the push devices' clocks follow it: deliveries, handlers and expirations
    // come out as they fall due, a second at most late.
    let ticks = Task {
      guard let devices = apns?.devices, !devices.clock.isSimulated else { return }
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(1))
        do { try await devices.tick() } catch {
          FileHandle.standardError.write(Data("geowake serve: warning: the push devices' steps were not stored: \(error)\n".utf8))
        }
      }
    }
    defer { ticks.cancel() }
    let engine = self.engine
    let interval = engine.settings.checkpointInterval
    let checkpoints = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(interval))
        do { try await engine.checkpoint() } catch {
          // The log still holds every fix: a failed checkpoint only lengthens the next restart.
          FileHandle.standardError.write(Data("geowake serve: warning: checkpoint failed: \(error)\n".utf8))
        }
      }
    }
    defer { checkpoints.cancel() }
    // Both servers in one group, stopped together on SIGINT or SIGTERM. An HTTP/2 client that
    // does not answer GOAWAY's ping would hold the stop for ever: after 10 s its connection is cut.
    var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger)
    group.maximumGracefulShutdownDuration = .seconds(10)
    try await ServiceGroup(configuration: group).run()
    try await engine.checkpoint()
  }

  // MARK: - Routes

  func routes(_ router: Router<ServerContext>) {
    router.get("/healthz") { request, _ -> Response in
      try await self.authorize(request, nil)
      return Self.json("{\"status\":\"ok\"}")
    }
    router.get("/openapi.json") { request, _ -> Response in
      try await self.authorize(request, .read)
      return Self.json(OpenAPIDocument.json)
    }
    router.get("/metrics") { request, _ -> Response in
      try await self.authorize(request, .read)
      let text = await self.engine.metricsText()
      return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
    router.post("/v1/fixes") { request, context -> Response in
      let client = try await self.authorize(request, .ingest) ?? context.remoteAddress?.ipAddress ?? "unknown"
      let body = try await self.body(request)
      let batch: FixBatch
      do throws(FixBatch.Problem) { batch = try FixBatch(body: body) } catch {
        await self.engine.noteRefused("malformed body")
        throw HTTPError(.badRequest, message: "line \(error.line), column \(error.column): \(error.message)")
      }
      guard !batch.items.isEmpty else {
        await self.engine.noteRefused("empty body")
        throw HTTPError(.badRequest, message: "no fix in the body: expected a JSON array of fixes or NDJSON")
      }
      do throws(ClientLimits.Refusal) { try self.limits.admit(client, fixes: batch.items.count) } catch {
        switch error {
        case .rate(let seconds):
          await self.engine.noteRefused("rate limited")
          throw HTTPError(
            .tooManyRequests, headers: [.retryAfter: String(seconds)],
            message: "this client is over its \(Int(self.limits.settings.rate ?? 0)) fixes a second (--client-rate): nothing of the batch was used; send it again in \(seconds) s")
        case .inFlight(let limit):
          await self.engine.noteRefused("too many in flight")
          throw HTTPError(
            .tooManyRequests, headers: [.retryAfter: "1"],
            message: "this client has \(limit) batches in flight (--client-in-flight): nothing of the batch was used; send it once one is answered")
        }
      }
      defer { self.limits.finish(client) }
      let answer: IngestAnswer
      do { answer = try await self.engine.ingest(batch) } catch let error as StoreError {
        throw HTTPError(.serviceUnavailable, message: "the batch was not stored (\(error.message)); nothing of it was used: send it again")
      }
      return Self.json(answer.json())
    }
    router.get("/v1/events") { request, _ -> Response in
      try await self.authorize(request, .read)
      return try await self.events(request)
    }
    router.get("/v1/regions") { request, _ -> Response in
      try await self.authorize(request, .read)
      let fences = await self.engine.fences
      return Self.json(RegionsDocument.json(fences.regions.regions, version: fences.row))
    }
    router.get("/v1/regions/:id") { request, context -> Response in
      try await self.authorize(request, .read)
      let id = try Self.regionIdentifier(context)
      guard let region = await self.engine.fences.regions[id] else {
        throw HTTPError(.notFound, message: "no region \(JSONText.quoted(id.rawValue)) in the fence set")
      }
      return Self.json(RegionsDocument.feature(region))
    }
    router.put("/v1/regions/:id") { request, context -> Response in
      try await self.authorize(request, .admin)
      let id = try Self.regionIdentifier(context)
      let body = try await self.body(request)
      let region: Region
      let wanted: RegionNotifications
      do throws(TrackIOError) { (region, wanted) = try FenceSet.region(id.rawValue, body: body) } catch {
        await self.engine.noteRefused("malformed region")
        throw HTTPError(.badRequest, message: "line \(error.line), column \(error.column): \(error.message)")
      }
      let answer: LiveEngine.FenceAnswer
      do { answer = try await self.engine.put(region, wanting: wanted, body: body) } catch let error as StoreError {
        throw HTTPError(.serviceUnavailable, message: "the region was not stored (\(error.message)): send it again")
      }
      return Self.json(Self.json(answer, replaced: "replaced"), status: answer.existed ? .ok : .created)
    }
    router.delete("/v1/regions/:id") { request, context -> Response in
      try await self.authorize(request, .admin)
      let id = try Self.regionIdentifier(context)
      let answer: LiveEngine.FenceAnswer?
      do { answer = try await self.engine.remove(id) } catch let error as StoreError {
        throw HTTPError(.serviceUnavailable, message: "the removal was not stored (\(error.message)): send it again")
      }
      guard let answer else { throw HTTPError(.notFound, message: "no region \(JSONText.quoted(id.rawValue)) in the fence set") }
      return Self.json(Self.json(answer, replaced: "removed"))
    }
    router.get("/v1/devices/:id") { request, context -> Response in
      try await self.authorize(request, .read)
      let id = context.parameters.get("id") ?? ""
      if await self.engine.report(device: id) == nil, let pushed = await self.apns?.devices.report(device: id) { return Self.json(pushed) }
      guard let report = await self.engine.report(device: id) else {
        throw HTTPError(.notFound, message: "no device \(JSONText.quoted(id)) has sent a fix")
      }
      return Self.json(Self.json(report))
    }
    router.delete("/v1/devices/:id") { request, context -> Response in
      try await self.authorize(request, .admin)
      let id = context.parameters.get("id") ?? ""
      if await self.engine.report(device: id) == nil, let devices = self.apns?.devices {
        do {
          if let ended = try await devices.end(device: id) {
            return Self.json("{\"device\":\(JSONText.quoted(id)),\"ended\":\(ended)}")
          }
        } catch let error as StoreError {
          throw HTTPError(.serviceUnavailable, message: "the end was not stored (\(error.message)): send it again")
        }
      }
      let answer: IngestAnswer?
      do { answer = try await self.engine.end(device: id) } catch let error as StoreError {
        throw HTTPError(.serviceUnavailable, message: "the end was not stored (\(error.message)): send it again")
      }
      guard let answer else { throw HTTPError(.notFound, message: "device \(JSONText.quoted(id)) has no live track") }
      return Self.json("{\"device\":\(JSONText.quoted(id)),\"ended\":true,\"events\":\(answer.events),\"lastSeq\":\(answer.lastSequence)}")
    }
  }

  static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
  }

  static func regionIdentifier(_ context: ServerContext) throws -> RegionIdentifier {
    let text = context.parameters.get("id") ?? ""
    do { return try RegionIdentifier(text) } catch {
      throw HTTPError(.badRequest, message: "region \(JSONText.quoted(text)): \(error.description)")
    }
  }

  static func json(_ answer: LiveEngine.FenceAnswer, replaced: String) -> String {
    "{\"region\":\(JSONText.quoted(answer.region)),\"\(answer.existed ? replaced : "created")\":true,\"version\":\(answer.version),"
      + "\"events\":\(answer.events),\"lastSeq\":\(answer.lastSequence)}"
  }

  static func json(_ report: DeviceReport) -> String {
    var out = "{\"device\":\(JSONText.quoted(report.device)),\"inside\":[" + report.inside.map(JSONText.quoted).joined(separator: ",") + "]"
    if let fix = report.lastFix {
      out += ",\"lastFix\":{\"time\":\(fix.time),\"lat\":\(fix.latitude),\"lon\":\(fix.longitude)"
      if let a = fix.accuracy { out += ",\"accuracy\":\(a)" }
      out += "}"
    }
    if let ended = report.endedAt { out += ",\"endedAt\":\(ended)" }
    out += ",\"fixesUsed\":\(report.fixesUsed),\"pending\":[" + report.pending.joined(separator: ",") + "]}"
    return out
  }

  /// The body, up to `maxBody` bytes: a larger one is refused with 413 as soon as it is known
  /// to be larger (its Content-Length, or the bytes read so far).
  func body(_ request: Request) async throws -> [UInt8] {
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > options.maxBody {
      await engine.noteRefused("body too large")
      throw HTTPError(.contentTooLarge, message: "the body is \(length) bytes: the limit is \(options.maxBody) (--max-body)")
    }
    var request = request
    do {
      let buffer = try await request.collectBody(upTo: options.maxBody)
      return Array(buffer.readableBytesView)
    } catch let error as HTTPError where error.status == .contentTooLarge {
      await engine.noteRefused("body too large")
      throw HTTPError(.contentTooLarge, message: "the body is larger than the limit of \(options.maxBody) bytes (--max-body)")
    }
  }

  /// Lets the request through when the server has no tokens, or when it bears a token with
  /// `scope` (any known token, for a nil scope).
  /// - Returns: the token, which names the client; nil without tokens.
  @discardableResult
  func authorize(_ request: Request, _ scope: AccessScope?) async throws -> String? {
    guard let tokens = options.tokens else { return nil }
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
      await engine.noteRefused("unauthorized")
      throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "a bearer token is required (Authorization: Bearer TOKEN)")
    }
    guard let scopes = tokens.scopes(of: header.utf8.dropFirst(7)) else {
      await engine.noteRefused("unauthorized")
      throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""], message: "the token is not known")
    }
    if let scope, !scopes.contains(scope) {
      await engine.noteRefused("forbidden")
      throw HTTPError(.forbidden, message: "the token lacks the \(scope.rawValue) scope")
    }
    return String(header.dropFirst(7))
  }
}
#endif
