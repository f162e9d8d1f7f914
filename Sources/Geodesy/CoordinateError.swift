/// A coordinate value that cannot describe a point on the Earth.
///
/// The description names the offending value and what was expected, for example
/// `latitude 91.5 is out of range: expected a finite value in -90...90`.
public struct CoordinateError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Which component of a coordinate was rejected.
  public enum Component: String, Hashable, Sendable {
    case latitude
    case longitude
  }

  /// The rejected component.
  public let component: Component
  /// The rejected value, exactly as given (it may be NaN or infinite).
  public let value: Double

  public init(component: Component, value: Double) {
    self.component = component
    self.value = value
  }

  public var description: String {
    switch component {
    case .latitude:
      return "latitude \(value) is out of range: expected a finite value in -90...90"
    case .longitude where value.isFinite:
      return "longitude \(value) is out of range: expected degrees east in -180...180"
    case .longitude:
      return "longitude \(value) is not a finite number: expected degrees east, any finite value"
    }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.component == rhs.component && lhs.value.bitPattern == rhs.value.bitPattern
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(component)
    hasher.combine(value.bitPattern)
  }
}
