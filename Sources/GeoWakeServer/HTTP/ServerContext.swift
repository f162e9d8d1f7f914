#if Server
public import Hummingbird
public import NIOCore

/// A request's context: Hummingbird's, and the address of the client it came from (the client
/// limits name a client by it when the server has no tokens).
public struct ServerContext: RequestContext, RemoteAddressRequestContext {
  public var coreContext: CoreRequestContextStorage
  public let remoteAddress: SocketAddress?

  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }
}
#endif
