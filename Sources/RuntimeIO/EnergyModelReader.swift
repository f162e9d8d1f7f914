public import BackgroundRuntime
public import TrackIO

/// Reads an ``EnergyModel`` from JSON: an object whose keys override the standard model's
/// numbers — `regionMonitoringPower`, `significantChangesPower`, `wakePower` (milliwatts),
/// `wakeSeconds` (seconds), `batteryWattHours` (watt-hours); each a finite number ≥ 0 (the battery
/// > 0). Unknown keys are errors, so that a misspelt one is not silently ignored.
public enum EnergyModelReader {
  public static func read(path: String) throws(TrackIOError) -> EnergyModel {
    var parser = try JSONParser(path: path)
    let root = try parser.parseDocument()
    guard case .object(let members) = root.value else {
      throw parser.error("found \(root.kind): expected an object such as {\"wakePower\": 400}", at: root.offset)
    }
    var model = EnergyModel.standard
    for (key, node) in members {
      guard case .number(let value) = node.value, value.isFinite, value >= 0 else {
        throw parser.error("\(key) is \(node.kind): expected a number ≥ 0", at: node.offset)
      }
      switch key {
      case "regionMonitoringPower": model.locationPower[.regionMonitoring] = value
      case "significantChangesPower": model.locationPower[.significantChanges] = value
      case "wakePower": model.wakePower = value
      case "wakeSeconds": model.wakeSeconds = value
      case "batteryWattHours":
        guard value > 0 else { throw parser.error("batteryWattHours is 0: expected watt-hours > 0", at: node.offset) }
        model.batteryWattHours = value
      default:
        throw parser.error(
          "unknown key \"\(key)\": expected regionMonitoringPower, significantChangesPower, wakePower, wakeSeconds or batteryWattHours",
          at: node.offset)
      }
    }
    return model
  }
}
