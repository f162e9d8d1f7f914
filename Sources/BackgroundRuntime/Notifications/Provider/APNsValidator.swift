/// Why APNs refused a request: the reason, its HTTP status, and the detail (for payloads, the
/// byte offset and key path).
public struct PushRejection: Error, Hashable, Sendable, CustomStringConvertible {
  public var reason: APNsReason
  public var detail: String
  /// For `Unregistered`: when the token stopped being valid (seconds since the Unix epoch).
  public var timestamp: Double?

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
  public private(set) var deviceToken: String?
  public private(set) var topic: String?
  public var uninstalledAt: Double?
  private var sequence: UInt64 = 0

  public init(profile: PushProfile = .ios, deviceToken: String? = nil, topic: String? = nil, uninstalledAt: Double? = nil) {
    self.profile = profile
    self.deviceToken = deviceToken?.lowercased()
    self.topic = topic
    self.uninstalledAt = uninstalledAt
  }

  /// APNs' answer to `request`: the accepted push, or why not.
  public mutating func validate(_ request: ProviderRequest) -> Result<AcceptedPush, PushRejection> {
    sequence += 1
    do throws(PushRejection) { return .success(try check(request)) } catch { return .failure(error) }
  }

  private mutating func check(_ r: ProviderRequest) throws(PushRejection) -> AcceptedPush {
    guard r.method == "POST" else { throw PushRejection(.methodNotAllowed, ":method is \(r.method): expected POST") }
    if let path = r.path, path != "/3/device/" + r.token {
      throw PushRejection(.badPath, ":path is \(path): expected /3/device/<device token>")
    }
    guard !r.token.isEmpty else { throw PushRejection(.missingDeviceToken, "no device token in :path") }
    guard Self.isHexToken(r.token) else {
      throw PushRejection(.badDeviceToken, "\"\(Self.clipped(r.token))\" is not a device token: expected an even number (64 or more) of hexadecimal digits")
    }
    let token = r.token.lowercased()
    if deviceToken == nil { deviceToken = token }
    guard token == deviceToken else { throw PushRejection(.badDeviceToken, "\(Self.clipped(token)) is not this device's token") }
    if let uninstalledAt, r.time >= uninstalledAt {
      throw PushRejection(.unregistered, "the app was removed from the device", timestamp: uninstalledAt)
    }
    var names: [String] = []
    for h in r.headers {
      let name = h.name.lowercased()
      if names.contains(name) { throw PushRejection(.duplicateHeaders, "\(name) is sent twice") }
      names.append(name)
    }
    // The payload is parsed early: the push type may be inferred from it.
    guard let body = r.payload, !body.isEmpty else { throw PushRejection(.payloadEmpty, "the request has no payload") }
    var notes: [String] = []
    var pushType: PushType
    if let text = r.header("apns-push-type") {
      guard let t = PushType(rawValue: text) else {
        throw PushRejection(.invalidPushType, "apns-push-type \"\(text)\": expected one of \(PushType.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      pushType = t
    } else {
      pushType = .alert  // refined below once the payload is read
    }
    let limit = pushType == .voip ? profile.voipPayloadLimit : profile.payloadLimit
    guard body.count <= limit else {
      throw PushRejection(.payloadTooLarge, "the payload is \(body.count) bytes: expected at most \(limit) for \(pushType.rawValue)")
    }
    let payload: NotificationPayload
    do throws(PayloadError) {
      payload = try body.withUnsafeBufferPointer { b throws(PayloadError) in try NotificationPayload(parsing: b) }
    } catch {
      throw PushRejection(.invalidPayload, error.description)
    }
    if r.header("apns-push-type") == nil {
      pushType = payload.aps.isUserVisible || !payload.aps.isContentAvailable ? .alert : .background
      notes.append("apns-push-type missing: taken as \(pushType.rawValue) (required for iOS 13 and later)")
    }
    var priority = pushType == .background ? 5 : 10
    if let text = r.header("apns-priority") {
      guard let p = Int(text), [10, 5, 1].contains(p) else { throw PushRejection(.badPriority, "apns-priority \"\(text)\": expected 10, 5 or 1") }
      if pushType == .background && p == 10 {
        throw PushRejection(.badPriority, "apns-priority 10 with apns-push-type background: expected 5 (or 1) for background pushes")
      }
      priority = p
    }
    var expiration: Double?
    if let text = r.header("apns-expiration") {
      guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let v = Double(text) else {
        throw PushRejection(.badExpirationDate, "apns-expiration \"\(text)\": expected a Unix time in seconds, or 0")
      }
      expiration = v
    }
    let apnsID: String
    if let text = r.header("apns-id") {
      guard Self.isUUID(text) else { throw PushRejection(.badMessageId, "apns-id \"\(Self.clipped(text))\": expected a UUID such as 123e4567-e89b-12d3-a456-4266554400a0") }
      apnsID = text.uppercased()
    } else {
      apnsID = Self.uuid(sequence)
    }
    let collapseID = r.header("apns-collapse-id")
    if let collapseID, collapseID.utf8.count > profile.collapseIDLimit {
      throw PushRejection(.badCollapseId, "apns-collapse-id is \(collapseID.utf8.count) bytes: expected at most \(profile.collapseIDLimit)")
    }
    guard let topicText = r.header("apns-topic") else {
      throw PushRejection(.missingTopic, "no apns-topic: expected the app's bundle ID (required with token-based authentication)")
    }
    guard Self.isTopic(topicText) else { throw PushRejection(.badTopic, "apns-topic \"\(Self.clipped(topicText))\" is not a bundle ID") }
    var base = topicText
    if let suffix = pushType.topicSuffix {
      guard topicText.hasSuffix(suffix) else {
        throw PushRejection(.deviceTokenNotForTopic, "apns-push-type \(pushType.rawValue) needs the topic <bundle ID>\(suffix), got \(topicText)")
      }
      base = String(topicText.dropLast(suffix.count))
    }
    if topic == nil { topic = base }
    guard base == topic else { throw PushRejection(.deviceTokenNotForTopic, "the device token is registered for \(topic ?? ""), not \(base)") }
    if pushType == .background && !payload.aps.isContentAvailable {
      notes.append("a background push without content-available 1 wakes nothing")
    }
    if pushType == .background && payload.aps.isUserVisible {
      notes.append("a background push should not carry alert, sound or badge")
    }
    return AcceptedPush(
      time: r.time, apnsID: apnsID, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
      topic: topicText, payload: payload, payloadBytes: body.count, notes: notes)
  }

  static func isHexToken(_ t: String) -> Bool {
    let u = t.utf8
    return u.count >= 64 && u.count % 2 == 0 && u.count <= 400 && u.allSatisfy { JSONScanner.hex($0) != nil }
  }

  static func isUUID(_ t: String) -> Bool {
    let u = Array(t.utf8)
    guard u.count == 36 else { return false }
    for (k, b) in u.enumerated() {
      if [8, 13, 18, 23].contains(k) {
        guard b == UInt8(ascii: "-") else { return false }
      } else if JSONScanner.hex(b) == nil {
        return false
      }
    }
    return true
  }

  /// A bundle ID: letters, digits, `-` and `.`, not empty, no empty component.
  static func isTopic(_ t: String) -> Bool {
    !t.isEmpty && t.utf8.count <= 255 && !t.hasPrefix(".") && !t.hasSuffix(".") && !t.contains("..")
      && t.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 46 || $0 == 95 }
  }

  /// A deterministic apns-id for the n-th request: a version-4-shaped UUID from n.
  static func uuid(_ n: UInt64) -> String {
    let hex = String(n, radix: 16, uppercase: true)
    let tail = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    return "00000000-0000-4000-8000-" + String(tail.suffix(12))
  }

  static func clipped(_ s: String) -> String { s.count > 80 ? String(s.prefix(77)) + "…" : s }
}
