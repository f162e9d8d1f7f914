/// The name a caller gives a region: non-empty printable text of at most 256 bytes of UTF-8.
///
/// Identifiers are unique within a ``RegionIndex``: inserting a region with an identifier that is
/// already present replaces the old region (CoreLocation and Android geofencing do the same).
public struct RegionIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The longest identifier accepted, in bytes of UTF-8.
  public static let maximumUTF8Length = 256

  /// The identifier text.
  public let rawValue: String

  /// Creates an identifier.
  /// - Throws: ``RegionError`` when `rawValue` is empty, longer than ``maximumUTF8Length`` bytes,
  ///   or contains a control character.
  public init(_ rawValue: String) throws(RegionError) {
    let utf8 = rawValue.utf8
    guard !utf8.isEmpty else { throw RegionError(identifier: rawValue, reason: .emptyIdentifier) }
    guard utf8.count <= Self.maximumUTF8Length else {
      throw RegionError(identifier: String(rawValue.prefix(32)) + "…", reason: .identifierTooLong(length: utf8.count))
    }
    // Native strings are contiguous UTF-8: one pass over the bytes, no iterator.
    let control = utf8.withContiguousStorageIfAvailable { $0.firstIndex { $0 < 0x20 || $0 == 0x7F } }
      ?? utf8.enumerated().first { $0.element < 0x20 || $0.element == 0x7F }.map(\.offset)
    if let offset = control {
      throw RegionError(identifier: rawValue, reason: .identifierHasControlCharacter(offset: offset))
    }
    self.rawValue = rawValue
  }

  public var description: String { rawValue }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension RegionIdentifier: Codable {
  /// Encoded as its text.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  /// Decoded from its text, checked as ``init(_:)`` checks it.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    do { try self.init(text) } catch {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
    }
  }
}
