import TrackIO
public import Geodesy

/// A bounded-memory outline of a track for drawing: at most ``capacity`` fixes, evenly spaced in
/// fix count, plus the last one.
///
/// Every fix is offered with ``add(_:)``; the sketch keeps every `stride`-th. When it is full it
/// drops every other fix it kept and doubles the stride, so memory stays at `capacity` however
/// long the track is, and the kept fixes stay evenly spread. Deterministic.
public struct TrackSketch: Sendable {
  /// The most fixes kept (besides the last).
  public let capacity: Int
  /// Keeps one fix in this many.
  public private(set) var stride = 1
  /// Fixes offered.
  public private(set) var offered = 0
  private var kept: [LocationFix] = []
  private var last: LocationFix?

  public init(capacity: Int = 20_000) {
    self.capacity = max(2, capacity)
    kept.reserveCapacity(self.capacity)
  }

  public mutating func add(_ fix: LocationFix) {
    defer { offered += 1 }
    last = fix
    guard offered % stride == 0 else { return }
    if kept.count == capacity {
      var compacted: [LocationFix] = []
      compacted.reserveCapacity(capacity)
      for k in Swift.stride(from: 0, to: kept.count, by: 2) { compacted.append(kept[k]) }
      kept = compacted
      stride *= 2
      guard offered % stride == 0 else { return }
    }
    kept.append(fix)
  }

  /// The kept fixes in order, ending with the last fix offered.
  public var fixes: [LocationFix] {
    guard let last, kept.last?.time != last.time || kept.last?.coordinate != last.coordinate else { return kept }
    return kept + [last]
  }
}
