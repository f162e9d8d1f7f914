import BackgroundRuntime
import Foundation
import Testing
import _GeoWakeTestSupport

private let token = "11aa01229f15f0f0c52029d8cf8cd0aeaf2365fe4cebc4af26cd6d76b7919ef7"
private let t0 = 1_714_550_400.0  // 2024-05-01T08:00:00Z

private func request(
  _ at: Double, _ payload: String?, type: String? = "alert", priority: String? = nil, expiration: String? = nil,
  collapse: String? = nil, topic: String? = "com.example.app", id: String? = nil, extra: [ProviderRequest.Header] = [],
  token: String = token, method: String = "POST", path: String? = nil
) -> ProviderRequest {
  var headers: [ProviderRequest.Header] = []
  if let type { headers.append(.init("apns-push-type", type)) }
  if let priority { headers.append(.init("apns-priority", priority)) }
  if let expiration { headers.append(.init("apns-expiration", expiration)) }
  if let collapse { headers.append(.init("apns-collapse-id", collapse)) }
  if let topic { headers.append(.init("apns-topic", topic)) }
  if let id { headers.append(.init("apns-id", id)) }
  return ProviderRequest(time: at, token: token, method: method, path: path, headers: headers + extra, payload: payload.map { Array($0.utf8) })
}

private func silent(_ at: Double) -> ProviderRequest {
  request(at, #"{"aps":{"content-available":1}}"#, type: "background", priority: "5")
}

@Suite("APNs validation")
struct APNsValidationTests {
  @Test(arguments: [
    (request(t0, #"{"aps":{"content-available":1}}"#, type: "background", priority: "10"), APNsReason.badPriority),
    (request(t0, #"{"aps":{}}"#, priority: "7"), .badPriority),
    (request(t0, #"{"aps":{}}"#, type: "banner"), .invalidPushType),
    (request(t0, #"{"aps":{}}"#, topic: nil), .missingTopic),
    (request(t0, #"{"aps":{}}"#, topic: "com example"), .badTopic),
    (request(t0, ""), .payloadEmpty),
    (request(t0, nil), .payloadEmpty),
    (request(t0, "{\"aps\":{},\"x\":\"" + String(repeating: "a", count: 4_090) + "\"}"), .payloadTooLarge),
    (request(t0, #"{"aps":{}}"#, collapse: String(repeating: "c", count: 65)), .badCollapseId),
    (request(t0, #"{"aps":{}}"#, expiration: "tomorrow"), .badExpirationDate),
    (request(t0, #"{"aps":{}}"#, expiration: "-1"), .badExpirationDate),
    (request(t0, #"{"aps":{}}"#, id: "not-a-uuid"), .badMessageId),
    (request(t0, #"{"aps":{}}"#, extra: [.init("apns-topic", "com.example.app")]), .duplicateHeaders),
    (request(t0, #"{"aps":{}}"#, token: "xyz"), .badDeviceToken),
    (request(t0, #"{"aps":{}}"#, token: ""), .missingDeviceToken),
    (request(t0, #"{"aps":{}}"#, method: "GET"), .methodNotAllowed),
    (request(t0, #"{"aps":{}}"#, path: "/3/device/"), .badPath),
    (request(t0, #"{"aps":{}}"#, type: "voip"), .deviceTokenNotForTopic),
    (request(t0, #"{"aps":{"content-available":"1"}}"#, type: "background", priority: "5"), .invalidPayload),
    (request(t0, #"{"aps":"#), .invalidPayload),
  ])
  func rejections(_ r: ProviderRequest, _ reason: APNsReason) {
    var v = APNsValidator(deviceToken: token, topic: "com.example.app")
    guard case .failure(let rejection) = v.validate(r) else {
      Issue.record("accepted, expected \(reason)")
      return
    }
    #expect(rejection.reason == reason, "\(rejection)")
    #expect(rejection.status == reason.status)
  }

  @Test func reasonsMatchAppleTable() throws {
    let rows = try FixtureFiles.records("apns/apns_error_reasons.csv").dropFirst()
    #expect(rows.count == 30)
    for row in rows {
      let reason = try #require(APNsReason(rawValue: String(row[1])), "\(row[1])")
      #expect(reason.status == Int(row[0]), "\(row[1])")
    }
  }

  @Test func payloadErrorsCarryOffsetAndKeyPath() {
    var v = APNsValidator()
    let r = request(t0, #"{"aps":{"content-available":"1"}}"#, type: "background", priority: "5")
    guard case .failure(let rejection) = v.validate(r) else { Issue.record("accepted"); return }
    #expect(rejection.description == "400 InvalidPayload: byte 28, $.aps.content-available: found a string: expected the number 0 or 1")
  }

  /// APNs answers every request with an apns-id, refused ones too: the request's own when it
  /// sent a well-formed one, else a new one, different for each request.
  @Test func refusedRequestsCarryAnApnsID() throws {
    var v = APNsValidator()
    let own = "84DB694F-464F-49BD-960A-D6DB028335C9"
    guard case .failure(let refused) = v.validate(request(t0, "", id: own)) else { Issue.record("accepted"); return }
    #expect(refused.reason == .payloadEmpty && refused.apnsID == own)
    guard case .failure(let malformed) = v.validate(request(t0, #"{"aps":{}}"#, id: "not-a-uuid")) else { Issue.record("accepted"); return }
    #expect(malformed.reason == .badMessageId)
    guard case .failure(let without) = v.validate(request(t0, "")) else { Issue.record("accepted"); return }
    let made = [try #require(malformed.apnsID), try #require(without.apnsID)]
    #expect(Set(made).count == 2 && !made.contains(own))
    #expect(made.allSatisfy { $0.count == 36 && $0.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12] })
  }

  /// apns2's request and response cases: the default request, explicit headers, and the 400/410
  /// answers.
  @Test func apns2RequestAndResponseCases() throws {
    var v = APNsValidator()
    guard case .success(let plain) = v.validate(request(t0, #"{"aps":{"alert":"Hello!"}}"#, type: nil)) else { Issue.record("rejected"); return }
    #expect(plain.pushType == .alert && plain.priority == 10 && plain.expiration == nil)
    #expect(plain.notes == ["apns-push-type missing: taken as alert (required for iOS 13 and later)"])
    let headers = request(
      t0, #"{"aps":{"alert":"Hello!"}}"#, priority: "10", expiration: "1714557600", collapse: "game1.start.identifier", topic: "com.testapp",
      id: "84DB694F-464F-49BD-960A-D6DB028335C9")
    var w = APNsValidator()
    guard case .success(let explicit) = w.validate(headers) else { Issue.record("rejected"); return }
    #expect(explicit.apnsID == "84DB694F-464F-49BD-960A-D6DB028335C9" && explicit.collapseID == "game1.start.identifier")
    #expect(explicit.topic == "com.testapp" && explicit.expiration == 1_714_557_600)
    guard case .failure(let empty) = w.validate(request(t0, "", topic: "com.testapp")) else { Issue.record("accepted"); return }
    #expect(empty.status == 400 && empty.reason == .payloadEmpty)
    var removed = APNsValidator(deviceToken: token, uninstalledAt: 1_458_114_061.26)
    guard case .failure(let gone) = removed.validate(request(1_458_114_100, #"{"aps":{}}"#)) else { Issue.record("accepted"); return }
    #expect(gone.status == 410 && gone.reason == .unregistered && gone.timestamp == 1_458_114_061.26)
  }
}

@Suite("Push delivery")
struct PushSimulationTests {
  /// docs/platform-rules.md, remote and silent notifications: 20 silent pushes in an hour → 2–3 on time, the rest delayed, only the newest
  /// held, and it rides along with the next regular push.
  /// The measured budget (`ios`): one silent push a minute for six hours wakes the app at most 3
  /// times in any hour, never twice within 300 s, and about 3 times an hour in all; bursts then an
  /// hour of nothing, as device logs show. The documented budget gives 2 an hour.
  @Test func measuredSilentBudget() {
    let flood = (0..<360).map { silent(t0 + Double($0) * 60) }
    let launches = PushSimulation(requests: flood, profile: .ios).run().outcomes.compactMap { $0.app == .completed ? $0.deliveredAt : nil }.sorted()
    #expect(zip(launches, launches.dropFirst()).allSatisfy { $1 - $0 >= 300 }, "\(launches.map { $0 - t0 })")
    for (k, t) in launches.enumerated() {
      #expect(launches[k...].prefix { $0 - t < 3_600 }.count <= 3, "more than 3 within the hour from \(t - t0)")
    }
    #expect((17...19).contains(launches.count), "\(launches.count) in 6 h")
    let gaps = zip(launches, launches.dropFirst()).map { $1 - $0 }
    #expect(gaps.contains { $0 >= 2_400 })
    let documented = PushSimulation(requests: flood, profile: .iosDocumented).run().outcomes.filter { $0.app == .completed }.count
    #expect((12...14).contains(documented), "\(documented) in 6 h")
    #expect(PushProfile.ios.silentBudgetText == "at most 3 in any hour, none within 300 s of the previous")
    #expect(PushProfile.iosDocumented.silentBudgetText == "2 back to back, then one every 30 min")
  }

  @Test func silentRateLimitAndPiggyback() {
    var requests = (0..<20).map { silent(t0 + Double($0) * 180) }
    requests.append(request(t0 + 3_700, #"{"aps":{"alert":"Your order shipped"}}"#, id: "0A0A0A0A-0000-4000-8000-000000000001"))
    let run = PushSimulation(requests: requests, profile: .iosDocumented).run()
    let silentOutcomes = run.outcomes.prefix(20)
    let onTime = silentOutcomes.filter { $0.kind == .delivered }.count
    #expect((2...3).contains(onTime), "\(silentOutcomes.map(\.kind))")
    #expect(silentOutcomes.allSatisfy { [.delivered, .delayed, .dropped, .piggybacked].contains($0.kind) })
    let piggybacked = silentOutcomes.filter { $0.kind == .piggybacked }
    #expect(piggybacked.count == 1)
    #expect(piggybacked.first?.request == 19)  // the newest
    #expect(piggybacked.first?.carrier == "0A0A0A0A-0000-4000-8000-000000000001")
    #expect(piggybacked.first?.deliveredAt == t0 + 3_700)
    #expect(silentOutcomes.filter { $0.kind == .dropped }.allSatisfy { $0.detail.contains("holds only the newest") })
    #expect(run.outcomes[20].kind == .delivered)
    // Every delivered silent push woke the app (it declares remote-notification).
    let woken = silentOutcomes.filter { $0.deliveredAt != nil }.count
    #expect(run.runtimeSummary.wakes[.remoteNotification, default: 0] + run.runtimeEvents.filter { $0.kind == .deliveredWhileRunning }.count == woken)
  }

  @Test func expirationZeroWhileOfflineIsDropped() {
    let offline = DeviceConditions([.init(start: t0 - 60, end: t0 + 600, condition: .offline)])
    let run = PushSimulation(
      requests: [request(t0, #"{"aps":{"alert":"now or never"}}"#, expiration: "0"), request(t0 + 10, #"{"aps":{"alert":"keep"}}"#)],
      device: PushDevice(conditions: offline)
    ).run()
    #expect(run.outcomes[0].kind == .dropped)
    #expect(run.outcomes[0].detail.contains("apns-expiration 0"))
    #expect(run.outcomes[1].kind == .delayed && run.outcomes[1].deliveredAt == t0 + 600)
  }

  @Test func coalescingWhileOfflineDeliversOnlyTheNewest() {
    let offline = DeviceConditions([.init(start: t0 - 60, end: t0 + 3_600, condition: .offline)])
    let scores = (0..<5).map { request(t0 + Double($0) * 60, #"{"aps":{"alert":"score \#($0)"}}"#, collapse: "match-42") }
    let run = PushSimulation(requests: scores, device: PushDevice(conditions: offline)).run()
    #expect(run.outcomes.map(\.kind) == [.coalesced, .coalesced, .coalesced, .coalesced, .delayed])
    #expect(run.outcomes[4].deliveredAt == t0 + 3_600)
    // Without a collapse ID APNs still keeps only the newest: the older ones are dropped.
    let plain = (0..<3).map { request(t0 + Double($0) * 60, #"{"aps":{"alert":"n \#($0)"}}"#) }
    #expect(PushSimulation(requests: plain, device: PushDevice(conditions: offline)).run().outcomes.map(\.kind) == [.dropped, .dropped, .delayed])
  }

  @Test func backgroundPushAtPriorityTenIsRejected() {
    let run = PushSimulation(requests: [request(t0, #"{"aps":{"content-available":1}}"#, type: "background", priority: "10")]).run()
    #expect(run.outcomes[0].kind == .rejected && run.outcomes[0].status == 400 && run.outcomes[0].reason == .badPriority)
    #expect(run.runtimeEvents.isEmpty)
  }

  @Test func forceQuitStopsBackgroundLaunchesAndDiscardsTheHeldPush() {
    let requests = (0..<4).map { silent(t0 + Double($0) * 60) } + [silent(t0 + 7_200)]
    let device = PushDevice(forceQuits: [t0 + 600], deviceToken: nil)
    let run = PushSimulation(requests: requests, device: device).run()
    #expect(run.outcomes[3].kind == .dropped && run.outcomes[3].detail.contains("force-quit"))  // the held one
    #expect(run.outcomes[4].deliveredAt != nil)
    #expect(run.outcomes[4].detail.contains("not launched: the app was force-quit"))
    #expect(run.runtimeSummary.lost[.remoteNotification] == 1)
    // Once the user opens the app, background launches resume.
    let reopened = PushSimulation(requests: requests, device: PushDevice(sessions: [(t0 + 3_600, 60)], forceQuits: [t0 + 600])).run()
    #expect(!reopened.outcomes[4].detail.contains("not launched"))
    #expect(reopened.runtimeSummary.lost[.remoteNotification, default: 0] == 0)
  }

  @Test func lowPowerModeDelaysPriorityFive() {
    let lpm = DeviceConditions([.init(start: t0 - 60, end: t0 + 900, condition: .lowPowerMode)])
    let run = PushSimulation(
      requests: [request(t0, #"{"aps":{"alert":"digest"}}"#, priority: "5"), request(t0 + 60, #"{"aps":{"alert":"urgent"}}"#, priority: "10")],
      device: PushDevice(conditions: lpm)
    ).run()
    #expect(run.outcomes[1].kind == .delivered)
    #expect(run.outcomes[0].kind == .delayed && run.outcomes[0].deliveredAt == t0 + 60)  // went with the priority-10 one
    let alone = PushSimulation(requests: [request(t0, #"{"aps":{"alert":"digest"}}"#, priority: "5")], device: PushDevice(conditions: lpm)).run()
    #expect(alone.outcomes[0].deliveredAt == t0 + 900)
  }

  @Test func overrunningHandlersAreTerminatedAndStretchTheBudget() {
    let requests = (0..<40).map { silent(t0 + Double($0) * 600) }
    let good = PushSimulation(requests: requests).run()
    let slow = PushSimulation(requests: requests, device: PushDevice(handler: HandlerBehaviour(work: 45))).run()
    #expect(slow.runtimeSummary.terminations > 0)
    #expect(slow.trackRecord.outcomes[.terminated, default: 0] > 0)
    let delivered = { (r: PushSimulation.Run) in r.outcomes.filter { $0.kind == .delivered }.count }
    #expect(delivered(slow) < delivered(good))
  }

  @Test func deterministic() {
    let requests = (0..<50).map { k in k % 7 == 0 ? request(t0 + Double(k) * 97, #"{"aps":{"alert":"a"}}"#) : silent(t0 + Double(k) * 97) }
    let device = PushDevice(handler: HandlerBehaviour(work: 5, variation: 0.5, failureRate: 0.3), seed: 4)
    let a = PushSimulation(requests: requests, device: device).run()
    let b = PushSimulation(requests: requests, device: device).run()
    #expect(a.outcomes == b.outcomes && a.runtimeEvents == b.runtimeEvents)
  }
}

@Suite("Provider tokens")
struct ProviderTokenTests {
  static func jwt(alg: String = "ES256", kid: String? = "ABC123DEFG", iss: String? = "DEF123GHIJ", iat: Double) -> String {
    func b64(_ json: String) -> String {
      Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
    }
    let header = "{\"alg\":\"\(alg)\"" + (kid.map { ",\"kid\":\"\($0)\"" } ?? "") + "}"
    let claims = "{" + (iss.map { "\"iss\":\"\($0)\"," } ?? "") + "\"iat\":\(Int(iat))}"
    return "bearer " + b64(header) + "." + b64(claims) + "." + b64("signature")
  }

  func reason(_ authorization: String?, at time: Double = t0, validator: inout APNsValidator) -> APNsReason? {
    let r = request(time, #"{"aps":{}}"#, extra: authorization.map { [.init("authorization", $0)] } ?? [])
    if case .failure(let rejection) = validator.validate(r) { return rejection.reason }
    return nil
  }

  @Test func missingInvalidExpiredAndTooFrequent() {
    var v = APNsValidator(requiresProviderToken: true)
    #expect(reason(nil, validator: &v) == .missingProviderToken)
    #expect(reason("bearer nonsense", validator: &v) == .invalidProviderToken)
    #expect(reason(Self.jwt(alg: "HS256", iat: t0), validator: &v) == .invalidProviderToken)
    #expect(reason(Self.jwt(kid: nil, iat: t0), validator: &v) == .invalidProviderToken)
    #expect(reason(Self.jwt(iss: nil, iat: t0), validator: &v) == .invalidProviderToken)
    #expect(reason(Self.jwt(iat: t0 + 600), validator: &v) == .invalidProviderToken)  // from the future
    #expect(reason(Self.jwt(iat: t0 - 3_601), validator: &v) == .expiredProviderToken)
    #expect(reason(Self.jwt(iat: t0 - 60), validator: &v) == nil)
    #expect(reason(Self.jwt(iat: t0 + 300), at: t0 + 400, validator: &v) == .tooManyProviderTokenUpdates)
    #expect(reason(Self.jwt(iat: t0 + 1_200), at: t0 + 1_300, validator: &v) == nil)
    #expect(APNsReason.tooManyProviderTokenUpdates.status == 429 && APNsReason.expiredProviderToken.status == 403)
    // Without the requirement, authorization is not looked at.
    var plain = APNsValidator()
    #expect(reason(nil, validator: &plain) == nil)
  }
}
