#if Server
import BackgroundRuntime
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The APNs endpoint's HTTP/2 connections, answered frame by frame on the connection's event
/// loop: no channel, no task and no copy of the request per stream. A request is its HEADERS
/// and DATA frames up to the end of its stream; the requests complete in one read from the
/// socket go to the devices together, in the order they came (joining a queue under a lock: no
/// task between), and their answers are written together once they are stored (one transaction
/// with whatever else arrived meanwhile, ``PushDevices``). The next read's requests do not wait
/// for those answers: reading, the devices and the store overlap.
///
/// The protocol itself (frames, HPACK, stream states, SETTINGS, PING, resets and their rate
/// limits) is `NIOHTTP2Handler`'s, before this handler in the pipeline. What a stream channel
/// would otherwise do is done here: the connection's flow-control window is kept at
/// ``connectionWindow`` (each stream's is ``streamWindow``, larger than any body read, so no
/// stream needs an update), a body past ``APNsEndpoint/bodyLimit`` is answered 413 at once and
/// the rest of it read and dropped (a stream reset after the answer, which RFC 9113 §8.1 allows,
/// is an error to some clients: httpx), a connection with no stream for
/// ``idleTimeout`` is closed with GOAWAY, and when the server stops it sends GOAWAY, answers
/// what it has taken and closes (cut off after ``closeTimeout``).
final class APNsStreams: ChannelInboundHandler {
  typealias InboundIn = HTTP2Frame
  typealias OutboundOut = HTTP2Frame

  /// The settings the endpoint sends: ``maxConcurrentStreams`` streams at a time, NIO's header
  /// list size, a stream window of ``streamWindow``.
  static let settings: HTTP2Settings = [
    HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
    HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
    HTTP2Setting(parameter: .initialWindowSize, value: streamWindow),
  ]
  /// Streams in flight on one connection: what APNs' SETTINGS frame was seen to allow
  /// (docs/platform-rules.md, APNs). Each holds at most ``APNsEndpoint/bodyLimit`` of body.
  static let maxConcurrentStreams = 1_500
  /// Every stream's window: past the largest body read, so a stream's window never runs out.
  static let streamWindow = 1 << 20
  /// The connection's window, kept topped up.
  static let connectionWindow = 1 << 24
  static let idleTimeout = TimeAmount.minutes(10)
  static let closeTimeout = TimeAmount.seconds(5)

  /// A request whose stream has not ended yet.
  struct Partial {
    var method = ""
    var path = ""
    /// The provider's headers (``APNsEndpoint/providerHeaders(_:)``).
    var headers: [ProviderRequest.Header] = []
    var apnsID: String?
    var body: ByteBuffer?
  }

  let devices: PushDevices
  var context: ChannelHandlerContext?
  var partial: [HTTP2StreamID: Partial] = [:]
  /// Requests complete and not yet with the devices, in the order their streams ended.
  var ready: [(stream: HTTP2StreamID, request: EngineStore.PushLogRequest, apnsID: String?)] = []
  /// Streams whose answer is being worked out.
  var awaiting: Set<HTTP2StreamID> = []
  /// Streams answered 413 before their body ended: the rest is read and dropped.
  var draining: Set<HTTP2StreamID> = []
  var flushPending = false
  var highestStream = HTTP2StreamID(0)
  var closing = false
  var lastActivity = NIODeadline.now()
  var idleCheck: Scheduled<Void>?

  init(devices: PushDevices) { self.devices = devices }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    scheduleIdleCheck(context: context, at: lastActivity + Self.idleTimeout)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    idleCheck?.cancel()
    self.context = nil
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    let id = frame.streamID
    switch frame.payload {
    case .headers(let headers):
      lastActivity = .now()
      if partial[id] != nil {
        // Trailers: they end the request; APNs reads none.
        if headers.endStream, let request = partial.removeValue(forKey: id) { complete(id, request) }
        return
      }
      guard !awaiting.contains(id) else { return }
      if id > highestStream { highestStream = id }
      var request = Partial()
      request.headers.reserveCapacity(headers.headers.count)
      for (name, value, _) in headers.headers {
        switch name {
        case ":method": request.method = value
        case ":path": request.path = value.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(value[..<$0]) } ?? value
        default:
          guard APNsEndpoint.isProviderHeader(name) else { continue }
          if name == "apns-id" { request.apnsID = value }
          request.headers.append(.init(name, value))
        }
      }
      if headers.endStream { complete(id, request) } else { partial[id] = request }
    case .data(let body):
      if draining.contains(id) {
        if body.endStream { draining.remove(id) }
        return
      }
      guard partial[id] != nil, case .byteBuffer(var bytes) = body.data else { return }
      let size = (partial[id]!.body?.readableBytes ?? 0) + bytes.readableBytes
      guard size <= APNsEndpoint.bodyLimit else {
        answerTooLarge(id, partial.removeValue(forKey: id)!, streamEnded: body.endStream, context: context)
        return
      }
      if bytes.readableBytes > 0 {
        if partial[id]!.body == nil { partial[id]!.body = bytes } else { partial[id]!.body!.writeBuffer(&bytes) }
      }
      if body.endStream, let request = partial.removeValue(forKey: id) { complete(id, request) }
    default:
      break
    }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    sendGroup(context: context)
    flushIfPending(context: context)
    context.fireChannelReadComplete()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    switch event {
    case let window as NIOHTTP2WindowUpdatedEvent where window.streamID == .rootStream:
      // The window the client may still send in, topped up to the connection's once half is used.
      if let left = window.inboundWindowSize, left <= Self.connectionWindow / 2 {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindow - left))), promise: nil)
        flushPending = true
      }
    case let window as NIOHTTP2WindowUpdatedEvent where draining.contains(window.streamID):
      // A body being dropped is read to its end, however long.
      if let left = window.inboundWindowSize, left <= Self.streamWindow / 2 {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: window.streamID, payload: .windowUpdate(windowSizeIncrement: Self.streamWindow - left))), promise: nil)
        flushPending = true
      }
    case let closed as StreamClosedEvent:
      // Reset by the client (or by NIO for a protocol error): nothing to answer on it.
      partial.removeValue(forKey: closed.streamID)
      awaiting.remove(closed.streamID)
      draining.remove(closed.streamID)
      closeIfDone(context: context)
    case is ChannelShouldQuiesceEvent:
      goAway(context: context)
    default:
      break
    }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A stream's error has reset that stream (its StreamClosedEvent follows); anything else ends
    // the connection (NIO has sent GOAWAY for a connection error).
    if error is NIOHTTP2Errors.StreamError || error is NIOHTTP2Errors.NoSuchStream || error is NIOHTTP2Errors.StreamClosed { return }
    context.close(promise: nil)
  }

  // MARK: - Requests and answers

  func complete(_ id: HTTP2StreamID, _ partial: Partial) {
    let body = partial.body.flatMap { $0.readableBytes == 0 ? nil : Array($0.readableBytesView) }
    let request = EngineStore.PushLogRequest(
      time: 0, method: partial.method, path: partial.path, token: APNsEndpoint.token(path: partial.path), headers: partial.headers, body: body)
    ready.append((id, request, partial.apnsID))
    awaiting.insert(id)
  }

  /// Sends the requests ready to the devices as one group.
  func sendGroup(context: ChannelHandlerContext) {
    guard !ready.isEmpty else { return }
    let group = ready
    ready = []
    let requests = group.map(\.request)
    let streams = group.map(\.stream)
    let sentIDs = group.map(\.apnsID)
    let loop = context.eventLoop
    let handler = NIOLoopBound(self, eventLoop: loop)
    devices.send(requests) { result in
      // The event store failed: every request of the group gets APNs' 503.
      let answers = (try? result.get()) ?? sentIDs.map { APNsEndpoint.unavailable(apnsID: $0) }
      loop.execute { handler.value.answer(streams, answers) }
    }
  }

  func answer(_ streams: [HTTP2StreamID], _ answers: [PushBook.Answer]) {
    guard let context else { return }
    for (id, answer) in zip(streams, answers) where awaiting.remove(id) != nil {
      write(answer, on: id, context: context)
    }
    context.flush()
    flushPending = false
    closeIfDone(context: context)
  }

  func answerTooLarge(_ id: HTTP2StreamID, _ partial: Partial, streamEnded: Bool, context: ChannelHandlerContext) {
    awaiting.insert(id)
    if !streamEnded { draining.insert(id) }
    let (method, path, headers) = (partial.method, partial.path, partial.headers)
    let devices = self.devices
    let loop = context.eventLoop
    let handler = NIOLoopBound(self, eventLoop: loop)
    Task {
      let answer = await devices.tooLarge(method: method, path: path, token: APNsEndpoint.token(path: path), headers: headers)
      loop.execute {
        let this = handler.value
        guard let context = this.context, this.awaiting.remove(id) != nil else { return }
        this.write(answer, on: id, context: context)
        context.flush()
        this.closeIfDone(context: context)
      }
    }
  }

  func write(_ answer: PushBook.Answer, on id: HTTP2StreamID, context: ChannelHandlerContext) {
    var headers = HPACKHeaders()
    headers.add(name: ":status", value: String(answer.status))
    // Unique to each answer: kept out of the header tables.
    if !answer.apnsID.isEmpty { headers.add(name: "apns-id", value: answer.apnsID, indexing: .nonIndexable) }
    if let unique = answer.uniqueID { headers.add(name: "apns-unique-id", value: unique, indexing: .nonIndexable) }
    guard let body = answer.body else {
      context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
      return
    }
    let bytes = context.channel.allocator.buffer(string: body)
    headers.add(name: "content-type", value: "application/json")
    headers.add(name: "content-length", value: String(bytes.readableBytes))
    context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: nil)
    context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(bytes), endStream: true)))), promise: nil)
  }

  func flushIfPending(context: ChannelHandlerContext) {
    guard flushPending else { return }
    flushPending = false
    context.flush()
  }

  // MARK: - Idle and closing

  func scheduleIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    idleCheck = context.eventLoop.scheduleTask(deadline: deadline) {
      let this = handler.value
      guard let context = this.context else { return }
      let due = this.lastActivity + Self.idleTimeout
      if this.partial.isEmpty, this.awaiting.isEmpty, due <= .now() {
        this.goAway(context: context)
      } else {
        this.scheduleIdleCheck(context: context, at: max(due, .now() + .seconds(1)))
      }
    }
  }

  /// GOAWAY naming the last stream taken; the connection closes once those are answered.
  func goAway(context: ChannelHandlerContext) {
    guard !closing else { return }
    closing = true
    let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: highestStream, errorCode: .noError, opaqueData: nil))
    context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: Self.closeTimeout) { bound.value.close(promise: nil) }
    closeIfDone(context: context)
  }

  func closeIfDone(context: ChannelHandlerContext) {
    guard closing, partial.isEmpty, awaiting.isEmpty, ready.isEmpty, draining.isEmpty else { return }
    context.close(promise: nil)
  }
}
#endif
