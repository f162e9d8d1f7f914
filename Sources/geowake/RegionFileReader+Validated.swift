import GEOSValidation
import Geofencing
import TrackIO

extension RegionFileReader {
  /// Reads a region file with every polygon checked for full validity by GEOS, so that an
  /// invalid one is reported at its place in the file rather than monitored by the even-odd rule;
  /// regions that read but cannot be meant (``InputChecks/regionWarning(_:regions:)``) are
  /// warned about on standard error.
  static func readValidated(path: String) throws(TrackIOError) -> RegionFile {
    let file = try read(path: path) { (polygon) throws(RegionError) in try polygon.validateWithGEOS() }
    if let warning = InputChecks.regionWarning(path, regions: file.regions) { Diagnostics.error(warning) }
    return file
  }
}
