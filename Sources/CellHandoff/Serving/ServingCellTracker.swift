public import Geodesy

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
/// Deterministic: ties in signal go to the smaller ``CellIdentity``.
public struct ServingCellTracker {
  public let profile: CellSelectionProfile
  public let layout: CellLayout
  /// The cell serving the device after the last fix, if any.
  public private(set) var serving: CellIdentity?
  /// Its tower, when its position is known (not for cells named by a drive log).
  public private(set) var servingTower: CellTower?
  /// Handoffs made (attaches and losses of service not counted).
  public private(set) var handoffCount = 0
  /// Handoffs back to the previous cell within the ping-pong window that were not made.
  public private(set) var suppressedPingPongs = 0
  /// Fixes tracked.
  public private(set) var fixCount = 0

  private var hexagonal: HexagonalCellLayout?
  private var candidates: [ServingCandidate] = []
  private var reached: [Int32] = []
  private var reachedTowers: [CellTower] = []
  /// The previous serving cell and when the device left it.
  private var previous: (cell: CellIdentity, time: Double)?
  /// A neighbour satisfying the A3 condition since `since`; `suppressed` once it was counted as
  /// a ping-pong.
  private var pending: (target: CellIdentity, since: Double, suppressed: Bool)?

  public init(layout: CellLayout, profile: CellSelectionProfile = .lte) {
    self.layout = layout
    self.profile = profile
  }

  /// The cells reaching the last fix tracked by the signal model, strongest first.
  public var lastCandidates: [ServingCandidate] { candidates }

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
      changes.append(change)
      return
    }
    findCandidates(at: fix.coordinate)
    guard let current = serving else {
      if let best = candidates.first {
        serving = best.tower.identity
        servingTower = best.tower
        pending = nil
        changes.append(ServingCellChange(time: fix.time, coordinate: fix.coordinate, from: nil, to: best.tower.identity, toTower: best.tower, cause: .attach))
      }
      return
    }
    guard let servingSignal = candidates.first(where: { $0.tower.identity == current })?.signal else {
      pending = nil
      if let best = candidates.first {
        handOff(to: best.tower, at: fix.time, fix: fix, cause: .servingOutOfRange, into: &changes)
      } else {
        previous = (current, fix.time)
        serving = nil
        servingTower = nil
        changes.append(ServingCellChange(time: fix.time, coordinate: fix.coordinate, from: current, to: nil, toTower: nil, cause: .noService))
      }
      return
    }
    guard let neighbour = candidates.first(where: { $0.tower.identity != current }),
      neighbour.signal > servingSignal + profile.hysteresis
    else {
      pending = nil
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
    handOff(
      to: neighbour.tower, at: min(time, fix.time), fix: fix, cause: .strongerNeighbour(margin: neighbour.signal - servingSignal),
      into: &changes)
  }

  private mutating func handOff(to tower: CellTower, at time: Double, fix: LocationFix, cause: ServingCellChange.Cause, into changes: inout [ServingCellChange]) {
    let from = serving
    if let from { previous = (from, time) }
    serving = tower.identity
    servingTower = tower
    handoffCount += 1
    changes.append(ServingCellChange(time: time, coordinate: fix.coordinate, from: from, to: tower.identity, toTower: tower, cause: cause))
  }

  /// Fills `candidates` with the cells reaching `point`, strongest first (ties: smaller identity).
  private mutating func findCandidates(at point: Coordinate) {
    candidates.removeAll(keepingCapacity: true)
    let model = profile.pathLoss
    switch layout {
    case .towers(let map):
      reached.removeAll(keepingCapacity: true)
      map.towers(reaching: point, into: &reached)
      let p = Ellipsoid.wgs84.cartesian(point)
      for k in reached {
        let tower = map.towers[Int(k)]
        let d = map.distance(from: Int(k), toCartesian: p)
        candidates.append(ServingCandidate(tower: tower, distance: d, signal: model.signal(distance: d, range: tower.range)))
      }
    case .hexagonal(let spacing):
      if hexagonal == nil { hexagonal = HexagonalCellLayout(anchor: point, spacing: spacing) }
      reachedTowers.removeAll(keepingCapacity: true)
      hexagonal?.towers(reaching: point, into: &reachedTowers)
      for tower in reachedTowers {
        let d = Ellipsoid.wgs84.chordDistance(tower.coordinate, point)
        candidates.append(ServingCandidate(tower: tower, distance: d, signal: model.signal(distance: d, range: tower.range)))
      }
    }
    candidates.sort { ($0.signal, $1.tower.identity) > ($1.signal, $0.tower.identity) }
  }
}
