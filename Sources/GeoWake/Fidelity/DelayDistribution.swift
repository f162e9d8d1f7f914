/// A sample of exit delays, some of them missing (no exit observed), summarised as
/// ``geowake fidelity`` reports it.
public struct DelayDistribution: Sendable, Equatable {
  /// The delays of the exits reported, ascending.
  public let delays: [Double]
  /// Departures (or replays) with no exit in the observation window.
  public let missed: Int

  public init(_ values: [Double?]) {
    delays = values.compactMap { $0 }.sorted()
    missed = values.count - delays.count
  }

  public var count: Int { delays.count + missed }

  /// The share of departures with no exit (0 for an empty sample).
  public var missedShare: Double { count == 0 ? 0 : Double(missed) / Double(count) }

  /// The `p` quantile of the delays (0 ≤ p ≤ 1) by linear interpolation between order statistics
  /// (Hyndman & Fan's type 7, R's and NumPy's default); `nil` without delays.
  public func quantile(_ p: Double) -> Double? {
    guard !delays.isEmpty else { return nil }
    let h = Double(delays.count - 1) * min(1, max(0, p))
    let low = Int(h.rounded(.down))
    let high = min(low + 1, delays.count - 1)
    return delays[low] + (h - Double(low)) * (delays[high] - delays[low])
  }

  public var median: Double? { quantile(0.5) }

  /// The fraction of delays not above `x`.
  public func cumulativeShare(_ x: Double) -> Double {
    guard !delays.isEmpty else { return 0 }
    var low = 0, high = delays.count
    while low < high {
      let mid = (low + high) / 2
      if delays[mid] <= x { low = mid + 1 } else { high = mid }
    }
    return Double(low) / Double(delays.count)
  }

  /// The two-sample Kolmogorov–Smirnov distance between the delays of `self` and `other`: the
  /// largest difference between their empirical distribution functions (0 … 1); `nil` when
  /// either has no delay.
  public func kolmogorovSmirnovDistance(to other: DelayDistribution) -> Double? {
    guard !delays.isEmpty, !other.delays.isEmpty else { return nil }
    var i = 0, j = 0, largest = 0.0
    let (a, b) = (delays, other.delays)
    while i < a.count && j < b.count {
      let x = min(a[i], b[j])
      while i < a.count && a[i] <= x { i += 1 }
      while j < b.count && b[j] <= x { j += 1 }
      largest = max(largest, abs(Double(i) / Double(a.count) - Double(j) / Double(b.count)))
    }
    return largest
  }
}
