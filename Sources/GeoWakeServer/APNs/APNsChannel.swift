#if Server
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP2
import NIOHPACK
import NIOSSL
import NIOTLS

/// A connection to the APNs endpoint, speaking what the client speaks: over TLS, HTTP/2 when
/// ALPN says `h2`, HTTP/1.1 when it says `http/1.1`, and when the client offers no ALPN at all
/// (as some APNs libraries do: Apple's servers take HTTP/2 from them) the protocol its first
/// bytes are — HTTP/2's connection preface or an HTTP/1.1 request line. In cleartext, the same
/// look at the first bytes decides.
struct APNsChannel: ServerChildChannel {
  /// What a connection speaks, set up: HTTP/1.1 through Hummingbird's channel, HTTP/2 frame by
  /// frame (``APNsStreams``).
  enum Negotiated: Sendable {
    case http1(HTTP1Channel.Value)
    case http2
  }

  struct Value: ServerChildChannelValue {
    let negotiated: EventLoopFuture<Negotiated>
    let channel: any Channel
  }

  let tls: NIOSSLContext?
  let http1: HTTP1Channel
  let devices: PushDevices

  init(tls: TLSConfiguration?, http1 configuration: HTTP1Channel.Configuration, devices: PushDevices, responder: @escaping HTTPChannelHandler.Responder) throws {
    if var tls {
      tls.applicationProtocols = ["h2", "http/1.1"]
      self.tls = try NIOSSLContext(configuration: tls)
    } else {
      self.tls = nil
    }
    http1 = HTTP1Channel(responder: responder, configuration: configuration)
    self.devices = devices
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let http1 = self.http1
    let devices = self.devices
    @Sendable func configure(http2 isHTTP2: Bool) -> EventLoopFuture<Negotiated> {
      guard isHTTP2 else { return http1.setup(channel: channel, logger: logger).map { .http1($0) } }
      return channel.eventLoop.makeCompletedFuture {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = APNsStreams.settings
        try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: connection))
        try channel.pipeline.syncOperations.addHandler(APNsStreams(devices: devices))
        return .http2
      }
    }
    @Sendable func sniff() -> EventLoopFuture<Negotiated> {
      let promise = channel.eventLoop.makePromise(of: Negotiated.self)
      do { try channel.pipeline.syncOperations.addHandler(PrefaceSniffer(promise: promise, configure: configure)) } catch {
        promise.fail(error)
      }
      return promise.futureResult
    }
    guard let tls else {
      return channel.eventLoop.makeCompletedFuture { Value(negotiated: sniff(), channel: channel) }
    }
    return channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
      // The negotiation handler holds back what comes after the handshake until its future is
      // done: without ALPN the sniffer must see those bytes, so the future it is given is done
      // at once and carries the sniffer's.
      let alpn = NIOTypedApplicationProtocolNegotiationHandler<EventLoopFuture<Negotiated>> { result in
        switch result {
        case .negotiated("h2"): return channel.eventLoop.makeSucceededFuture(configure(http2: true))
        case .negotiated("http/1.1"): return channel.eventLoop.makeSucceededFuture(configure(http2: false))
        case .fallback: return channel.eventLoop.makeSucceededFuture(sniff())
        case .negotiated:
          return channel.close().flatMap { channel.eventLoop.makeFailedFuture(NIOHTTP2Errors.invalidALPNToken()) }
        }
      }
      try channel.pipeline.syncOperations.addHandler(alpn)
      return Value(negotiated: alpn.protocolNegotiationResult.flatMap { $0 }, channel: channel)
    }
  }

  func handle(value: Value, logger: Logger) async {
    do {
      switch try await value.negotiated.get() {
      case .http1(let connection): await http1.handle(value: connection, logger: logger)
      case .http2: try await value.channel.closeFuture.get()
      }
    } catch {
      logger.debug("APNs connection closed before a request: \(error)")
      try? await value.channel.close()
    }
  }
}

/// Reads a connection's first bytes: HTTP/2's preface (RFC 9113 §3.4) configures HTTP/2, anything
/// else HTTP/1.1; then hands the bytes on and leaves the pipeline.
final class PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

  let promise: EventLoopPromise<APNsChannel.Negotiated>
  let configure: @Sendable (Bool) -> EventLoopFuture<APNsChannel.Negotiated>
  var seen: ByteBuffer?
  var decided = false

  init(promise: EventLoopPromise<APNsChannel.Negotiated>, configure: @escaping @Sendable (Bool) -> EventLoopFuture<APNsChannel.Negotiated>) {
    self.promise = promise
    self.configure = configure
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var bytes = unwrapInboundIn(data)
    guard !decided else { return context.fireChannelRead(data) }
    if seen == nil { seen = bytes } else { seen!.writeBuffer(&bytes) }
    let view = seen!.readableBytesView
    let n = min(view.count, Self.preface.count)
    let isPreface = view.prefix(n).elementsEqual(Self.preface.prefix(n))
    if isPreface && n < Self.preface.count { return }
    decided = true
    let contextBox = NIOLoopBound(context, eventLoop: context.eventLoop)
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    configure(isPreface).whenComplete { result in
      let context = contextBox.value
      let this = handler.value
      switch result {
      case .success(let negotiated):
        this.promise.succeed(negotiated)
        if let seen = this.seen { context.fireChannelRead(this.wrapInboundOut(seen)) }
        this.seen = nil
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
      case .failure(let error):
        this.promise.fail(error)
        context.close(promise: nil)
      }
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    if !decided { promise.fail(ChannelError.inputClosed) }
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if !decided {
      decided = true
      promise.fail(error)
      context.close(promise: nil)
    } else {
      context.fireErrorCaught(error)
    }
  }
}
#endif
