#if Server
import Foundation
import Hummingbird
import HummingbirdHTTP2
import NIOSSL
import HummingbirdCore
import HTTPTypes
import NIOCore
import BackgroundRuntime

/// The APNs endpoint of `geowake serve --apns HOST:PORT`: `POST /3/device/<token>` as
/// `api.push.apple.com` answers it — the status, `apns-id` on every answer (and `apns-unique-id`
/// on accepted ones, as the development environment sends), the reason as
/// `{"reason": …}` (with `timestamp` for 410) — and the push on the device behind the token
/// (``PushDevices``). Every path and method is answered as APNs would (405 `MethodNotAllowed`,
/// 404 `BadPath`, …), never with a page of the server's own.
public struct APNsEndpoint: Sendable {
  /// How the endpoint speaks.
  public enum Transport: String, CaseIterable, Sendable {
    /// TLS, as APNs: HTTP/2 (ALPN `h2`, or its preface from a client that offers no ALPN) or
    /// HTTP/1.1 for a client that asks for it.
    case tls
    /// Cleartext, as client libraries' own tests often talk to a mock: HTTP/2 with prior
    /// knowledge (its preface) or HTTP/1.1, told apart by the first bytes.
    case cleartext
  }

  public let host: String
  public let port: Int
  public let transport: Transport
  public let tls: APNsTLS?
  public let devices: PushDevices
  /// The largest body read; larger is 413 `PayloadTooLarge` at once (APNs' limits are 4 KB and
  /// 5 KB: this is only where the endpoint stops reading).
  static let bodyLimit = 1 << 16

  public init(host: String, port: Int, transport: Transport, tls: APNsTLS?, devices: PushDevices) {
    self.host = host
    self.port = port
    self.transport = transport
    self.tls = tls
    self.devices = devices
  }

  /// The device token of a request's path (`/3/device/<token>`); empty for any other path.
  static func token(path: String) -> String {
    let prefix = "/3/device/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : ""
  }

  /// Headers HTTP itself sends, not the provider: APNs reads only its own headers and
  /// authorization, and HTTP/1.1 clients send these.
  static let transportHeaders: Set<String> = ["host", "content-length", "user-agent", "accept", "accept-encoding", "connection", "content-type", "te"]

  /// The provider's headers of a request (lowercase names), in their order: neither HTTP/2's
  /// pseudo-headers nor what HTTP sends by itself.
  static func providerHeaders(_ fields: some Sequence<(String, String)>) -> [ProviderRequest.Header] {
    var headers: [ProviderRequest.Header] = []
    for (name, value) in fields where isProviderHeader(name) { headers.append(.init(name, value)) }
    return headers
  }

  /// Whether a header (lowercase name) is the provider's: not a pseudo-header, not one HTTP sends.
  static func isProviderHeader(_ name: String) -> Bool {
    name.utf8.first != UInt8(ascii: ":") && !transportHeaders.contains(name)
  }

  /// The answer to a request when the event store failed: APNs' own for a server that cannot
  /// take it, with an apns-id as every answer has (the request's own when it is a UUID).
  static func unavailable(apnsID sent: String?) -> PushBook.Answer {
    let id = sent.flatMap { UUID(uuidString: $0) == nil ? nil : $0 } ?? UUID().uuidString
    return .init(status: 503, apnsID: id, uniqueID: nil, body: "{\"reason\":\"ServiceUnavailable\"}")
  }

  /// The endpoint as a service; `onRunning` gets the bound port.
  func application(onRunning: @escaping @Sendable (Int) -> Void) throws -> some ApplicationProtocol {
    let router = Router(context: ServerContext.self)
    router.add(middleware: Handler(devices: devices))
    let tls: TLSConfiguration?
    switch transport {
    case .tls:
      guard let identity = self.tls else { preconditionFailure("the TLS transport has its identity") }
      tls = identity.configuration
    case .cleartext: tls = nil
    }
    let devices = self.devices
    let server = HTTPServerBuilder { responder in try APNsChannel(tls: tls, http1: .init(), devices: devices, responder: responder) }
    return Application(
      router: router, server: server,
      configuration: .init(address: .hostname(host, port: port), serverName: "geowake-apns"),
      onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) })
  }

  /// Answers every request itself (no route of the server's).
  struct Handler: RouterMiddleware {
    typealias Context = ServerContext
    let devices: PushDevices

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
      let path = request.uri.path
      let token = APNsEndpoint.token(path: path)
      let headers = APNsEndpoint.providerHeaders(request.headers.lazy.map { ($0.name.canonicalName, $0.value) })
      var request = request
      let body: [UInt8]?
      do {
        let buffer = try await request.collectBody(upTo: APNsEndpoint.bodyLimit)
        body = buffer.readableBytes == 0 ? nil : Array(buffer.readableBytesView)
      } catch let error as HTTPError where error.status == .contentTooLarge {
        let answer = await devices.tooLarge(method: request.method.rawValue, path: path, token: token, headers: headers)
        return Self.response(answer)
      }
      let answer: PushBook.Answer
      do {
        answer = try await devices.send(method: request.method.rawValue, path: path, token: token, headers: headers, body: body)
      } catch {
        return Self.response(APNsEndpoint.unavailable(apnsID: request.headers[HTTPField.Name("apns-id")!]))
      }
      return Self.response(answer)
    }

    static func response(_ answer: PushBook.Answer) -> Response {
      var headers = HTTPFields()
      if !answer.apnsID.isEmpty { headers[HTTPField.Name("apns-id")!] = answer.apnsID }
      if let unique = answer.uniqueID { headers[HTTPField.Name("apns-unique-id")!] = unique }
      guard let body = answer.body else {
        return Response(status: .init(code: answer.status), headers: headers, body: .init())
      }
      headers[.contentType] = "application/json"
      return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
  }
}
#endif
