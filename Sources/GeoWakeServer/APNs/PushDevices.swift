#if Server
public import BackgroundRuntime
import Foundation
public import GeoWake
import GeoWakeReports
import JSONBytes
import TrackIO

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

/// The requests waiting for the engine: each group is given its time as it joins (so times
/// follow the order groups are taken in), and all that arrive while one transaction is being
/// stored go together in the next (one transaction, one sync to disk for all of them). Joining
/// takes a lock, not a task: a connection's groups join in the order it read them.
final class PushQueue: @unchecked Sendable {
  typealias Reply = @Sendable (Result<[PushBook.Answer], any Error>) -> Void
  let engine: LiveEngine
  let clock: ServerClock
  private let lock = NSLock()
  /// Guarded by `lock`: the groups waiting, each with who is told its answers, and whether a
  /// transaction is being stored.
  private var waiting: [(requests: [EngineStore.PushLogRequest], reply: Reply)] = []
  private var storing = false

  init(engine: LiveEngine, clock: ServerClock) {
    self.engine = engine
    self.clock = clock
  }

  /// Queues `requests` (timed now, in their order); `reply` gets their answers once they are
  /// stored, or the store's error.
  func submit(_ requests: [EngineStore.PushLogRequest], reply: @escaping Reply) {
    var requests = requests
    let start = lock.withLock {
      let now = clock.now
      for k in requests.indices { requests[k].time = now }
      waiting.append((requests, reply))
      if storing { return false }
      storing = true
      return true
    }
    if start { Task { await self.drain() } }
  }

  func submit(_ requests: [EngineStore.PushLogRequest]) async throws -> [PushBook.Answer] {
    try await withCheckedThrowingContinuation { continuation in submit(requests) { continuation.resume(with: $0) } }
  }

  private func drain() async {
    while true {
      let groups: [(requests: [EngineStore.PushLogRequest], reply: Reply)]? = lock.withLock {
        if waiting.isEmpty {
          storing = false
          return nil
        }
        defer { waiting = [] }
        return waiting
      }
      guard let groups else { return }
      do {
        let answers = try await engine.pushRequests(groups.flatMap(\.requests))
        var next = 0
        for group in groups {
          group.reply(.success(Array(answers[next..<(next + group.requests.count)])))
          next += group.requests.count
        }
      } catch {
        for group in groups { group.reply(.failure(error)) }
      }
    }
  }
}

/// The push devices' state and what each input does to it (``PushDevices``), kept by the engine.
public struct PushBook: Sendable {
  /// Who a token is.
  public struct Assignment: Sendable {
    public var device: String
    public var platform: Platform
    public var scenario: AppScenario

    public init(device: String, platform: Platform, scenario: AppScenario) {
      self.device = device
      self.platform = platform
      self.scenario = scenario
    }
  }

  struct Phone: Sendable {
    var token: String
    var assignment: Assignment
    var device: Device
    var ended = false
  }

  /// What the devices are, apart from their inputs.
  struct Setup: Sendable {
    var keys: ProviderKeys
    var assigned: [String: Assignment]
    var fallback: Assignment
    var seed: UInt64
  }

  /// Everything the inputs made.
  struct State: Sendable {
    /// Answers the requests that reach no device (not a device token, a provider token that does
    /// not verify) with APNs' reason and an apns-id.
    var doorman: APNsValidator
    var phones: [String: Phone] = [:]
    /// Device name → token.
    var named: [String: String] = [:]
    var uniqueIDs: UInt64
    /// The time the devices were last run to.
    var ranTo = -Double.infinity

    init(_ setup: Setup) {
      doorman = APNsValidator(profile: setup.fallback.platform.push, requiresProviderToken: !setup.keys.isEmpty)
      uniqueIDs = setup.seed
    }
  }

  let setup: Setup
  var state: State
  /// Answers by status and reason since the start, for /metrics.
  var answered: [String: Int] = [:]
  /// Set when a failed write left a state that could not be rebuilt from the store: every
  /// later input is refused with it.
  var failure: StoreError?

  init(_ setup: Setup) {
    self.setup = setup
    state = State(setup)
  }

  /// APNs' answer to one request.
  public struct Answer: Sendable {
    public var status: Int
    public var apnsID: String
    /// The development environment's `apns-unique-id` (accepted requests).
    public var uniqueID: String?
    /// `{"reason": …}` (and `timestamp` for 410), or nil for 200.
    public var body: String?
  }

  /// The steps an input released, device by device.
  typealias Steps = [(device: String, entries: [TimelineEntry])]

  // MARK: - What an input does

  /// A request's effect on `state`: APNs' answer, and its reason (`Success` for 200).
  static func take(_ r: EngineStore.PushLogRequest, _ state: inout State, _ setup: Setup, _ steps: inout Steps) -> (answer: Answer, reason: String) {
    run(until: r.time, &state, &steps)
    let request = ProviderRequest(
      time: r.time, token: r.token, method: r.method, path: r.path, headers: r.headers,
      payload: r.body)
    let key = r.token.lowercased()
    // Before a device: the method, the provider token's signature (the validator checks its
    // form and times), the token's form.
    if r.method == "POST", !setup.keys.isEmpty, let authorization = request.header("authorization"),
      let problem = setup.keys.problem(with: authorization)
    {
      let rejection = state.doorman.refuse(request, PushRejection(.invalidProviderToken, problem))
      return (answer(rejection), rejection.reason.rawValue)
    }
    let profile = setup.assigned[key]?.platform.push ?? setup.fallback.platform.push
    guard r.method == "POST", APNsValidator.isDeviceToken(r.token, profile: profile) else {
      switch state.doorman.validate(request) {
      case .failure(let rejection): return (answer(rejection), rejection.reason.rawValue)
      case .success: preconditionFailure("a request the doorman accepts would have reached a device")
      }
    }
    if state.phones[key] == nil { state.phones[key] = makePhone(key, at: r.time, setup, &state) }
    var events: [DeviceEvent] = []
    // In place: a copy of the phone would copy its device's storage on every request.
    let event = state.phones[key]!.device.send(request, into: &events)
    add(events, of: state.phones[key]!, &steps)
    if event.kind == .accepted {
      state.uniqueIDs &+= 1
      return (Answer(status: 200, apnsID: event.apnsID ?? "", uniqueID: uuid(state.uniqueIDs), body: nil), "Success")
    }
    let reason = event.reason?.rawValue ?? "BadRequest"
    return (Answer(status: event.status, apnsID: event.apnsID ?? "", uniqueID: nil, body: body(reason, timestamp: event.timestamp)), reason)
  }

  static func makePhone(_ token: String, at time: Double, _ setup: Setup, _ state: inout State) -> Phone {
    var assignment = setup.assigned[token] ?? setup.fallback
    if setup.assigned[token] == nil { assignment.device = token }
    let scenario = assignment.platform.adapting(assignment.scenario)
    let simulation = PushSimulation(
      requests: [], device: PushDevice(scenario: scenario, deviceToken: token), profile: assignment.platform.push,
      fetchProfile: assignment.platform.fetch, requiresProviderToken: !setup.keys.isEmpty)
    state.named[assignment.device] = token
    return Phone(token: token, assignment: assignment, device: Device(simulation.configuration, start: time))
  }

  /// Every living device's clock to `time`.
  static func run(until time: Double, _ state: inout State, _ steps: inout Steps) {
    guard time > state.ranTo else { return }
    state.ranTo = time
    for key in state.phones.keys.sorted() where !state.phones[key]!.ended {
      var events: [DeviceEvent] = []
      state.phones[key]!.device.run(until: time, into: &events)
      add(events, of: state.phones[key]!, &steps)
    }
  }

  static func end(_ token: String, at time: Double, _ state: inout State, _ steps: inout Steps) {
    run(until: time, &state, &steps)
    guard var phone = state.phones[token], !phone.ended else { return }
    var events: [DeviceEvent] = []
    phone.device.finish(at: time, into: &events)
    phone.ended = true
    state.phones[token] = phone
    add(events, of: phone, &steps)
  }

  static func add(_ events: [DeviceEvent], of phone: Phone, _ steps: inout Steps) {
    guard !events.isEmpty else { return }
    steps.append((
      phone.assignment.device,
      events.map { step in
        switch step {
        case .push(let p): TimelineEntry(p, coordinate: nil)
        case .app(let r): TimelineEntry(r, coordinate: nil)
        case .fetch(let f): TimelineEntry(f, coordinate: nil)
        }
      }
    ))
  }

  static func answer(_ rejection: PushRejection) -> Answer {
    Answer(status: rejection.status, apnsID: rejection.apnsID ?? "", uniqueID: nil, body: body(rejection.reason.rawValue, timestamp: rejection.timestamp))
  }

  static func body(_ reason: String, timestamp: Double?) -> String {
    var out = "{\"reason\":\(JSONText.quoted(reason))"
    if let t = timestamp { out += ",\"timestamp\":\(Int64((t * 1000).rounded()))" }
    return out + "}"
  }

  // MARK: - Reading

  /// The device's state as JSON, or nil when no token is the device.
  func report(device name: String) -> String? {
    guard let token = state.named[name], let phone = state.phones[token] else { return nil }
    let tally = phone.device.pushTally
    func object(_ counts: [String: Int]) -> String {
      "{" + counts.sorted { $0.key < $1.key }.map { "\(JSONText.quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }
    let summary = phone.device.runtimeSummary
    return "{\"device\":\(JSONText.quoted(name)),\"token\":\(JSONText.quoted(token)),\"platform\":\(JSONText.quoted(phone.assignment.platform.name.rawValue)),"
      + "\"now\":\(JSONText.quoted(TimestampText.iso8601(phone.device.now))),\"app\":\(JSONText.quoted(phone.device.appState.rawValue)),\"ended\":\(phone.ended),"
      + "\"pushes\":{\"requests\":\(tally.requests),\"accepted\":\(tally.accepted),\"rejections\":\(object(tally.rejections)),"
      + "\"outcomes\":\(object(tally.outcomes)),\"app\":\(object(tally.effects))},"
      + "\"wakes\":\(summary.wakes.values.reduce(0, +)),\"terminations\":\(summary.terminations)}"
  }

  /// The `apns-unique-id` of the n-th accepted request (a UUID of the endpoint's own form).
  static func uuid(_ n: UInt64) -> String {
    let hex = String(n, radix: 16, uppercase: true)
    let tail = String(repeating: "0", count: max(0, 12 - hex.count)) + hex.suffix(12)
    return "00000000-0000-4000-9000-" + tail
  }
}
#endif
