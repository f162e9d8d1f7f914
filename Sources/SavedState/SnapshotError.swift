/// Why a snapshot of a model's state (a region monitor, a serving-cell tracker, a device's
/// timeline) could not be restored.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Reason: Sendable, Hashable {
    /// The regions given are not the ones the snapshot was taken over (fingerprints differ).
    case regionsDiffer(snapshot: UInt64, given: UInt64)
    /// The snapshot names a region the set does not hold.
    case unknownRegion(String)
    /// The snapshot was taken under another profile.
    case profileDiffers(snapshot: String, given: String)
    /// The snapshot was taken with other settings than the ones given (a cell layout, a cell
    /// selection profile, an app or none): named here.
    case settingsDiffer(String)
    /// A field of the snapshot is out of range.
    case invalidField(String, String)
  }

  public let reason: Reason

  public init(_ reason: Reason) { self.reason = reason }

  public var description: String {
    switch reason {
    case .regionsDiffer(let snapshot, let given):
      "the snapshot was taken over other regions (fingerprint \(snapshot), given \(given))"
    case .unknownRegion(let id): "the snapshot names region \(id), which the regions given do not hold"
    case .profileDiffers(let snapshot, let given): "the snapshot was taken under the \(snapshot) profile, not \(given)"
    case .settingsDiffer(let what): "the snapshot was taken with another \(what)"
    case .invalidField(let field, let problem): "snapshot field \(field): \(problem)"
    }
  }
}
