public import JSONBytes
/// Why APNs refused a request: the reason, its HTTP status, and the detail (for payloads, the
/// byte offset and key path).
public struct PushRejection: Error, Hashable, Sendable, CustomStringConvertible {
  public var reason: APNsReason
  public var detail: String
  /// For `Unregistered`: when the token stopped being valid (seconds since the Unix epoch).
  public var timestamp: Double?
  /// The `apns-id` of APNs' response: the request's own when it sent a well-formed one, else a
  /// new UUID (APNs answers every request with one, refused requests too). Set by
  /// ``APNsValidator/validate(_:)``.
  public var apnsID: String?

  public init(_ reason: APNsReason, _ detail: String, timestamp: Double? = nil) {
    self.reason = reason
    self.detail = detail
    self.timestamp = timestamp
  }

  public var status: Int { reason.status }
  public var description: String { "\(status) \(reason.rawValue): \(detail)" }
}

/// Validates provider requests as APNs does, in its order: method, path, device token, duplicate
/// headers, push type, priority, expiration, apns-id, collapse ID, topic, payload (empty, too
/// large, not JSON or mistyped `aps`).
///
/// The device: one app (bundle ID `topic`) on one device (`deviceToken`); when either is nil, the
/// first well-formed value seen is taken. A token other than the device's is `BadDeviceToken`
/// (APNs cannot route it); after `uninstalledAt` the device's token is `Unregistered` (410, with
/// that time). Push types that need a topic suffix (`.voip`, `.complication`, …) must carry it,
/// else `DeviceTokenNotForTopic`. A missing `apns-push-type` is inferred (alert when something is
/// shown, else background) with a note; a missing priority is 10, or 5 for background pushes.
public struct APNsValidator: Sendable {
  public let profile: PushProfile
  /// The device's token (lowercase hex) and the app's bundle ID.
  public internal(set) var deviceToken: String?
  public internal(set) var topic: String?
  public var uninstalledAt: Double?
  /// Whether requests must carry a provider token (`authorization: bearer <JWT>`); without it,
  /// authentication is taken as done by certificate and not checked.
  public var requiresProviderToken: Bool
  /// The provider token in use: its issue time.
  var currentTokenIssuedAt: Double?
  var sequence: UInt64 = 0

  public init(
    profile: PushProfile = .ios, deviceToken: String? = nil, topic: String? = nil, uninstalledAt: Double? = nil, requiresProviderToken: Bool = false
  ) {
    self.requiresProviderToken = requiresProviderToken
    self.profile = profile
    self.deviceToken = deviceToken?.lowercased()
    self.topic = topic
    self.uninstalledAt = uninstalledAt
  }

  /// APNs' answer to `request`: the accepted push, or why not.
  public mutating func validate(_ request: borrowing ProviderRequest) -> Result<AcceptedPush, PushRejection> {
    sequence += 1
    do throws(PushRejection) { return .success(try check(request)) } catch {
      var rejection = error
      rejection.apnsID = responseID(request)
      return .failure(rejection)
    }
  }

  /// APNs' refusal of `request` for a reason found before the validator (a provider token whose
  /// signature does not verify): counted as a request, with the apns-id APNs answers it with.
  public mutating func refuse(_ request: borrowing ProviderRequest, _ rejection: PushRejection) -> PushRejection {
    sequence += 1
    var rejection = rejection
    rejection.apnsID = responseID(request)
    return rejection
  }

  /// The apns-id APNs answers `request` with: its own when well formed (the first one sent), else
  /// a new one.
  private func responseID(_ request: borrowing ProviderRequest) -> String {
    for header in request.headers where KnownHeader.match(header.name) == .id {
      return Bytes.with(header.value, Self.isUUID) ? header.value : Self.uuid(sequence)
    }
    return Self.uuid(sequence)
  }

  /// The `apns-*` headers APNs reads, found by a case-insensitive match on bytes.
  enum KnownHeader: Int, CaseIterable {
    case pushType, priority, expiration, id, collapseID, topic

    var name: StaticString {
      switch self {
      case .pushType: return "apns-push-type"
      case .priority: return "apns-priority"
      case .expiration: return "apns-expiration"
      case .id: return "apns-id"
      case .collapseID: return "apns-collapse-id"
      case .topic: return "apns-topic"
      }
    }

    /// Their names all differ in length: one comparison per header.
    static func match(_ name: String) -> KnownHeader? {
      Bytes.with(name) { b in
        let candidate: KnownHeader
        switch b.count {
        case 14: candidate = .pushType
        case 13: candidate = .priority
        case 15: candidate = .expiration
        case 7: candidate = .id
        case 16: candidate = .collapseID
        case 10: candidate = .topic
        default: return nil
        }
        return Bytes.equalsIgnoringCase(b, candidate.name) ? candidate : nil
      }
    }
  }

  /// The values of the known headers (fields, not an array: no allocation per request).
  struct KnownHeaders {
    var pushType, priority, expiration, id, collapseID, topic: String?

    subscript(_ k: KnownHeader) -> String? {
      get {
        switch k {
        case .pushType: return pushType
        case .priority: return priority
        case .expiration: return expiration
        case .id: return id
        case .collapseID: return collapseID
        case .topic: return topic
        }
      }
      set {
        switch k {
        case .pushType: pushType = newValue
        case .priority: priority = newValue
        case .expiration: expiration = newValue
        case .id: id = newValue
        case .collapseID: collapseID = newValue
        case .topic: topic = newValue
        }
      }
    }
  }

  private mutating func check(_ r: borrowing ProviderRequest) throws(PushRejection) -> AcceptedPush {
    guard r.method == "POST" else { throw PushRejection(.methodNotAllowed, ":method is \(r.method): expected POST") }
    if requiresProviderToken { try checkProviderToken(r) }
    if let path = r.path, path != "/3/device/" + r.token {
      throw PushRejection(.badPath, ":path is \(path): expected /3/device/<device token>")
    }
    guard !r.token.isEmpty else { throw PushRejection(.missingDeviceToken, "no device token in :path") }
    // The usual case first: exactly the device's token (already known to be well formed).
    let sameToken = deviceToken.map { d in Bytes.with(r.token) { t in Bytes.with(d) { Bytes.equal(t, $0) } } } ?? false
    guard sameToken || Bytes.with(r.token, { Self.isHexToken($0, digits: profile.deviceTokenDigits) }) else {
      throw PushRejection(.badDeviceToken, "\"\(Self.clipped(r.token))\" is not a device token: expected an even number (\(profile.deviceTokenDigits.lowerBound)-\(profile.deviceTokenDigits.upperBound)) of hexadecimal digits")
    }
    if let deviceToken {
      guard sameToken || Bytes.with(r.token, { t in Bytes.with(deviceToken) { d in Bytes.equalsIgnoringCase(t, d) } }) else {
        throw PushRejection(.badDeviceToken, "\(Self.clipped(r.token.lowercased())) is not this device's token")
      }
    } else {
      deviceToken = r.token.lowercased()
    }
    if let uninstalledAt, r.time >= uninstalledAt {
      throw PushRejection(.unregistered, "the app was removed from the device", timestamp: uninstalledAt)
    }
    // Headers: the known ones located once; any name sent twice (case-insensitively) refused.
    var known = KnownHeaders()
    var others: [String] = []
    for h in r.headers {
      if let k = KnownHeader.match(h.name) {
        guard known[k] == nil else { throw PushRejection(.duplicateHeaders, "\(String(describing: k.name)) is sent twice") }
        known[k] = h.value
      } else {
        let name = h.name.lowercased()
        if others.contains(name) { throw PushRejection(.duplicateHeaders, "\(name) is sent twice") }
        others.append(name)
      }
    }
    guard let body = r.payload, !body.isEmpty else { throw PushRejection(.payloadEmpty, "the request has no payload") }
    var notes: [String] = []
    var pushType: PushType = .alert  // refined below when the header is absent
    if let text = known.pushType {
      guard let t = PushType.named(text) else {
        throw PushRejection(.invalidPushType, "apns-push-type \"\(text)\": expected one of \(PushType.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      pushType = t
    }
    let limit = pushType == .voip ? profile.voipPayloadLimit : profile.payloadLimit
    guard body.count <= limit else {
      throw PushRejection(.payloadTooLarge, "the payload is \(body.count) bytes: expected at most \(limit) for \(pushType.rawValue)")
    }
    let traits: NotificationPayload.Traits
    do throws(PayloadError) {
      traits = try body.withUnsafeBufferPointer { b throws(PayloadError) in try NotificationPayload.check(b) }
    } catch {
      throw PushRejection(.invalidPayload, error.description)
    }
    if known.pushType == nil {
      pushType = traits.isUserVisible || !traits.isContentAvailable ? .alert : .background
      notes.append("apns-push-type missing: taken as \(pushType.rawValue) (required for iOS 13 and later)")
    }
    var priority = pushType == .background ? 5 : 10
    if let text = known.priority {
      guard let p = Int(text), p == 10 || p == 5 || p == 1 else { throw PushRejection(.badPriority, "apns-priority \"\(text)\": expected 10, 5 or 1") }
      // APNs refuses a background push at priority 10; FCM sends data messages at high priority.
      if pushType == .background && p == 10 && profile.delivery == .apns {
        throw PushRejection(.badPriority, "apns-priority 10 with apns-push-type background: expected 5 (or 1) for background pushes")
      }
      priority = p
    }
    var expiration: Double?
    if let text = known.expiration {
      guard !text.isEmpty, Bytes.with(text, { $0.allSatisfy { $0 >= 48 && $0 <= 57 } }), let v = Double(text) else {
        throw PushRejection(.badExpirationDate, "apns-expiration \"\(text)\": expected a Unix time in seconds, or 0")
      }
      expiration = v
    }
    let apnsID: String
    if let text = known.id {
      guard Bytes.with(text, Self.isUUID) else {
        throw PushRejection(.badMessageId, "apns-id \"\(Self.clipped(text))\": expected a UUID such as 123e4567-e89b-12d3-a456-4266554400a0")
      }
      apnsID = text
    } else {
      apnsID = Self.uuid(sequence)
    }
    let collapseID = known.collapseID
    if let collapseID, collapseID.utf8.count > profile.collapseIDLimit {
      throw PushRejection(.badCollapseId, "apns-collapse-id is \(collapseID.utf8.count) bytes: expected at most \(profile.collapseIDLimit)")
    }
    guard let topicText = known.topic else {
      throw PushRejection(.missingTopic, "no apns-topic: expected the app's bundle ID (required with token-based authentication)")
    }
    let knownTopic = topic.map { a in Bytes.with(topicText) { t in Bytes.with(a) { Bytes.equal(t, $0) } } } ?? false
    guard knownTopic || Bytes.with(topicText, { Self.isTopic($0, limit: profile.topicLimit) }) else { throw PushRejection(.badTopic, "apns-topic \"\(Self.clipped(topicText))\" is not a bundle ID") }
    // The topic without the push type's suffix must be the app's bundle ID.
    let suffix = pushType.topicSuffix
    let baseLength = topicText.utf8.count - (suffix?.utf8.count ?? 0)
    if let suffix, !topicText.hasSuffix(suffix) {
      throw PushRejection(.deviceTokenNotForTopic, "apns-push-type \(pushType.rawValue) needs the topic <bundle ID>\(suffix), got \(topicText)")
    }
    if let topic {
      let matches = Bytes.with(topicText) { t in Bytes.with(topic) { a in a.count == baseLength && a.elementsEqual(t.prefix(baseLength)) } }
      guard matches else {
        throw PushRejection(.deviceTokenNotForTopic, "the device token is registered for \(topic), not \(String(topicText.utf8.prefix(baseLength)) ?? topicText)")
      }
    } else {
      topic = String(topicText.utf8.prefix(baseLength)) ?? topicText
    }
    if pushType == .background && !traits.isContentAvailable {
      notes.append("a background push without content-available 1 wakes nothing")
    }
    if pushType == .background && traits.isUserVisible {
      notes.append("a background push should not carry alert, sound or badge")
    }
    return AcceptedPush(
      time: r.time, apnsID: apnsID, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
      topic: topicText, body: body, traits: traits, notes: notes)
  }

  /// The provider token's form and times (Apple: *Establishing a token-based connection*).
  private mutating func checkProviderToken(_ r: borrowing ProviderRequest) throws(PushRejection) {
    guard let authorization = r.header("authorization") else {
      throw PushRejection(.missingProviderToken, "no authorization header: expected \"bearer <JWT>\" (token-based authentication)")
    }
    let token: ProviderToken
    switch ProviderToken.parse(authorization) {
    case .failure(let problem): throw PushRejection(.invalidProviderToken, problem.message)
    case .success(let t): token = t
    }
    guard token.issuedAt <= r.time + profile.providerTokenClockSkew else {
      throw PushRejection(.invalidProviderToken, "the token is issued \(Int(token.issuedAt - r.time)) s in the future (iat)")
    }
    guard r.time - token.issuedAt <= profile.providerTokenLifetime else {
      throw PushRejection(
        .expiredProviderToken, "the token was issued \(Int(r.time - token.issuedAt)) s ago: APNs accepts tokens up to \(Int(profile.providerTokenLifetime)) s old")
    }
    if let current = currentTokenIssuedAt, token.issuedAt != current {
      guard token.issuedAt - current >= profile.providerTokenRefreshInterval else {
        throw PushRejection(
          .tooManyProviderTokenUpdates,
          "a new token \(Int(token.issuedAt - current)) s after the previous one: refresh at most every \(Int(profile.providerTokenRefreshInterval)) s")
      }
    }
    currentTokenIssuedAt = max(currentTokenIssuedAt ?? token.issuedAt, token.issuedAt)
  }

  /// Whether `token` is a device token APNs can route under `profile`: an even number of
  /// hexadecimal digits, as many as ``PushProfile/deviceTokenDigits`` allows.
  public static func isDeviceToken(_ token: String, profile: PushProfile) -> Bool {
    Bytes.with(token) { isHexToken($0, digits: profile.deviceTokenDigits) }
  }

  static func isHexToken(_ u: UnsafeBufferPointer<UInt8>, digits: ClosedRange<Int>) -> Bool {
    digits.contains(u.count) && u.count % 2 == 0 && u.allSatisfy { JSONScanner.hex($0) != nil }
  }

  static func isUUID(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
    guard u.count == 36 else { return false }
    for k in 0..<36 {
      if k == 8 || k == 13 || k == 18 || k == 23 {
        guard u[k] == UInt8(ascii: "-") else { return false }
      } else if JSONScanner.hex(u[k]) == nil {
        return false
      }
    }
    return true
  }

  /// A bundle ID: letters, digits, `-`, `_` and `.`, not empty, no empty component.
  static func isTopic(_ u: UnsafeBufferPointer<UInt8>, limit: Int) -> Bool {
    guard !u.isEmpty, u.count <= limit, u[0] != UInt8(ascii: "."), u[u.count - 1] != UInt8(ascii: ".") else { return false }
    var previousDot = false
    for b in u {
      let dot = b == UInt8(ascii: ".")
      guard (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || dot || b == 95, !(dot && previousDot) else {
        return false
      }
      previousDot = dot
    }
    return true
  }

  /// A deterministic apns-id for the n-th request: a version-4-shaped UUID from n.
  static func uuid(_ n: UInt64) -> String {
    let digits: StaticString = "0123456789ABCDEF"
    return String(unsafeUninitializedCapacity: 36) { out in
      let prefix: StaticString = "00000000-0000-4000-8000-"
      for k in 0..<24 { out[k] = prefix.utf8Start[k] }
      for k in 0..<12 { out[35 - k] = digits.utf8Start[Int((n >> (4 * UInt64(k))) & 0xF)] }
      return 36
    }
  }

  static func clipped(_ s: String) -> String { s.count > 80 ? String(s.prefix(77)) + "…" : s }
}

/// Byte-level helpers for header values and tokens (no Foundation, no allocation for native
/// strings).
enum Bytes {
  /// Calls `body` with the UTF-8 bytes of `s`.
  @inline(__always)
  static func with<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
    var copy = s
    return copy.withUTF8(body)
  }

  /// Byte equality, eight bytes at a time.
  static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    let n = a.count
    guard n > 0 else { return true }
    let p = UnsafeRawPointer(a.baseAddress!)
    let q = UnsafeRawPointer(b.baseAddress!)
    var k = 0
    while k + 8 <= n {
      guard p.loadUnaligned(fromByteOffset: k, as: UInt64.self) == q.loadUnaligned(fromByteOffset: k, as: UInt64.self) else { return false }
      k += 8
    }
    while k < n {
      guard a[k] == b[k] else { return false }
      k += 1
    }
    return true
  }

  static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: StaticString) -> Bool {
    equal(a, UnsafeBufferPointer(start: b.utf8Start, count: b.utf8CodeUnitCount))
  }

  /// ASCII case-insensitive equality.
  static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    if equal(a, b) { return true }
    for k in 0..<a.count where a[k] | 0x20 != b[k] | 0x20 || (a[k] != b[k] && !Self.isLetter(a[k])) { return false }
    return true
  }

  static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: StaticString) -> Bool {
    equalsIgnoringCase(a, UnsafeBufferPointer(start: b.utf8Start, count: b.utf8CodeUnitCount))
  }

  static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 97 && (b | 0x20) <= 122 }
}

extension APNsValidator {
  /// What a validator learns as requests come: the device's token and the app's topic when they
  /// were not given, the provider token in use, and how many requests it answered.
  struct Snapshot: Codable, Sendable, Hashable {
    var deviceToken: String?
    var topic: String?
    var currentTokenIssuedAt: Double?
    var sequence: UInt64
  }

  var snapshot: Snapshot {
    Snapshot(deviceToken: deviceToken, topic: topic, currentTokenIssuedAt: currentTokenIssuedAt, sequence: sequence)
  }

  mutating func restore(_ snapshot: Snapshot) {
    deviceToken = snapshot.deviceToken
    topic = snapshot.topic
    currentTokenIssuedAt = snapshot.currentTokenIssuedAt
    sequence = snapshot.sequence
  }
}
