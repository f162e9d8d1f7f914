/// Per-region totals of a ``RegionMonitor``'s events: how many of each kind, how many were not
/// delivered, and how long the device was inside.
///
/// Time inside runs from an enter's crossing time (or a `state` event saying inside) to the next
/// exit's crossing time (or a `state` event saying outside, or ``finish(at:)``). A gap in the fixes
/// counts as the state before it, up to the `state` event that ends it.
public struct RegionActivity: Hashable, Sendable {
  /// Totals for one region.
  public struct Totals: Hashable, Sendable, Codable {
    public var enters = 0
    public var exits = 0
    public var passThroughs = 0
    public var dwells = 0
    public var stateEvents = 0
    /// Events kept but not delivered to the app (see their reasons).
    public var undelivered = 0
    /// Whether monitoring the region failed.
    public var failed = false
    /// Seconds inside.
    public var timeInside = 0.0
    public init() {}
  }

  /// Totals by region.
  public private(set) var totals: [RegionIdentifier: Totals] = [:]
  private var insideSince: [RegionIdentifier: Double] = [:]

  public init() {}

  /// Counts one event (in the order the monitor produced them).
  public mutating func add(_ event: RegionEvent) {
    var t = totals[event.region] ?? Totals()
    if event.deliveredAt == nil { t.undelivered += 1 }
    switch event.kind {
    case .enter:
      t.enters += 1
      insideSince[event.region] = event.crossedAt
    case .exit:
      t.exits += 1
      close(event.region, at: event.crossedAt, into: &t)
    case .passThrough:
      t.passThroughs += 1
    case .state:
      t.stateEvents += 1
      if event.state == .inside {
        insideSince[event.region] = event.crossedAt
      } else {
        close(event.region, at: event.crossedAt, into: &t)
      }
    case .dwell:
      t.dwells += 1
    case .monitoringFailed:
      t.failed = true
    }
    totals[event.region] = t
  }

  /// Closes the periods still open at the end of the track.
  public mutating func finish(at time: Double) {
    for id in insideSince.keys.sorted() {
      var t = totals[id] ?? Totals()
      close(id, at: time, into: &t)
      totals[id] = t
    }
  }

  /// Ends the open period inside `id` at `time` (the region stopped being monitored).
  public mutating func end(_ id: RegionIdentifier, at time: Double) {
    guard insideSince[id] != nil else { return }
    var t = totals[id] ?? Totals()
    close(id, at: time, into: &t)
    totals[id] = t
  }

  private mutating func close(_ id: RegionIdentifier, at time: Double, into t: inout Totals) {
    if let since = insideSince.removeValue(forKey: id) { t.timeInside += max(0, time - since) }
  }
}

/// Saved with a device's state: totals and open periods keyed by identifier; decoding checks the
/// identifiers and times.
extension RegionActivity: Codable {
  private enum CodingKeys: String, CodingKey { case totals, insideSince }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func identifier(_ name: String, _ key: CodingKeys) throws -> RegionIdentifier {
      do { return try RegionIdentifier(name) } catch {
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
      }
    }
    for (name, t) in try container.decode([String: Totals].self, forKey: .totals) {
      guard t.timeInside.isFinite, t.timeInside >= 0 else {
        throw DecodingError.dataCorruptedError(forKey: .totals, in: container, debugDescription: "time inside \(name) is not a duration")
      }
      totals[try identifier(name, .totals)] = t
    }
    for (name, since) in try container.decode([String: Double].self, forKey: .insideSince) {
      guard since.isFinite else {
        throw DecodingError.dataCorruptedError(forKey: .insideSince, in: container, debugDescription: "inside \(name) since a time that is not finite")
      }
      insideSince[try identifier(name, .insideSince)] = since
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Dictionary(uniqueKeysWithValues: totals.map { ($0.key.rawValue, $0.value) }), forKey: .totals)
    try container.encode(Dictionary(uniqueKeysWithValues: insideSince.map { ($0.key.rawValue, $0.value) }), forKey: .insideSince)
  }
}
