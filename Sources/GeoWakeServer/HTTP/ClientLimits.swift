#if Server
import Synchronization

/// Per-client limits on ingest, so that one sender cannot starve the others: a rate of fixes
/// (a bucket refilled at `rate` a second, holding at most `burst`; a batch is let in while the
/// bucket is not empty and takes its fixes from it, into debt if it is larger, so any batch
/// size passes and a client in debt waits), and a cap on the batches a client has in flight
/// (the engine takes batches one at a time, in turn: a client with many queued would go first
/// many times).
///
/// A client is its token when the server has tokens, else its address.
public final class ClientLimits: Sendable {
  public struct Settings: Sendable, Hashable {
    /// Fixes a second per client; nil: no rate limit.
    public var rate: Double?
    /// Batches in flight per client.
    public var inFlight: Int

    public init(rate: Double? = 50_000, inFlight: Int = 4) {
      self.rate = rate
      self.inFlight = inFlight
    }
  }

  /// Why a request was refused, and when to come back.
  public enum Refusal: Error, Sendable, Hashable {
    case rate(retryAfter: Int)
    case inFlight(limit: Int)
  }

  private struct Client {
    var tokens: Double
    var refilled: ContinuousClock.Instant
    var inFlight = 0
  }

  public let settings: Settings
  private let clients = Mutex<[String: Client]>([:])
  /// Past 4,096 clients, those idle this long are forgotten (the table stays bounded; a debt
  /// older than this is forgiven).
  static let forgetAfter: Duration = .seconds(300)

  public init(_ settings: Settings) { self.settings = settings }

  var burst: Double { settings.rate.map { max($0, 1) } ?? .infinity }

  /// Lets a batch of `fixes` in for `client`, or says why not. A batch let in must be ended
  /// with ``finish(_:)``.
  public func admit(_ client: String, fixes: Int, now: ContinuousClock.Instant = .now) throws(Refusal) {
    let burst = self.burst
    let rate = settings.rate
    let limit = settings.inFlight
    let outcome: Refusal? = clients.withLock { table in
      var entry = table[client] ?? Client(tokens: burst, refilled: now)
      if let rate {
        let elapsed = now - entry.refilled
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        entry.tokens = min(burst, entry.tokens + seconds * rate)
        entry.refilled = now
      }
      if entry.inFlight >= limit {
        table[client] = entry
        return .inFlight(limit: limit)
      }
      if let rate, entry.tokens <= 0 {
        table[client] = entry
        return .rate(retryAfter: max(1, Int((-entry.tokens / rate).rounded(.up))))
      }
      entry.tokens -= Double(fixes)
      entry.inFlight += 1
      table[client] = entry
      if table.count > 4_096 { Self.forgetIdle(&table, now: now) }
      return nil
    }
    if let outcome { throw outcome }
  }

  /// Ends a batch let in by ``admit(_:fixes:now:)``.
  public func finish(_ client: String) {
    clients.withLock { table in table[client]?.inFlight -= 1 }
  }

  private static func forgetIdle(_ table: inout [String: Client], now: ContinuousClock.Instant) {
    table = table.filter { $0.value.inFlight > 0 || now - $0.value.refilled < forgetAfter }
  }
}
#endif
