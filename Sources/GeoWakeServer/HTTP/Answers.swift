#if Server
import Hummingbird

/// Every refusal says why: a request for no route gets a 404 naming the path, and a route asked
/// with a method it does not take gets 405 with `Allow`, each with a JSON reason (Hummingbird's
/// own answers have no body). Both only to a client with a token, when tokens are asked for:
/// without one, which routes there are is not told (401).
struct ReasonMiddleware: RouterMiddleware {
  typealias Context = ServerContext
  /// The routes and the methods each takes (`:id` matches one path segment).
  let routes: [(pattern: [Substring], methods: [HTTPRequest.Method])]
  /// Throws the 401 for a request without a known token (when the server has tokens).
  let authenticate: @Sendable (Request) async throws -> Void

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as HTTPError where error.status == .notFound && error.body == nil {
      try await authenticate(request)
      let path = request.uri.path
      let segments = path.split(separator: "/")
      if let route = routes.first(where: { Self.matches($0.pattern, segments) }) {
        let allowed = route.methods.map(\.rawValue).joined(separator: ", ")
        throw HTTPError(
          .methodNotAllowed, headers: [.allow: allowed], message: "\(request.method.rawValue) \(path): this route takes \(allowed)")
      }
      throw HTTPError(.notFound, message: "no route \(path): see GET /openapi.json")
    }
  }

  static func matches(_ pattern: [Substring], _ segments: [Substring]) -> Bool {
    pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
  }
}
#endif
