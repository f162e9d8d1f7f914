public import CellHandoff
public import Geodesy

/// The cell side of a device's timeline: the serving cell along the track (A3 handoffs) and, when
/// asked, the significant location changes its handoffs give.
public struct CellTimeline {
  /// What to follow the serving cell on, and whether significant changes are wanted.
  public struct Configuration: Sendable {
    public var layout: CellLayout
    public var significantChanges: SignificantChangeProfile?
    /// Where the cells come from, for reports ("synthetic cells every 1500 m").
    public var description: String

    public init(layout: CellLayout, significantChanges: SignificantChangeProfile?, description: String) {
      self.layout = layout
      self.significantChanges = significantChanges
      self.description = description
    }
  }

  public internal(set) var tracker: ServingCellTracker
  public internal(set) var monitor: SignificantChangeMonitor?
  public let description: String
  /// Distinct cells that served the device.
  public internal(set) var cellsSeen = Set<CellIdentity>()
  /// Fixes left out because they were earlier than the one before (the cell model needs time order).
  public internal(set) var outOfOrder = 0
  private var changes: [ServingCellChange] = []
  private var significant: [SignificantChangeEvent] = []
  var lastTime = -Double.infinity

  /// - Throws: ``CellLayoutError`` for a layout that cannot be built.
  public init(_ configuration: Configuration) throws(CellLayoutError) {
    tracker = try ServingCellTracker(layout: configuration.layout)
    monitor = configuration.significantChanges.map { SignificantChangeMonitor(profile: $0) }
    description = configuration.description
  }

  /// Follows one fix and appends the events it causes: serving-cell changes, then significant
  /// changes. `delivered` gets the significant changes the app is woken for (not the one at the
  /// start: the app is running when it starts monitoring).
  public mutating func process(
    _ fix: LocationFix, reportedCell: CellIdentity?, into events: inout [TimelineEvent],
    delivered: inout [SignificantChangeEvent]
  ) {
    guard fix.time.isFinite, fix.time >= lastTime else {
      outOfOrder += 1
      return
    }
    lastTime = fix.time
    changes.removeAll(keepingCapacity: true)
    tracker.process(fix, reportedCell: reportedCell, into: &changes)
    for change in changes {
      if let to = change.to { cellsSeen.insert(to) }
      events.append(.cellChange(change))
    }
    guard monitor != nil else { return }
    significant.removeAll(keepingCapacity: true)
    monitor?.process(fix, changes: changes, servingRange: tracker.servingTower?.range, into: &significant)
    for event in significant {
      events.append(.significantChange(event))
      if event.kind == .significantChange && event.trigger != .start { delivered.append(event) }
    }
  }
}
