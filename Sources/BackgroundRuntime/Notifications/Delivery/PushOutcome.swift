/// What became of one provider request.
public struct PushOutcome: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Reached the device as soon as it was sent.
    case delivered
    /// Reached the device later: stored while offline, rate limited, deferred by power.
    case delayed
    /// A held silent push that rode along with a regular notification.
    case piggybacked
    /// Still waiting at the end: held on the device or stored by APNs.
    case held
    /// Never delivered: expired, replaced, discarded.
    case dropped
    /// Replaced by a newer notification with the same collapse ID before it was delivered.
    case coalesced
    /// Refused by APNs.
    case rejected
  }

  /// The request's position in the schedule (0-based).
  public var request: Int
  /// When it was sent (seconds since the Unix epoch).
  public var time: Double
  public var apnsID: String?
  /// APNs' HTTP answer: 200, or the rejection's status.
  public var status: Int
  public var reason: APNsReason?
  /// For `Unregistered`: when the token stopped being valid.
  public var timestamp: Double?
  public var kind: Kind
  public var deliveredAt: Double?
  /// What it rode along with: an apns-id, or `keep-alive`.
  public var carrier: String?
  /// Whether it is a content-available push (it wakes the app when delivered).
  public var wakesApp: Bool
  /// What the delivered notification did to the app.
  public var app: AppEffect?
  /// The facts behind ``detail``, in order (kept as values: the sentence is made when asked for).
  public var notes: Notes

  /// Why, in a sentence.
  public var detail: String { notes.all.map(\.text).joined(separator: "; ") }

  /// A few notes held inline (most outcomes have one or two), more in an array.
  public struct Notes: Hashable, Sendable, Codable {
    private var first: Note?
    private var second: Note?
    private var more: [Note] = []

    public init() {}

    public var isEmpty: Bool { first == nil }

    public mutating func append(_ note: Note) {
      if first == nil {
        first = note
      } else if second == nil {
        second = note
      } else {
        more.append(note)
      }
    }

    /// In order.
    public var all: [Note] { [first, second].compactMap { $0 } + more }
  }

  /// One fact about a request's fate.
  public enum Note: Hashable, Sendable, Codable {
    case rejected(String)
    case accepted(String)
    case replacedHeld(by: String)
    case replacedOffline(by: String, sameCollapseID: Bool)
    case expirationZeroOffline
    case expiredWhenSent
    case expiredOffline(at: Double)
    case storedOffline
    case deferredLowPower
    case keepAlive(silent: Bool, priority: Int)
    case piggybacked(on: String)
    case deferredWith(priority: Int, carrier: String)
    case discardedByForceQuit
    case killedByForceQuit
    case discardedByDeepSleep
    case killedByDeepSleep
    case notLaunchedInDeepSleep
    case storedByFCM
    case storeFull(limit: Int)
    case deferredByDoze
    case highPriorityQuota(bucket: String, perDay: Int)
    case deprioritized(days: Int)
    case notificationMessage
    case shown
    case shownAndWoken
    case notWoken
    case completed(FetchOutcome, seconds: Double)
    case terminated
    case notLaunched
    case onScreen
    case stillStored
    case stillHeld
    case stillDeferred

    public var text: String {
      switch self {
      case .rejected(let why), .accepted(let why): return why
      case .replacedHeld(let by): return "the device holds only the newest delayed silent push: replaced by \(by)"
      case .replacedOffline(let by, let same):
        return same
          ? "replaced while the device was offline by \(by) with the same collapse ID"
          : "APNs keeps only the newest notification for an offline device: replaced by \(by)"
      case .expirationZeroOffline: return "apns-expiration 0: one attempt, and the device was offline"
      case .expiredWhenSent: return "already expired when sent, and the device was offline"
      case .expiredOffline(let at): return "expired while the device was offline (at \(Int(at)))"
      case .storedOffline: return "stored by APNs while the device was offline"
      case .deferredLowPower: return "deferred while Low Power Mode was on"
      case .keepAlive(let silent, let priority):
        return silent ? "held past the silent-push budget, released at a keep-alive" : "delivered at a keep-alive (priority \(priority))"
      case .piggybacked(let on): return "held past the silent-push budget, delivered with \(on)"
      case .deferredWith(let priority, let carrier): return "deferred (priority \(priority)), delivered with \(carrier)"
      case .discardedByForceQuit: return "discarded: the user force-quit the app"
      case .killedByForceQuit: return "the user force-quit the app while the handler ran: no completion"
      case .discardedByDeepSleep: return "discarded: the battery manager put the app into deep sleep"
      case .killedByDeepSleep: return "the battery manager put the app into deep sleep while the handler ran: no completion"
      case .notLaunchedInDeepSleep: return "not launched: the battery manager keeps the app in deep sleep until the user opens it"
      case .storedByFCM: return "stored by FCM while the device was offline"
      case .storeFull(let limit): return "FCM stores at most \(limit) messages for an offline device: the oldest was dropped"
      case .deferredByDoze: return "normal priority: held by Doze until a maintenance window"
      case .highPriorityQuota(let bucket, let perDay):
        return "high priority past the \(bucket) standby bucket's \(perDay) a day: delivered at normal priority"
      case .deprioritized(let days):
        return "FCM deprioritized the app's high-priority messages (none showed a notification for \(days) days): normal priority"
      case .notificationMessage: return "a notification message: shown by the system, the app not woken"
      case .shown: return "shown to the user, the app not woken"
      case .shownAndWoken: return "shown to the user, and the app woken"
      case .notWoken: return "not woken: UIBackgroundModes does not declare remote-notification"
      case .completed(let result, let seconds): return "handler completed (.\(result.rawValue)) after \(FetchEvent.duration(seconds))"
      case .terminated: return "the app was terminated: no completion within the deadline"
      case .notLaunched: return "not launched: the app was force-quit"
      case .onScreen: return "the app was on screen: handled without a wake"
      case .stillStored: return "still stored by APNs: the device was offline at the end"
      case .stillHeld: return "still held on the device past the silent-push budget at the end"
      case .stillDeferred: return "still deferred on the device at the end"
      }
    }
  }

  public enum AppEffect: String, Hashable, Sendable, Codable {
    /// Shown to the user (alert, sound, badge); the app not woken.
    case shown
    /// Content-available, but the app does not declare the remote-notification background mode.
    case notWoken
    /// The handler called completion (.newData).
    case completed
    /// The handler called completion with .failed.
    case failed
    /// The handler did not finish in time: the app was terminated.
    case terminated
    /// The app was force-quit: not launched.
    case notLaunched
    /// The user force-quit the app while its handler ran.
    case killed
    /// The app was on screen: handled without a background wake.
    case onScreen
  }
}
