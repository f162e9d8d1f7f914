public import Geodesy

/// What a ``RegionMonitor`` tells (or would have told) the app about one region.
public struct RegionEvent: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable {
    /// A confirmed outside → inside transition.
    case enter
    /// A confirmed inside → outside transition.
    case exit
    /// The path crossed the region between two fixes on the same side (entered and left, or left
    /// and came back); the state does not change.
    case passThrough
    /// The region's state as first established, or as regained after a gap; never a transition.
    case state
    /// The region could not be monitored (past the profile's region cap).
    case monitoringFailed
    /// The device stayed inside for the profile's loitering delay after entering (Android's
    /// `GEOFENCE_TRANSITION_DWELL`); the state does not change.
    case dwell
  }

  /// A region's state.
  public enum State: String, Hashable, Sendable, Codable {
    case inside
    case outside
    case unknown
  }

  /// Why the event happened, as a value (``reason`` says it in a sentence).
  public enum Cause: Hashable, Sendable, Codable {
    /// The region was registered past the profile's cap of `limit` regions.
    case regionCapExceeded(limit: Int)
    /// The state established by the first fix.
    case initialState
    /// The state regained by the first fix after `gap` seconds without fixes (more than the
    /// profile's gap limit); it was `previous` before the gap.
    case stateRegained(gap: Double, previous: State)
    /// The path crossed the boundary between fixes `fromFix` and `toFix` (0-based, counting every
    /// fix used), and fix `confirmedByFix` confirmed it under the profile's rules.
    case crossingConfirmed(fromFix: Int, toFix: Int, confirmedByFix: Int)
    /// With a profile's ``RegionMonitoringProfile/entryLead``: at fix `atFix` the device came
    /// within the lead of a circle it had not reached (an early entry), or got beyond the lead
    /// again without having crossed the boundary (the exit of such an entry); fix
    /// `confirmedByFix` confirmed it.
    case leadReached(atFix: Int, confirmedByFix: Int)
    /// The path went through the region (or out and back) between fixes `fromFix` and `toFix`,
    /// neither of them on the other side.
    case passedThrough(fromFix: Int, toFix: Int)
    /// The device stayed inside for the profile's loitering delay, seen at fix `seenAtFix`.
    case loiteringDelayElapsed(seenAtFix: Int)
  }

  /// Why an event is not delivered to the app (``deliveredAt`` is `nil`).
  public enum Withholding: Hashable, Sendable, Codable {
    /// The app did not ask for this transition (`notifyOnEntry`, `notifyOnExit`, `notifyOnDwell`).
    case notRequested
    /// The profile does not deliver `state` events (the app could ask with `requestState`).
    case stateNotDelivered
    /// The profile does not report pass-throughs (no fix was on the other side).
    case passThroughNotReported
    /// The platform never reported this confirmed crossing (the profile's
    /// ``RegionMonitoringProfile/reportingRate``): measured phones miss some.
    case missed
  }

  public var kind: Kind
  public var region: RegionIdentifier
  /// When the path crossed the boundary (interpolated); for `state` and `monitoringFailed`, the
  /// time of the fix that established it; for `dwell`, the end of the loitering delay. Seconds
  /// since the Unix epoch.
  public var crossedAt: Double
  /// When the platform decided it: the time of the fix that confirmed the crossing, showed the
  /// pass-through or established the state (or the clock's, for a dwell seen without a fix).
  /// Never later than ``deliveredAt``.
  public var decidedAt: Double
  /// When the app is told, or `nil` when it is not (``reason`` says why).
  public var deliveredAt: Double?
  /// Where the path crossed the boundary, or the fix that established the state.
  public var coordinate: Coordinate
  /// For `state` events: the state.
  public var state: State?
  /// Why this event happened.
  public var cause: Cause
  /// Why it is not delivered, when ``deliveredAt`` is `nil`.
  public var withheld: Withholding?
  /// Why this event happened (or was not delivered), in a sentence.
  public var reason: String

  /// When it happened on the device: when the app is told, or, for an event it is not told of,
  /// when the platform decided.
  public var at: Double { deliveredAt ?? decidedAt }

  /// An event; `decidedAt` defaults to the delivery time, else the crossing time.
  public init(
    kind: Kind, region: RegionIdentifier, crossedAt: Double, decidedAt: Double? = nil, deliveredAt: Double?, coordinate: Coordinate,
    state: State? = nil, cause: Cause, withheld: Withholding? = nil, reason: String
  ) {
    self.kind = kind
    self.decidedAt = decidedAt ?? deliveredAt ?? crossedAt
    self.cause = cause
    self.withheld = withheld
    self.region = region
    self.crossedAt = crossedAt
    self.deliveredAt = deliveredAt
    self.coordinate = coordinate
    self.state = state
    self.reason = reason
  }
}

/// Which transitions of a region the app asked to be told about (`notifyOnEntry`, `notifyOnExit`).
public struct RegionNotifications: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let entry = RegionNotifications(rawValue: 1)
  public static let exit = RegionNotifications(rawValue: 2)
  /// Dwell events, on profiles that have them (``RegionMonitoringProfile/loiteringDelay``).
  public static let dwell = RegionNotifications(rawValue: 4)
  /// All of them, the default.
  public static let all: RegionNotifications = [.entry, .exit, .dwell]
}

/// Why a ``RegionMonitor`` did not use a fix.
public enum FixRejection: Hashable, Sendable {
  /// Its time is NaN or infinite.
  case timeNotFinite
  /// It is more than the reorder window older than the newest fix (`previousTime`), or older
  /// than a fix already used.
  case outOfOrder(previousTime: Double, window: Double)
  /// Its horizontal accuracy is worse than the profile's limit.
  case inaccurate(accuracy: Double, limit: Double)
  /// Its horizontal accuracy is NaN, infinite or negative (CoreLocation's mark of an invalid
  /// location): the fix says nothing usable about where the device is.
  case accuracyInvalid(accuracy: Double)

  /// A short explanation.
  public var description: String {
    switch self {
    case .timeNotFinite: return "time is not finite"
    case .outOfOrder(let previous, let window):
      return "earlier than fix time \(previous) by more than the \(window) s reorder window: fixes must arrive in time order"
    case .inaccurate(let accuracy, let limit): return "horizontal accuracy \(accuracy) m is worse than the profile's limit of \(limit) m"
    case .accuracyInvalid(let accuracy):
      return "horizontal accuracy \(accuracy) is not a valid radius: expected finite metres ≥ 0 (negative marks an invalid location)"
    }
  }

  /// A stable key for counting rejections by cause.
  public var cause: String {
    switch self {
    case .timeNotFinite: return "time not finite"
    case .outOfOrder: return "out of time order"
    case .inaccurate: return "accuracy worse than the limit"
    case .accuracyInvalid: return "accuracy invalid"
    }
  }
}
