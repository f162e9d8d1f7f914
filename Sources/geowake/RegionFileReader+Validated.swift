import GEOSValidation
import Geofencing
import TrackIO

extension RegionFileReader {
  /// Reads a region file with every polygon checked for full validity by GEOS, so that an
  /// invalid one is reported at its place in the file rather than monitored by the even-odd rule.
  static func readValidated(path: String) throws(TrackIOError) -> RegionFile {
    try read(path: path) { (polygon) throws(RegionError) in try polygon.validateWithGEOS() }
  }
}
