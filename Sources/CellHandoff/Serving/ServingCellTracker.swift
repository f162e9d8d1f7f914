public import Geodesy
import RealModule

/// Which cell serves the device along a track, by the A3 rule of a ``CellSelectionProfile``.
///
/// At every fix the cells that reach the device are found (``TowerMap`` or the synthetic
/// ``HexagonalCellLayout``) and their signal estimated from distance (``PathLossModel``). The
/// device attaches to the strongest. A handoff to a neighbour happens once the neighbour has been
/// stronger than the serving cell by the hysteresis at every fix for the time-to-trigger; the
/// handoff time is when the time-to-trigger ran out (the condition is taken to hold between two
/// fixes where it holds at both). A handoff straight back to the previous cell within the
/// ping-pong window is not made and is counted in ``suppressedPingPongs`` (once per episode);
/// once the window has passed, it is made if the neighbour is still stronger. When the serving
/// cell stops reaching the device, it moves at once to the strongest cell there (or loses
/// service when there is none).
///
/// Fixes that carry their serving cell (drive logs) are used as they are: a change of cell is a
/// `reported` handoff, whatever the signal model says.
///
/// **Skipping fixes.** After a fix at which nothing is pending, the tracker works
/// out how far the device can move before any decision could change: the serving cell cannot
/// leave its range before the device has moved its remaining reach, and a neighbour N cannot
/// beat the serving cell S by the hysteresis (q_S > r·q_N, q = (max(d, d_min)/range)², r the
/// hysteresis as a ratio) before the device has moved
/// δ_N = (√r·e_N/R_N − e_S/R_S) / (1/R_S + √r/R_N), e the clamped distances now — because a
/// distance changes by at most the displacement. Until a fix is farther than the smallest of
/// these (less a centimetre-scale allowance for Float rounding) from that fix, measured by a
/// cheap upper bound on the chord from the latitude and longitude differences, fixes are
/// counted and skipped: the result is the same as evaluating each.
///
/// Deterministic: ties in signal go to the smaller ``CellIdentity``.
public struct ServingCellTracker {
  public let profile: CellSelectionProfile
  public let layout: CellLayout
  /// The cell serving the device after the last fix, if any.
  public internal(set) var serving: CellIdentity?
  /// Its tower, when its position is known (not for cells named by a drive log).
  public internal(set) var servingTower: CellTower?
  /// Handoffs made (attaches and losses of service not counted).
  public internal(set) var handoffCount = 0
  /// Handoffs back to the previous cell within the ping-pong window that were not made.
  public internal(set) var suppressedPingPongs = 0
  /// Fixes tracked.
  public internal(set) var fixCount = 0

  /// The default ``cacheRadius``.
  public static let defaultCacheRadius = 1_000.0
  /// Metres the device may move from where the candidate cache was filled before it is filled
  /// again (tower maps): the cache holds every tower whose range plus this reaches that place.
  /// A tuning knob only: results do not depend on it.
  public let cacheRadius: Double

  var hexagonal: HexagonalCellLayout?
  private var reached: [Int32] = []
  private var reachedTowers: [CellTower] = []
  // Candidate cache (tower maps and synthetic layouts), struct-of-arrays.
  private var cacheCentre: SIMD3<Double>?
  /// The point the cache was filled around (so that a restored tracker fills the same cache).
  var cacheAnchor: Coordinate?
  private var cachePositions: [SIMD3<Double>] = []
  private var cacheRangeSquared: [Double] = []
  private var cacheInverseRangeSquared: [Double] = []
  /// The cached towers themselves.
  private var cacheCells: [CellTower] = []
  // The same in Float, relative to the cache centre, padded to a multiple of 8 lanes: a SIMD
  // prefilter that finds the few candidates worth an exact look.
  private var lanesX: [Float] = []
  private var lanesY: [Float] = []
  private var lanesZ: [Float] = []
  private var lanesRangeSquared: [Float] = []
  private var lanesInverseRangeSquared: [Float] = []
  private var lanesInverseRange: [Float] = []
  private var scratch: [Float] = []
  private var nearSlots: [Int] = []
  /// Fixes within `skipRadius` metres of the skip anchor change nothing (see the type).
  var skipRadius = 0.0
  var skipAnchor = (latitude: 0.0, longitude: 0.0, cosLatitude: 0.0)
  /// Fixes skipped so far, for benchmarks and tests.
  public internal(set) var skippedFixes = 0
  /// Times the candidate cache was filled, for benchmarks.
  public internal(set) var cacheFills = 0
  /// The serving cell's slot in the cache (-1: absent).
  private var servingSlot = -1
  /// The tower map, when the layout is one (kept apart so that reading it copies nothing).
  private let map: TowerMap?
  /// The previous serving cell and when the device left it.
  var previous: (cell: CellIdentity, time: Double)?
  /// A neighbour satisfying the A3 condition since `since`; `suppressed` once it was counted as
  /// a ping-pong.
  var pending: (target: CellIdentity, since: Double, suppressed: Bool)?
  /// (q_serving / q_neighbour) above which the neighbour is stronger by the hysteresis, where
  /// q = (d / range)²: signal = edge − 5·n·log₁₀ q, so the A3 test needs no logarithm.
  private let hysteresisRatio: Double
  private let minimumDistanceSquared: Double

  /// - Throws: ``CellLayoutError`` for a hexagonal layout whose spacing is out of range.
  public init(layout: CellLayout, profile: CellSelectionProfile = .lte, cacheRadius: Double = defaultCacheRadius) throws(CellLayoutError) {
    if case .hexagonal(let spacing) = layout, !HexagonalCellLayout.isValidSpacing(spacing) { throw CellLayoutError(spacing: spacing) }
    self.cacheRadius = max(1, cacheRadius)
    self.layout = layout
    self.profile = profile
    if case .towers(let map) = layout { self.map = map } else { self.map = nil }
    hysteresisRatio = Double.exp10(profile.hysteresis / (5 * profile.pathLoss.exponent))
    minimumDistanceSquared = profile.pathLoss.minimumDistance * profile.pathLoss.minimumDistance
  }

  /// What a fix shows: the strongest cell, the serving cell's standing, the strongest other.
  private struct Standing {
    /// Strongest cell reaching the fix: tower and q = (max(d, d_min) / range)².
    var best: (tower: CellTower, q: Double)?
    /// q of the serving cell, when it reaches the fix.
    var servingQ: Double?
    /// Strongest cell other than the serving one.
    var other: (tower: CellTower, q: Double)?
    /// Metres the device can move before a decision could change (0: unknown).
    var safeRadius = 0.0
  }

  private mutating func startSkipping(at point: Coordinate, radius: Double) {
    let latitude = point.latitude * .pi / 180
    skipAnchor = (latitude, point.longitude * .pi / 180, Double.cos(latitude))
    skipRadius = radius
  }

  /// An upper bound on the chord from the skip anchor to `point`: the path along the meridian
  /// then the parallel is at least the geodesic, which is at least the chord; the meridional
  /// radius and the prime-vertical radius are at most a/√(1−e²) < 6,399,594 m, and cos φ is
  /// within |Δφ| of cos φ₀.
  @inline(__always)
  private func displacementBound(to point: Coordinate) -> Double {
    let dLatitude = abs(point.latitude * .pi / 180 - skipAnchor.latitude)
    var dLongitude = abs(point.longitude * .pi / 180 - skipAnchor.longitude)
    if dLongitude > .pi { dLongitude = 2 * .pi - dLongitude }  // the short way round
    return 6_399_594 * (dLatitude + min(1, skipAnchor.cosLatitude + dLatitude) * dLongitude)
  }

  /// The earliest time a serving-cell change can still be dated at from what the tracker holds:
  /// a neighbour already beating the serving cell hands over no earlier than the time-to-trigger
  /// after it began to. Nil when nothing is pending: the next change is dated at a later fix's
  /// time (an attach, a loss of service, a reported cell) or after it (a handoff). A stream of
  /// changes in time order can be released up to this time.
  public var earliestPendingChange: Double? { pending.map { $0.since + profile.timeToTrigger } }

  /// Tracks one fix (in time order), appending the serving-cell changes it caused.
  /// - Parameter reportedCell: the serving cell the fix names, if it names one.
  public mutating func process(_ fix: LocationFix, reportedCell: CellIdentity? = nil, into changes: inout [ServingCellChange]) {
    fixCount += 1
    if let reportedCell {
      guard serving != reportedCell else { return }
      let tower: CellTower?
      if case .towers(let map) = layout, let k = map.index(of: reportedCell) { tower = map.towers[k] } else { tower = nil }
      let change = ServingCellChange(
        time: fix.time, coordinate: fix.coordinate, from: serving, to: reportedCell, toTower: tower, cause: .reported)
      if change.isHandoff { handoffCount += 1 }
      if let serving { previous = (serving, fix.time) }
      serving = reportedCell
      servingTower = tower
      updateServingSlot()
      changes.append(change)
      return
    }
    if skipRadius > 0 {
      if displacementBound(to: fix.coordinate) < skipRadius {
        skippedFixes += 1
        return
      }
      skipRadius = 0
    }
    let standing = self.standing(at: fix.coordinate)
    guard let current = serving else {
      if let best = standing.best {
        serving = best.tower.identity
        servingTower = best.tower
        updateServingSlot()
        pending = nil
        changes.append(ServingCellChange(time: fix.time, coordinate: fix.coordinate, from: nil, to: best.tower.identity, toTower: best.tower, cause: .attach))
      }
      return
    }
    guard let servingQ = standing.servingQ else {
      pending = nil
      if let best = standing.best {
        handOff(to: best.tower, at: fix.time, fix: fix, cause: .servingOutOfRange, into: &changes)
      } else {
        previous = (current, fix.time)
        serving = nil
        servingTower = nil
        updateServingSlot()
        changes.append(ServingCellChange(time: fix.time, coordinate: fix.coordinate, from: current, to: nil, toTower: nil, cause: .noService))
      }
      return
    }
    guard let neighbour = standing.other, servingQ > neighbour.q * hysteresisRatio else {
      pending = nil
      if standing.safeRadius > 0 { startSkipping(at: fix.coordinate, radius: standing.safeRadius) }
      return
    }
    if pending?.target != neighbour.tower.identity {
      pending = (neighbour.tower.identity, fix.time, false)
    }
    guard let p = pending, fix.time - p.since >= profile.timeToTrigger else { return }
    var time = p.since + profile.timeToTrigger
    if let previous, previous.cell == neighbour.tower.identity {
      let windowEnd = previous.time + profile.pingPongWindow
      if windowEnd > fix.time {
        if !p.suppressed {
          suppressedPingPongs += 1
          pending?.suppressed = true
        }
        return
      }
      time = max(time, windowEnd)
    }
    pending = nil
    let margin = 5 * profile.pathLoss.exponent * Double.log10(servingQ / neighbour.q)
    handOff(to: neighbour.tower, at: min(time, fix.time), fix: fix, cause: .strongerNeighbour(margin: margin), into: &changes)
  }

  private mutating func handOff(
    to tower: CellTower, at time: Double, fix: LocationFix, cause: ServingCellChange.Cause, into changes: inout [ServingCellChange]
  ) {
    let from = serving
    if let from { previous = (from, time) }
    serving = tower.identity
    servingTower = tower
    updateServingSlot()
    handoffCount += 1
    changes.append(ServingCellChange(time: time, coordinate: fix.coordinate, from: from, to: tower.identity, toTower: tower, cause: cause))
  }

  private mutating func updateServingSlot() {
    let serving = self.serving
    servingSlot = serving.flatMap { id in cacheCells.firstIndex { $0.identity == id } } ?? -1
  }

  /// The standing at `point`, from the candidate cache (tower maps and synthetic layouts alike).
  ///
  /// A SIMD pass in Float (8 towers at a time, positions relative to the cache centre) computes
  /// every q and the two smallest; only the towers within 1 % of the second smallest (and the
  /// serving one) are then evaluated exactly in Double. Float's error on q is below 0.2 % for
  /// towers up to 100 km away and distances of at least the model's 10 m minimum, so the exact
  /// pass sees every tower that can be the best or the strongest other: the result is the one a
  /// full Double pass gives.
  private mutating func standing(at point: Coordinate) -> Standing {
    let p = Ellipsoid.wgs84.cartesian(point)
    if let centre = cacheCentre, ((p - centre) * (p - centre)).sum() <= cacheRadius * cacheRadius {
      // The cache holds every tower that can reach p.
    } else {
      fillCache(around: point, p)
    }
    let relative = SIMD3<Float>(p - (cacheCentre ?? p))
    let minimum = Float(minimumDistanceSquared)
    // For the skip radius: the serving cell's clamped distance over its range, now, exactly.
    let servingSlot = self.servingSlot
    let exactMinimum = minimumDistanceSquared
    func exact(_ k: Int) -> Double? {
      let d = p - cachePositions[k]
      let d2 = (d * d).sum()
      return d2 <= cacheRangeSquared[k] ? max(d2, exactMinimum) * cacheInverseRangeSquared[k] : nil
    }
    let servingQ = servingSlot >= 0 ? exact(servingSlot) : nil
    let sqrtRatio = Float(hysteresisRatio.squareRoot())
    let servingRatio = Float(servingQ?.squareRoot() ?? 0)  // e_S / R_S
    let servingInverseRange = servingSlot >= 0 ? Float(cacheInverseRangeSquared[servingSlot].squareRoot()) : 0
    var safe = SIMD8<Float>(repeating: .infinity)
    var smallest1 = SIMD8<Float>(repeating: .infinity)
    var smallest2 = SIMD8<Float>(repeating: .infinity)
    let count = lanesX.count
    let validCount = cacheCells.count
    lanesX.withUnsafeBufferPointer { xs in
      lanesY.withUnsafeBufferPointer { ys in
        lanesZ.withUnsafeBufferPointer { zs in
          lanesRangeSquared.withUnsafeBufferPointer { r2 in
            lanesInverseRangeSquared.withUnsafeBufferPointer { inverse in
             lanesInverseRange.withUnsafeBufferPointer { inverseRanges in
              scratch.withUnsafeMutableBufferPointer { out in
                let rx = SIMD8<Float>(repeating: relative.x)
                let ry = SIMD8<Float>(repeating: relative.y)
                let rz = SIMD8<Float>(repeating: relative.z)
                let floor = SIMD8<Float>(repeating: minimum)
                let infinity = SIMD8<Float>(repeating: .infinity)
                for k in stride(from: 0, to: count, by: 8) {
                  func load(_ b: UnsafeBufferPointer<Float>) -> SIMD8<Float> {
                    UnsafeRawPointer(b.baseAddress! + k).loadUnaligned(as: SIMD8<Float>.self)
                  }
                  let dx = load(xs) - rx
                  let dy = load(ys) - ry
                  let dz = load(zs) - rz
                  let d2 = dx * dx + dy * dy + dz * dz
                  // (pointwiseMin/Max are not inlined here: masks and replace are.)
                  var clamped = d2
                  clamped.replace(with: floor, where: d2 .< floor)
                  var q = clamped * load(inverse)
                  q.replace(with: infinity, where: d2 .> load(r2))
                  UnsafeMutableRawPointer(out.baseAddress! + k).storeBytes(of: q, as: SIMD8<Float>.self)
                  if servingQ != nil {
                    // δ_N = (√r·e_N/R_N − e_S/R_S) / (1/R_S + √r/R_N), lanes of the serving cell excluded.
                    let inverseRange = load(inverseRanges)
                    // e_N/R_N = √q from below, without eight scalar square roots: the classic
                    // reciprocal-square-root estimate refined by two Newton steps is within
                    // 5e-6 of 1/√q; shaving 1e-4 off keeps it a lower bound, and a smaller
                    // value only shortens the safe radius.
                    let u = Self.squareRootBelow(q)
                    var delta = (sqrtRatio * u - servingRatio) / (servingInverseRange + sqrtRatio * inverseRange)
                    if servingSlot >= k && servingSlot < k + 8 { delta[servingSlot - k] = .infinity }
                    if k + 8 > validCount { for lane in (validCount - k)..<8 { delta[lane] = .infinity } }  // padding
                    safe.replace(with: delta, where: delta .< safe)
                  }
                  let belowFirst = q .< smallest1
                  smallest2.replace(with: q, where: q .< smallest2)
                  smallest2.replace(with: smallest1, where: belowFirst)
                  smallest1.replace(with: q, where: belowFirst)
                }
               }
              }
            }
          }
        }
      }
    }
    // The two smallest of the sixteen lane values.
    var first = Float.infinity
    var second = Float.infinity
    func offer(_ v: Float) {
      if v < first {
        second = first
        first = v
      } else if v < second {
        second = v
      }
    }
    for lane in 0..<8 {
      offer(smallest1[lane])
      offer(smallest2[lane])
    }
    let threshold = second * 1.01
    var best = -1
    var bestQ = Double.infinity
    var other = -1
    var otherQ = Double.infinity
    if first.isFinite {
      var near: [Int] = []
      scratch.withUnsafeBufferPointer { qs in
        for k in 0..<cacheCells.count where qs[k] <= threshold || k == servingSlot { nearSlots.append(k) }
      }
      swap(&near, &nearSlots)
      defer {
        swap(&near, &nearSlots)
        nearSlots.removeAll(keepingCapacity: true)
      }
      for k in near {
        guard let q = k == servingSlot ? servingQ : exact(k) else { continue }
        if q < bestQ || (q == bestQ && isSmaller(k, than: best)) {
          best = k
          bestQ = q
        }
        if k != servingSlot && (q < otherQ || (q == otherQ && isSmaller(k, than: other))) {
          other = k
          otherQ = q
        }
      }
    }
    var standing = Standing()
    standing.servingQ = servingQ
    if let servingQ, let centre = cacheCentre {
      // Leaving its range, overtaken by a neighbour, leaving the cache: the nearest of the three,
      // less an allowance for Float rounding (centimetres) — 0 when any is already near.
      let reach = cacheRangeSquared[servingSlot].squareRoot() * (1 - servingQ.squareRoot())
      let inCache = cacheRadius - ((p - centre) * (p - centre)).sum().squareRoot()
      var overtaken = Double.infinity
      for lane in 0..<8 { overtaken = min(overtaken, Double(safe[lane])) }
      let radius = min(reach, inCache, overtaken * (1 - 1e-3) - 0.05)
      standing.safeRadius = radius > 0.5 ? radius : 0
    }
    if best >= 0 { standing.best = (cacheCells[best], bestQ) }
    if other >= 0 { standing.other = (cacheCells[other], otherQ) }
    return standing
  }

  /// A lower bound on √q, lane by lane, within 1.1e-4 of it (q ≥ 0; infinite lanes stay
  /// infinite, zero lanes give 0).
  @inline(__always)
  static func squareRootBelow(_ q: SIMD8<Float>) -> SIMD8<Float> {
    let bits = unsafeBitCast(q, to: SIMD8<UInt32>.self)
    var r = unsafeBitCast(SIMD8<UInt32>(repeating: 0x5F37_59DF) &- (bits &>> 1), to: SIMD8<Float>.self)
    let half = 0.5 * q
    r = r * (1.5 - half * r * r)
    r = r * (1.5 - half * r * r)
    var root = q * r * (1 - 1e-4)
    root.replace(with: q, where: q .== .infinity)
    root.replace(with: 0, where: q .== 0)
    return root
  }

  /// Whether cache slot `k`'s cell has a smaller identity than slot `than`'s (ties in signal).
  private func isSmaller(_ k: Int, than other: Int) -> Bool {
    other < 0 || cacheCells[k].identity < cacheCells[other].identity
  }

  mutating func fillCache(around point: Coordinate, _ p: SIMD3<Double>) {
    cacheFills += 1
    cacheCentre = p
    cacheAnchor = point
    cachePositions.removeAll(keepingCapacity: true)
    cacheRangeSquared.removeAll(keepingCapacity: true)
    cacheInverseRangeSquared.removeAll(keepingCapacity: true)
    cacheCells.removeAll(keepingCapacity: true)
    // Whole-array appends (each reserves once and copies), not one append per tower and array.
    if let map {
      reached.removeAll(keepingCapacity: true)
      map.towers(reaching: point, margin: cacheRadius, into: &reached)
      cacheCells.append(contentsOf: reached.lazy.map { map.towers[Int($0)] })
      cachePositions.append(contentsOf: reached.lazy.map { map.cartesian(of: Int($0)) })
    } else if case .hexagonal(let spacing) = layout {
      // The spacing was checked when the tracker was made.
      if hexagonal == nil { hexagonal = HexagonalCellLayout(validAnchor: point, spacing: spacing) }
      reachedTowers.removeAll(keepingCapacity: true)
      hexagonal?.towers(reaching: point, margin: cacheRadius, into: &reachedTowers)
      cacheCells.append(contentsOf: reachedTowers)
      cachePositions.append(contentsOf: reachedTowers.lazy.map { Ellipsoid.wgs84.cartesian($0.coordinate) })
    }
    cacheRangeSquared.append(contentsOf: cacheCells.lazy.map { $0.range * $0.range })
    cacheInverseRangeSquared.append(contentsOf: cacheRangeSquared.lazy.map { 1 / $0 })
    updateServingSlot()
    // Float lanes, relative to the centre, padded with towers that reach nowhere. A little slack
    // on the range so that Float rounding never drops a tower at its edge; the exact pass decides.
    let count = cacheCells.count
    let padded = (count + 7) / 8 * 8
    let positions = cachePositions
    let rangeSquared = cacheRangeSquared
    let inverse = cacheInverseRangeSquared
    func fill(_ lanes: inout [Float], padding: Float, _ value: (Int) -> Float) {
      lanes.removeAll(keepingCapacity: true)
      lanes.append(contentsOf: repeatElement(padding, count: padded))
      lanes.withUnsafeMutableBufferPointer { buffer in
        for k in 0..<count { buffer[k] = value(k) }
      }
    }
    fill(&lanesX, padding: 1e18) { Float(positions[$0].x - p.x) }
    fill(&lanesY, padding: 1e18) { Float(positions[$0].y - p.y) }
    fill(&lanesZ, padding: 1e18) { Float(positions[$0].z - p.z) }
    fill(&lanesRangeSquared, padding: 0) { Float(rangeSquared[$0]) * 1.001 }
    fill(&lanesInverseRangeSquared, padding: 0) { Float(inverse[$0]) }
    fill(&lanesInverseRange, padding: 0) { Float(inverse[$0].squareRoot()) }
    if scratch.count < padded { scratch = [Float](repeating: .infinity, count: padded) }
  }
}
