public import GeoWake
import TrackIO

/// A ``SeedSpread`` as lines of text for a timeline's summary: per region, the entries and exits
/// reported per seed (median and range), the crossings never reported, and the time from a
/// crossing to the app (10th, 50th and 90th percentiles).
public struct SeedSpreadReport {
  public let spread: SeedSpread
  /// The profile the seeds ran with, for the heading.
  public let profile: String

  public init(_ spread: SeedSpread, profile: String) {
    self.spread = spread
    self.profile = profile
  }

  static func counts(_ values: [Int]) -> String {
    let sorted = values.sorted()
    guard let low = sorted.first, let high = sorted.last else { return "–" }
    let median = sorted[(sorted.count - 1) / 2]
    return low == high ? "\(median)" : "\(median) (\(low)–\(high))"
  }

  static func delays(_ values: [Double]) -> String {
    guard let p10 = SeedSpread.quantile(values, 0.1), let p50 = SeedSpread.quantile(values, 0.5),
      let p90 = SeedSpread.quantile(values, 0.9)
    else { return "–" }
    return "\(NumberText.duration(p10)) / \(NumberText.duration(p50)) / \(NumberText.duration(p90))"
  }

  public var text: String {
    guard let first = spread.seeds.first, let last = spread.seeds.last else { return "" }
    var text = "\nspread over \(spread.seeds.count) seeds (\(first) to \(last), profile \(profile)): per seed, median (range)\n"
    guard !spread.regions.isEmpty else { return text + "no entries or exits under any seed\n" }
    let width = max(18, (spread.regions.map { $0.region.rawValue.count }.max() ?? 0) + 2)
    func row(_ cells: [(String, Int)]) -> String {
      cells.map { $0.0.padding($0.1) }.joined().trailingSpacesRemoved + "\n"
    }
    let enterWidth = max(27, spread.regions.map { Self.delays($0.enterDelays).count }.max() ?? 0) + 2
    text += row([
      ("region", width), ("enters", 12), ("exits", 12), ("never reported", 16),
      ("enter delay p10 / p50 / p90", enterWidth), ("exit delay p10 / p50 / p90", 0),
    ])
    for r in spread.regions {
      text += row([
        (r.region.rawValue, width), (Self.counts(r.enters), 12), (Self.counts(r.exits), 12),
        ("\(r.missed) of \(r.confirmed)", 16), (Self.delays(r.enterDelays), enterWidth), (Self.delays(r.exitDelays), 0),
      ])
    }
    return text
  }
}
