/// The radio technology of a cell, as OpenCellID names it.
public enum Radio: String, CaseIterable, Hashable, Sendable, Comparable, Codable {
  case gsm = "GSM"
  case umts = "UMTS"
  case cdma = "CDMA"
  case lte = "LTE"
  case nr = "NR"

  public static func < (a: Radio, b: Radio) -> Bool { a.order < b.order }

  private var order: Int {
    switch self {
    case .gsm: return 0
    case .umts: return 1
    case .cdma: return 2
    case .lte: return 3
    case .nr: return 4
    }
  }
}

/// What identifies a cell in OpenCellID: radio, MCC, network, area, cell.
///
/// For GSM, UMTS, LTE and NR: mobile country code, mobile network code, location/tracking area
/// code, cell identity (NR cell identities reach 2^36). For CDMA: SID, NID and BID in place of
/// the last three, as OpenCellID stores them.
public struct CellIdentity: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
  public var radio: Radio
  /// Mobile country code (0…999).
  public var mcc: Int
  /// Mobile network code (0…999), or CDMA SID.
  public var net: Int
  /// Location or tracking area code, or CDMA NID.
  public var area: Int
  /// Cell identity, or CDMA BID.
  public var cell: Int

  public init(radio: Radio, mcc: Int, net: Int, area: Int, cell: Int) {
    self.radio = radio
    self.mcc = mcc
    self.net = net
    self.area = area
    self.cell = cell
  }

  /// `LTE 272-1-12345-67890`: radio, then MCC, net, area and cell joined by dashes.
  public var description: String { "\(radio.rawValue) \(mcc)-\(net)-\(area)-\(cell)" }

  public static func < (a: CellIdentity, b: CellIdentity) -> Bool {
    (a.radio, a.mcc, a.net, a.area, a.cell) < (b.radio, b.mcc, b.net, b.area, b.cell)
  }
}
