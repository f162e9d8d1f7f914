import Geodesy
public import SavedState

/// Why a snapshot could not be restored (defined in `SavedState`, shared with the cell models).
public typealias SnapshotError = SavedState.SnapshotError

/// A fix as a snapshot stores it.
struct FixRecord: Codable, Sendable, Hashable {
  var time: Double
  var latitude: Double
  var longitude: Double
  var accuracy: Double?

  init(_ fix: LocationFix) {
    time = fix.time
    latitude = fix.coordinate.latitude
    longitude = fix.coordinate.longitude
    accuracy = fix.horizontalAccuracy
  }

  func fix(field: String) throws(SnapshotError) -> LocationFix {
    guard time.isFinite else { throw SnapshotError(.invalidField(field, "time is not finite")) }
    guard let coordinate = try? Coordinate(latitude: latitude, longitude: longitude) else {
      throw SnapshotError(.invalidField(field, "(\(latitude), \(longitude)) is not a coordinate"))
    }
    return LocationFix(time: time, coordinate: coordinate, horizontalAccuracy: accuracy)
  }
}

extension CrossingDetector {
  /// A detector's state, to be saved (`Codable`) and restored over the same regions: a detector
  /// restored from it gives exactly the crossings the original would have given. Regions are named
  /// by identifier; the set itself is not in the snapshot (it is shared), only its
  /// ``RegionSet/fingerprint``.
  public struct Snapshot: Codable, Sendable, Hashable {
    var regions: UInt64
    var fixCount: Int
    var previous: FixRecord?
    /// Identifiers of the regions the device is inside, in the set's slot order.
    var inside: [String]
    /// The cell the device is in and the quiet ellipse of the last look.
    var cell: UInt64?
    var lookLatitude: Double
    var lookLongitude: Double
    var quietSquared: Double
    /// Earth-centred coordinates of the last fix, when the detector had them.
    var previousCartesian: [Double]?
  }

  /// The detector's state now (see ``Snapshot``).
  public func snapshot() -> Snapshot {
    let cached = cache.cell != nil && cache.generation == regions.index.generation
    return Snapshot(
      regions: regions.fingerprint, fixCount: fixCount, previous: previous.map(FixRecord.init),
      inside: insideSlots().map { regions.identifier(slot: $0).rawValue },
      cell: cached ? cache.cell?.key : nil, lookLatitude: cache.lookLatitude, lookLongitude: cache.lookLongitude,
      quietSquared: cache.quietSquared,
      previousCartesian: previousCartesianIsValid ? [previousCartesian.x, previousCartesian.y, previousCartesian.z] : nil)
  }

  /// A detector over `regions` in the state of `snapshot`.
  /// - Throws: ``SnapshotError`` when `regions` is not the set the snapshot was taken over, or a
  ///   field is out of range.
  public init(restoring snapshot: Snapshot, regions: RegionSet) throws(SnapshotError) {
    guard snapshot.regions == regions.fingerprint else {
      throw SnapshotError(.regionsDiffer(snapshot: snapshot.regions, given: regions.fingerprint))
    }
    guard snapshot.fixCount >= 0 else { throw SnapshotError(.invalidField("fixCount", "negative")) }
    self.init(regions: regions)
    fixCount = snapshot.fixCount
    previous = try snapshot.previous?.fix(field: "previous")
    for name in snapshot.inside {
      guard let id = try? RegionIdentifier(name), let slot = regions.slot(of: id) else {
        throw SnapshotError(.unknownRegion(name))
      }
      insideBySlot[slot] = true
    }
    if let key = snapshot.cell {
      guard let fix = previous,
        key == GridCell.key(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude, level: regions.index.gridLevel)
      else { throw SnapshotError(.invalidField("cell", "not the cell of the last fix")) }
      let cell = cellCandidates(key)
      cache.enter(cell, generation: regions.index.generation, insideBySlot: insideBySlot)
      cache.lookLatitude = snapshot.lookLatitude
      cache.lookLongitude = snapshot.lookLongitude
      cache.quietSquared = snapshot.quietSquared
    }
    if let p = snapshot.previousCartesian {
      guard p.count == 3, p.allSatisfy(\.isFinite) else {
        throw SnapshotError(.invalidField("previousCartesian", "not three finite numbers"))
      }
      previousCartesian = SIMD3(p[0], p[1], p[2])
      previousCartesianIsValid = true
    }
  }
}
