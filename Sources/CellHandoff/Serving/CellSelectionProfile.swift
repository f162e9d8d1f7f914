import RealModule

/// The radio rules a ``ServingCellTracker`` follows: the signal model and the handoff rule, every
/// number named.
public struct CellSelectionProfile: Hashable, Sendable {
  /// dB a neighbour must beat the serving cell by (the A3 offset plus hysteresis).
  public var hysteresis: Double
  /// Seconds the neighbour must stay that much stronger before the handoff (time-to-trigger).
  public var timeToTrigger: Double
  /// Seconds after a handoff during which a handoff straight back to the previous cell is a
  /// ping-pong: it is not made, and counted.
  public var pingPongWindow: Double
  /// How received signal falls with distance.
  public var pathLoss: PathLossModel

  public init(hysteresis: Double, timeToTrigger: Double, pingPongWindow: Double, pathLoss: PathLossModel) {
    self.hysteresis = hysteresis
    self.timeToTrigger = timeToTrigger
    self.pingPongWindow = pingPongWindow
    self.pathLoss = pathLoss
  }

  /// LTE-like: hysteresis 3 dB and time-to-trigger 320 ms, typical values of the A3 event (3GPP
  /// TS 36.331 allows 0–15 dB in 0.5 dB steps and 0–5,120 ms); a ping-pong window of 5 s
  /// (mobility-robustness studies count a return to the source cell within a few seconds as
  /// ping-pong; assumption); ``PathLossModel/urbanMacro``.
  public static let lte = CellSelectionProfile(hysteresis: 3, timeToTrigger: 0.32, pingPongWindow: 5, pathLoss: .urbanMacro)
}

/// Received signal from distance: a log-distance path-loss model anchored at each cell's edge.
///
/// signal(d) = edgeSignal − 10·n·log₁₀(d / range) dBm, for d ≥ ``minimumDistance``: a cell is
/// received at ``edgeSignal`` at its ``CellTower/range`` (where OpenCellID stops seeing it) and
/// stronger closer in, falling by 10·n dB per decade of distance. Cells with a larger range are
/// therefore stronger at a given distance, as macro cells are compared with small cells. Beyond
/// its range a cell does not serve.
public struct PathLossModel: Hashable, Sendable {
  /// The path-loss exponent n.
  public var exponent: Double
  /// dBm received at a cell's range.
  public var edgeSignal: Double
  /// Metres under which distance no longer raises the signal (the antenna is above the street).
  public var minimumDistance: Double

  public init(exponent: Double, edgeSignal: Double, minimumDistance: Double) {
    self.exponent = exponent
    self.edgeSignal = edgeSignal
    self.minimumDistance = minimumDistance
  }

  /// Urban macro cells: exponent 3.5 (the 3–4 range of COST-231 Hata for a 30 m base station),
  /// −110 dBm at the edge (a usable LTE RSRP floor), 10 m minimum distance. Assumptions.
  public static let urbanMacro = PathLossModel(exponent: 3.5, edgeSignal: -110, minimumDistance: 10)

  /// dBm received `distance` metres from a cell of `range` metres.
  @inlinable
  public func signal(distance: Double, range: Double) -> Double {
    edgeSignal - 10 * exponent * log10(max(distance, minimumDistance) / range)
  }
}

@usableFromInline
func log10(_ x: Double) -> Double {
  // log10 via the natural logarithm: RealModule's Double.log10 is not @inlinable across modules.
  Double.log(x) / 2.302_585_092_994_046
}
