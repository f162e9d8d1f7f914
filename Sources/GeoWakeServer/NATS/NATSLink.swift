#if Server
import CNATS
import Dispatch

/// Why a call to NATS failed: what was asked, and the client's words.
public struct NATSError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// One connection to a NATS server with JetStream (the C client, libnats): the fixes' stream and
/// its durable pull consumer, the events' stream. Every call blocks, so every call runs on the
/// link's own queue, never on a task's thread: callers await it.
final class NATSLink: @unchecked Sendable {
  private let link: UnsafeMutablePointer<gw_nats>
  private let queue = DispatchQueue(label: "geowake.nats")

  /// Connects and makes what is missing; fails at once when no server answers (the bridge tries
  /// again), so that nothing blocks a stop. An open connection reconnects by itself.
  static func open(_ options: NATSOptions, after position: UInt64) async throws(NATSError) -> NATSLink {
    let queue = DispatchQueue(label: "geowake.nats.open")
    let opened: Result<UnsafeMutablePointer<gw_nats>, NATSError> = await withCheckedContinuation { continuation in
      queue.async {
        var out: UnsafeMutablePointer<gw_nats>?
        var err = [CChar](repeating: 0, count: 512)
        let status = gw_nats_open(
          &out, options.url, options.fixesStream, options.fixesSubject + ".>", options.eventsStream, options.eventsSubject + ".>",
          options.durable, position, &err, Int32(err.count))
        if status == 0, let out {
          continuation.resume(returning: .success(out))
        } else {
          let text = String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
          continuation.resume(returning: .failure(NATSError(message: "NATS at \(options.url): \(text)")))
        }
      }
    }
    return NATSLink(try opened.get())
  }

  private init(_ link: UnsafeMutablePointer<gw_nats>) { self.link = link }

  /// The client's words for a status.
  static func text(_ status: Int32) -> String { String(cString: natsStatus_GetText(natsStatus(rawValue: UInt32(status)))) }

  deinit { gw_nats_close(link) }

  private func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: body()) } }
  }

  /// Up to `count` fix messages (waiting at most `wait` milliseconds for the first), each message's
  /// body, acknowledged by ``acknowledge(_:)``.
  func fetch(_ count: Int, waiting wait: Int64) async throws(NATSError) -> Fetched {
    let result: Result<Fetched, NATSError> = await run { [self] in
      let fetched = Fetched()
      let n = gw_nats_fetch(self.link, &fetched.list, Int32(count), wait)
      if n < 0 { return .failure(NATSError(message: "fetching fixes: \(Self.text(-n))")) }
      for k in 0..<Int(n) {
        let length = Int(gw_nats_length(&fetched.list, Int32(k)))
        let bytes = gw_nats_data(&fetched.list, Int32(k))
        fetched.bodies.append(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? [])
        fetched.last = max(fetched.last, gw_nats_stream_sequence(&fetched.list, Int32(k)))
      }
      return .success(fetched)
    }
    return try result.get()
  }

  /// Acknowledges a fetch's messages: they are done with (used, or refused with a reason).
  func acknowledge(_ fetched: Fetched) async {
    _ = await run {
      _ = gw_nats_ack(&fetched.list)
      return 0
    }
  }

  /// Publishes each `(subject, id, body)` with its Nats-Msg-Id, then waits for JetStream to store
  /// them all (at most `wait` milliseconds).
  func publish(_ messages: [(subject: String, id: String, body: String)], waiting wait: Int64) async throws(NATSError) {
    let result: Result<Void, NATSError> = await run { [self] in
      for m in messages {
        let status = m.body.utf8CString.withUnsafeBufferPointer { body in
          gw_nats_publish(self.link, m.subject, m.id, body.baseAddress, Int32(body.count - 1))
        }
        if status != 0 {
          return .failure(NATSError(message: "publishing \(m.subject): \(Self.text(status))"))
        }
      }
      let settled = gw_nats_settle(self.link, wait)
      if settled < 0 { return .failure(NATSError(message: "waiting for JetStream to store the events: \(Self.text(Int32(-settled)))")) }
      if settled > 0 { return .failure(NATSError(message: "JetStream refused \(settled) of \(messages.count) events")) }
      return .success(())
    }
    try result.get()
  }

  /// Messages fetched: their bodies, and the client's list (kept to acknowledge them, freed with this).
  final class Fetched: @unchecked Sendable {
    var list = natsMsgList()
    var bodies: [[UInt8]] = []
    /// The stream sequence of the last message.
    var last: UInt64 = 0
    deinit { gw_nats_free(&list) }
  }
}
#endif
