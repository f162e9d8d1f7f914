#if Server
public import BackgroundRuntime
import Foundation
public import GeoWake

/// The simulated phones behind the APNs endpoint's device tokens: each token is one ``Device``
/// (its platform's APNs and device rules, its app, one clock), built as `geowake push` builds the
/// device of a schedule, so the same requests at the same times give the same answers and the
/// same steps. A request enters its device's clock at the endpoint's time (``ServerClock``); the
/// steps it causes, and those the clock reaches later (deliveries, handlers, expirations), go to
/// the live engine's event stream under the device's name, in time order.
///
/// A token the devices file does not name is a device of its own, named by its token, under the
/// default platform and app, made at its first request.
///
/// **Durable.** Every input (a request, the clock run to a time, a device's end) is stored with
/// the steps it released in one transaction before it is answered; a restart replays the inputs,
/// which gives every device's state again without releasing a step twice. The devices live in
/// the engine (``PushBook``), so fixes and pushes are taken one at a time, in one order.
public struct PushDevices: Sendable {
  let engine: LiveEngine
  public let clock: ServerClock
  let queue: PushQueue

  /// The devices of `engine`, as its store holds them.
  /// - Parameters:
  ///   - assigned: the devices file's tokens (lowercase hex) and who they are.
  ///   - fallback: the platform and app of a token no line names (its `device` is ignored).
  ///   - keys: the provider keys; when there are any, every request needs a provider token.
  ///   - fingerprint: names what the devices are set up from (the files and keys): the inputs
  ///     stored replay only under the same.
  /// - Throws: ``StoreError`` when the store cannot be read, or holds inputs taken under another
  ///   setup.
  public static func start(
    engine: LiveEngine, clock: ServerClock, keys: ProviderKeys, assigned: [String: PushBook.Assignment], fallback: PushBook.Assignment,
    seed: UInt64, fingerprint: String
  ) async throws -> PushDevices {
    let latest = try await engine.startPushes(
      PushBook.Setup(keys: keys, assigned: assigned, fallback: fallback, seed: seed), fingerprint: fingerprint)
    if clock.isSimulated, latest > clock.now { _ = clock.set(latest) }
    return PushDevices(engine: engine, clock: clock, queue: PushQueue(engine: engine, clock: clock))
  }

  /// Takes a request sent now: validated as APNs does, then on its device's clock.
  public func send(method: String, path: String, token: String, headers: [ProviderRequest.Header], body: [UInt8]?) async throws -> PushBook.Answer {
    let request = EngineStore.PushLogRequest(
      time: 0, method: method, path: path, token: token, headers: headers, body: body)
    return try await queue.submit([request])[0]
  }

  /// Takes requests sent now, in this order (those of one read from a connection): `reply`
  /// gets their answers, in the same order, once all of them are stored (or the store's error).
  func send(_ requests: [EngineStore.PushLogRequest], reply: @escaping PushQueue.Reply) {
    queue.submit(requests, reply: reply)
  }

  /// A body past what the endpoint reads: 413 `PayloadTooLarge`, on no device (not stored: it
  /// changes no device).
  public func tooLarge(method: String, path: String, token: String, headers: [ProviderRequest.Header]) async -> PushBook.Answer {
    let request = ProviderRequest(time: clock.now, token: token, method: method, path: path, headers: headers, payload: nil)
    return await engine.pushTooLarge(request)
  }

  /// Moves the simulated clock to `time` and every device with it.
  /// - Returns: why not (the clock is real time, or `time` is before now).
  public func setClock(to time: Double) async throws -> String? {
    if let problem = clock.set(time) { return problem }
    try await engine.pushRun(until: time, always: true)
    return nil
  }

  /// Under the real clock: every device to now (called every second); stored only when a step
  /// comes out.
  public func tick() async throws { try await engine.pushRun(until: clock.now, always: false) }

  /// Ends the device's life now: the pushes still waiting are `held`, the app's work in progress
  /// followed to its end, as `geowake push` ends its run.
  /// - Returns: nil when no token is the device; false when its life had ended already.
  public func end(device name: String) async throws -> Bool? { try await engine.pushEnd(device: name, at: clock.now) }

  /// The device's state as JSON, or nil when no token is the device.
  public func report(device name: String) async -> String? { await engine.pushReport(device: name) }
}
#endif
