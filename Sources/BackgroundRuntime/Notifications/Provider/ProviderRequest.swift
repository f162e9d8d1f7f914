public import JSONBytes
/// One request a provider sends to APNs: `POST /3/device/<token>` with `apns-*` headers and a
/// JSON body, at a time on the virtual clock. Kept as sent — headers in order, duplicates and
/// all, the body as bytes — so that validation can find what APNs would.
public struct ProviderRequest: Hashable, Sendable {
  /// Seconds since the Unix epoch.
  public var time: Double
  /// The device token as written (hex).
  public var token: String
  /// `:method` (default POST) and `:path` (default `/3/device/<token>`).
  public var method: String
  public var path: String?
  /// Header names and values in the order sent.
  public var headers: [Header]
  /// The body, or nil when there is none.
  public var payload: [UInt8]?

  public struct Header: Hashable, Sendable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
      self.name = name
      self.value = value
    }
  }

  public init(time: Double, token: String, method: String = "POST", path: String? = nil, headers: [Header] = [], payload: [UInt8]?) {
    self.time = time
    self.token = token
    self.method = method
    self.path = path
    self.headers = headers
    self.payload = payload
  }

  /// The first value of header `name` (case-insensitive, as HTTP/2 names are lowercase).
  public func header(_ name: String) -> String? {
    for h in headers where h.name == name || h.name.lowercased() == name { return h.value }
    return nil
  }
}

/// A request APNs accepted (HTTP 200), with its headers read and its payload typed.
public struct AcceptedPush: Hashable, Sendable {
  public var time: Double
  /// `apns-id` as sent, or the one APNs made up for it.
  public var apnsID: String
  public var pushType: PushType
  /// 10, 5 or 1.
  public var priority: Int
  /// `apns-expiration` (seconds since the Unix epoch; 0: one attempt, not stored), or nil when
  /// the header was absent (stored for the profile's default period).
  public var expiration: Double?
  public var collapseID: String?
  public var topic: String
  /// The body as sent (checked: ``payload`` parses it).
  public var body: [UInt8]
  public var traits: NotificationPayload.Traits
  /// The typed payload, parsed from ``body`` when asked for.
  public var payload: NotificationPayload {
    (try? body.withUnsafeBufferPointer { b throws(PayloadError) in try NotificationPayload(parsing: b) }) ?? NotificationPayload(aps: APS())
  }
  public var payloadBytes: Int { body.count }
  /// Things APNs accepted but a provider should know (an inferred push type, …).
  public var notes: [String]

  /// A silent background push: content-available, nothing shown.
  public var isSilent: Bool { traits.isSilent }
  /// Wakes the app (content-available).
  public var wakesApp: Bool { traits.isContentAvailable }
}
