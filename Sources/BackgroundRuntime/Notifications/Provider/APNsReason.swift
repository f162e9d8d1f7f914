/// The `reason` strings APNs answers with, and their HTTP status (Apple, *Handling notification
/// responses from APNs*; the list in apns2 `response.go`), plus one of GeoWake's own.
public enum APNsReason: String, Hashable, Sendable, Codable, CaseIterable {
  case badCollapseId = "BadCollapseId"
  case badDeviceToken = "BadDeviceToken"
  case badExpirationDate = "BadExpirationDate"
  case badMessageId = "BadMessageId"
  case badPriority = "BadPriority"
  case badTopic = "BadTopic"
  case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
  case duplicateHeaders = "DuplicateHeaders"
  case idleTimeout = "IdleTimeout"
  case invalidPushType = "InvalidPushType"
  case missingDeviceToken = "MissingDeviceToken"
  case missingTopic = "MissingTopic"
  case payloadEmpty = "PayloadEmpty"
  case topicDisallowed = "TopicDisallowed"
  case badCertificate = "BadCertificate"
  case badCertificateEnvironment = "BadCertificateEnvironment"
  case expiredProviderToken = "ExpiredProviderToken"
  case forbidden = "Forbidden"
  case invalidProviderToken = "InvalidProviderToken"
  case missingProviderToken = "MissingProviderToken"
  case badPath = "BadPath"
  case methodNotAllowed = "MethodNotAllowed"
  case expiredToken = "ExpiredToken"
  case unregistered = "Unregistered"
  case payloadTooLarge = "PayloadTooLarge"
  case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
  case tooManyRequests = "TooManyRequests"
  case internalServerError = "InternalServerError"
  case serviceUnavailable = "ServiceUnavailable"
  case shutdown = "Shutdown"
  /// GeoWake's own: the body is not valid JSON or its `aps` dictionary has a value of the wrong
  /// type. APNs documents no reason for this (it may pass the bytes on, and the device then
  /// ignores the notification or the mistyped key); GeoWake refuses it so that the provider sees
  /// the mistake, with the byte offset and key path.
  case invalidPayload = "InvalidPayload"

  /// The HTTP status APNs answers with.
  public var status: Int {
    switch self {
    case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic, .deviceTokenNotForTopic,
      .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed,
      .invalidPayload:
      return 400
    case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken:
      return 403
    case .badPath: return 404
    case .methodNotAllowed: return 405
    case .expiredToken, .unregistered: return 410
    case .payloadTooLarge: return 413
    case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
    case .internalServerError: return 500
    case .serviceUnavailable, .shutdown: return 503
    }
  }
}

/// `apns-push-type`.
public enum PushType: String, Hashable, Sendable, CaseIterable {
  case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets

  /// The type a header value names (exact, as APNs compares), matched on bytes.
  static func named(_ text: String) -> PushType? {
    Bytes.with(text) { b in
      switch b.count {
      case 5: return Bytes.equal(b, "alert") ? .alert : nil
      case 10: return Bytes.equal(b, "background") ? .background : Bytes.equal(b, "pushtotalk") ? .pushtotalk : nil
      default: return PushType(rawValue: text)
      }
    }
  }

  /// The suffix the `apns-topic` must carry after the bundle ID for this type, if any (Apple,
  /// *Sending notification requests to APNs*).
  public var topicSuffix: String? {
    switch self {
    case .voip: return ".voip"
    case .complication: return ".complication"
    case .fileprovider: return ".pushkit.fileprovider"
    case .liveactivity: return ".push-type.liveactivity"
    case .location: return ".location-query"
    case .pushtotalk: return ".voip-ptt"
    case .alert, .background, .mdm, .widgets: return nil
    }
  }
}
