#if Server
public import BackgroundRuntime
import Foundation
public import GeoWake
import GeoWakeReports
import JSONBytes
import TrackIO

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
    var device = ""
    let event = inPlace(&state.phones[key]!) { phone in
      device = phone.assignment.device
      return phone.device.send(request, into: &events)
    }
    add(events, device: device, &steps)
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
    for key in state.phones.keys.sorted() {
      inPlace(&state.phones[key]!) { phone in
        guard !phone.ended else { return }
        var events: [DeviceEvent] = []
        phone.device.run(until: time, into: &events)
        add(events, device: phone.assignment.device, &steps)
      }
    }
  }

  static func end(_ token: String, at time: Double, _ state: inout State, _ steps: inout Steps) {
    run(until: time, &state, &steps)
    guard var phone = state.phones[token], !phone.ended else { return }
    var events: [DeviceEvent] = []
    phone.device.finish(at: time, into: &events)
    phone.ended = true
    state.phones[token] = phone
    add(events, device: phone.assignment.device, &steps)
  }

  /// `change` on a phone of the table, in place: reading a phone out of the table, even for one
  /// field, copies it (a retain of each of its device's buffers), and changing a copy copies the
  /// buffers themselves.
  @inline(__always)
  static func inPlace<T>(_ phone: inout Phone, _ change: (inout Phone) -> T) -> T { change(&phone) }

  /// The device's steps as timeline entries (`device`: its name, not the phone: reading a phone
  /// out of the table copies it).
  static func add(_ events: [DeviceEvent], device: String, _ steps: inout Steps) {
    guard !events.isEmpty else { return }
    steps.append((
      device,
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
