public import Geodesy

/// A raw boundary crossing: the device's path entered or left a region between two fixes.
///
/// This is geometric truth, before any platform rule (confirmation distance, accuracy gating,
/// latency) is applied.
public struct RegionCrossing: Hashable, Sendable, CustomStringConvertible {
  /// Which way the boundary was crossed.
  public enum Direction: String, Hashable, Sendable {
    case enter
    case exit
  }

  /// The region crossed.
  public var region: RegionIdentifier
  /// Entering or leaving.
  public var direction: Direction
  /// When the path crossed the boundary (seconds since the Unix epoch), interpolated between the
  /// two fixes; exact to a microsecond on the path model of ``CrossingDetector``.
  public var time: Double
  /// Where the path crossed the boundary.
  public var coordinate: Coordinate
  /// Index (0-based, in arrival order) of the fix before the crossing.
  public var fromFix: Int
  /// Index of the fix after the crossing (`fromFix + 1`).
  public var toFix: Int
  /// True when both fixes are on the same side and the path between them dipped across the
  /// boundary and back (a small region passed through with no fix inside, or a brief exit).
  public var isPassThrough: Bool
  /// The region's slot in the detector's index (-1 when made outside a detector): lets the
  /// monitor keep per-region state in arrays. Not part of the crossing's value.
  var slot: Int32 = -1

  public static func == (a: RegionCrossing, b: RegionCrossing) -> Bool {
    a.region == b.region && a.direction == b.direction && a.time == b.time && a.coordinate == b.coordinate
      && a.fromFix == b.fromFix && a.toFix == b.toFix && a.isPassThrough == b.isPassThrough
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(region)
    hasher.combine(direction)
    hasher.combine(time)
    hasher.combine(fromFix)
    hasher.combine(isPassThrough)
  }

  public init(
    region: RegionIdentifier, direction: Direction, time: Double, coordinate: Coordinate,
    fromFix: Int, toFix: Int, isPassThrough: Bool
  ) {
    self.region = region
    self.direction = direction
    self.time = time
    self.coordinate = coordinate
    self.fromFix = fromFix
    self.toFix = toFix
    self.isPassThrough = isPassThrough
  }

  /// A crossing found by a detector, with the region's slot in its index.
  init(
    region: RegionIdentifier, direction: Direction, time: Double, coordinate: Coordinate,
    fromFix: Int, toFix: Int, isPassThrough: Bool, slot: Int32
  ) {
    self.init(
      region: region, direction: direction, time: time, coordinate: coordinate, fromFix: fromFix, toFix: toFix,
      isPassThrough: isPassThrough)
    self.slot = slot
  }

  public var description: String {
    "\(direction.rawValue) \(region) at \(time) \(coordinate) fixes \(fromFix)→\(toFix)\(isPassThrough ? " pass-through" : "")"
  }
}

/// A fix the ``CrossingDetector`` cannot use.
public struct CrossingDetectorError: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Reason: Hashable, Sendable {
    /// The fix's time is NaN or infinite.
    case timeNotFinite
    /// The fix is earlier than the one before it.
    case outOfOrder(previousTime: Double)
  }

  /// Index the rejected fix would have had, in arrival order.
  public let fixIndex: Int
  /// Its time.
  public let time: Double
  public let reason: Reason

  public init(fixIndex: Int, time: Double, reason: Reason) {
    self.fixIndex = fixIndex
    self.time = time
    self.reason = reason
  }

  public var description: String {
    switch reason {
    case .timeNotFinite:
      return "fix \(fixIndex): time \(time) is not a finite number of seconds since 1970"
    case .outOfOrder(let previousTime):
      return "fix \(fixIndex) at time \(time) is earlier than fix \(fixIndex - 1) at \(previousTime): fixes must arrive in time order"
    }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.fixIndex == rhs.fixIndex && lhs.time.bitPattern == rhs.time.bitPattern && lhs.reason == rhs.reason
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(fixIndex)
    hasher.combine(time.bitPattern)
  }
}
