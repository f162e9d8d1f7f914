/// A documented, configurable estimate of the energy a location strategy costs a phone: the
/// location service's average power while monitoring, plus the app's runs when it is woken.
///
/// Every number is an assumption for comparing strategies against each other on one track, not
/// a measurement of any phone; change them (``init(locationPower:wakePower:wakeSeconds:batteryWattHours:)``
/// or `geowake compare --energy-model FILE.json`) to match a device. The defaults:
/// - A GPS receiver draws on the order of 150 mW while on (Carroll & Heiser, *An Analysis of Power
///   Consumption in a Smartphone*, USENIX ATC 2010, measured ~140–170 mW on their phone). Region
///   monitoring locates the device from Wi-Fi and cells and turns GPS on near boundaries: taken
///   as an average of 5 mW.
/// - The significant-change service listens to the cell handoffs the modem makes anyway: taken as
///   0.5 mW.
/// - A woken app keeps the CPU and radio busy: 400 mW for the ~10 s of a location wake (LMPG).
/// - A phone battery of 12 Wh (about 3,100 mAh at 3.85 V).
public struct EnergyModel: Hashable, Sendable {
  /// Average milliwatts of each location service while it runs.
  public var locationPower: [LocationService: Double]
  /// Milliwatts the app draws while running in the background after a wake.
  public var wakePower: Double
  /// Seconds an app runs per wake (the location-wake budget).
  public var wakeSeconds: Double
  /// Battery capacity, watt-hours, for expressing energy as a share of a charge.
  public var batteryWattHours: Double

  /// The location services compared.
  public enum LocationService: String, CaseIterable, Hashable, Sendable {
    case regionMonitoring
    case significantChanges
  }

  public init(locationPower: [LocationService: Double], wakePower: Double, wakeSeconds: Double, batteryWattHours: Double) {
    self.locationPower = locationPower
    self.wakePower = wakePower
    self.wakeSeconds = wakeSeconds
    self.batteryWattHours = batteryWattHours
  }

  /// The defaults above.
  public static let standard = EnergyModel(
    locationPower: [.regionMonitoring: 5, .significantChanges: 0.5], wakePower: 400, wakeSeconds: 10, batteryWattHours: 12)

  /// Joules for running `service` for `seconds` with `wakes` wakes of the app.
  public func joules(_ service: LocationService, seconds: Double, wakes: Int) -> Double {
    (locationPower[service] ?? 0) / 1_000 * seconds + Double(wakes) * wakePower / 1_000 * wakeSeconds
  }

  /// `joules` as a percentage of the battery.
  public func batteryPercent(joules: Double) -> Double {
    joules / (batteryWattHours * 3_600) * 100
  }
}
