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
  typealias Negotiated = NIONegotiatedHTTPVersion<HTTP1Channel.Value, HTTP2Channel.Value>

  struct Value: ServerChildChannelValue {
    let negotiated: EventLoopFuture<Negotiated>
    let channel: any Channel
  }

  let tls: NIOSSLContext?
  let http1: HTTP1Channel
  let http2: HTTP2Channel

  init(tls: TLSConfiguration?, http2 configuration: HTTP2ChannelConfiguration, responder: @escaping HTTPChannelHandler.Responder) throws {
    if var tls {
      tls.applicationProtocols = ["h2", "http/1.1"]
      self.tls = try NIOSSLContext(configuration: tls)
    } else {
      self.tls = nil
    }
    http1 = HTTP1Channel(responder: responder, configuration: configuration.streamConfiguration)
    var http2Configuration = configuration
    http2Configuration.streamConfiguration.additionalChannelHandlers = { [EndOnLastFrame.Installer()] }
    http2 = HTTP2Channel(responder: responder, configuration: http2Configuration)
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let http1 = self.http1
    let http2 = self.http2
    @Sendable func configure(http2 isHTTP2: Bool) -> EventLoopFuture<Negotiated> {
      isHTTP2 ? http2.setup(channel: channel, logger: logger).map { .http2($0) } : http1.setup(channel: channel, logger: logger).map { .http1_1($0) }
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
      case .http1_1(let connection): await http1.handle(value: connection, logger: logger)
      case .http2(let connection): await http2.handle(value: connection, logger: logger)
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

/// Ends a response's stream on its last frame, as APNs does: a response without a body is one
/// HEADERS frame that ends the stream, one with a body ends on its DATA frame, instead of either
/// followed by an empty DATA frame (which HTTP/2 allows, but which some APNs clients read as a
/// body and fail on: aioapns parses every DATA frame as the reason's JSON).
final class EndOnLastFrame: ChannelOutboundHandler, RemovableChannelHandler {
  typealias OutboundIn = HTTP2Frame.FramePayload
  typealias OutboundOut = HTTP2Frame.FramePayload

  /// Added after the stream's codec, it puts an ``EndOnLastFrame`` before it (where the frames
  /// are) and leaves.
  final class Installer: ChannelInboundHandler, RemovableChannelHandler {
    // Nothing passes through it: it leaves as soon as it is added.
    typealias InboundIn = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
      try? context.pipeline.syncOperations.addHandler(EndOnLastFrame(), position: .first)
      context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
  }

  /// The response's last frame so far, held until the next write says whether it is the last.
  var held: (HTTP2Frame.FramePayload, EventLoopPromise<Void>?)?

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    let payload = unwrapOutboundIn(data)
    if let (last, lastPromise) = held {
      held = nil
      if case .data(let body) = payload, body.endStream, case .byteBuffer(let bytes) = body.data, bytes.readableBytes == 0 {
        context.write(wrapOutboundOut(Self.ending(last)), promise: lastPromise)
        promise?.succeed(())
        return
      }
      context.write(wrapOutboundOut(last), promise: lastPromise)
    }
    switch payload {
    case .headers(let headers) where !headers.endStream && !(headers.headers.first(name: ":status")?.hasPrefix("1") ?? false):
      held = (payload, promise)
    case .data(let body) where !body.endStream:
      held = (payload, promise)
    default:
      context.write(data, promise: promise)
    }
  }

  func flush(context: ChannelHandlerContext) {
    if let (last, promise) = held {
      held = nil
      context.write(wrapOutboundOut(last), promise: promise)
    }
    context.flush()
  }

  static func ending(_ frame: HTTP2Frame.FramePayload) -> HTTP2Frame.FramePayload {
    switch frame {
    case .headers(var headers):
      headers.endStream = true
      return .headers(headers)
    case .data(var body):
      body.endStream = true
      return .data(body)
    default: return frame
    }
  }
}
#endif
