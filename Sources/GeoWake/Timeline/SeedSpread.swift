public import Geofencing

/// How much a track's region events vary with the seed: the same fixes monitored once per seed,
/// and per region the entries and exits the app was told of, the crossings never reported, and
/// the time from each event's crossing to the app.
///
/// A profile with drawn values (trigger depths, latencies, early entries, missed crossings) gives
/// one timeline per seed; this says how far apart they are.
public struct SeedSpread: Sendable {
  /// One region over every seed.
  public struct RegionSpread: Sendable, Equatable {
    public let region: RegionIdentifier
    /// Per seed, in seed order: entries and exits delivered to the app.
    public let enters: [Int]
    public let exits: [Int]
    /// Confirmed entries and exits over every seed, and those never reported.
    public let confirmed: Int
    public let missed: Int
    /// Seconds from the crossing to the app, over every seed, ascending.
    public let enterDelays: [Double]
    public let exitDelays: [Double]
  }

  public let seeds: [UInt64]
  /// The regions with an entry or an exit under some seed, by identifier.
  public let regions: [RegionSpread]

  /// The spread of `events`, one list per seed of `seeds` (in that order).
  public init(seeds: [UInt64], events: [[RegionEvent]]) {
    self.seeds = seeds
    struct Tally {
      var enters: [Int]
      var exits: [Int]
      var confirmed = 0
      var missed = 0
      var enterDelays: [Double] = []
      var exitDelays: [Double] = []
    }
    var tallies: [RegionIdentifier: Tally] = [:]
    for (k, list) in events.enumerated() {
      for e in list where e.kind == .enter || e.kind == .exit {
        var t = tallies[e.region] ?? Tally(enters: Array(repeating: 0, count: events.count), exits: Array(repeating: 0, count: events.count))
        t.confirmed += 1
        if e.withheld == .missed { t.missed += 1 }
        if let delivered = e.deliveredAt {
          if e.kind == .enter {
            t.enters[k] += 1
            t.enterDelays.append(delivered - e.crossedAt)
          } else {
            t.exits[k] += 1
            t.exitDelays.append(delivered - e.crossedAt)
          }
        }
        tallies[e.region] = t
      }
    }
    regions = tallies.keys.sorted().map { id in
      let t = tallies[id]!
      return RegionSpread(
        region: id, enters: t.enters, exits: t.exits, confirmed: t.confirmed, missed: t.missed,
        enterDelays: t.enterDelays.sorted(), exitDelays: t.exitDelays.sorted())
    }
  }

  /// The `p` quantile (type 7) of ascending `values`; `nil` without any.
  public static func quantile(_ values: [Double], _ p: Double) -> Double? { DelayDistribution(values).quantile(p) }
}
