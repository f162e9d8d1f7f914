public import Geofencing
import Geodesy

/// Reads circular regions from CSV: a header with `id`, `lat`/`latitude`, `lon`/`longitude` and
/// `radius` (metres), any order, other columns ignored. Identifiers must be unique: a repeated id
/// is an error naming both lines.
public enum RegionCSVReader {
  /// Reads every region of the file.
  /// - Throws: ``TrackIOError`` with the line and column of the first bad value.
  public static func read(path: String) throws(TrackIOError) -> [Region] {
    var lines = try ByteLineReader(path: path)
    let shownPath = lines.path
    var fields = CSVFields()
    var columns: (id: Int, lat: Int, lon: Int, radius: Int, width: Int)?
    var regions: [Region] = []
    var seen: [RegionIdentifier: Int] = [:]
    while true {
      let number = lines.lineNumber + 1
      let more: Bool? = try lines.nextLine { line throws(TrackIOError) -> Bool in
        if line.isEmpty || line.first == UInt8(ascii: "#") { return true }
        fields.split(line)
        if let open = fields.unterminatedQuote {
          throw TrackIOError(path: shownPath, line: number, column: open + 1, message: "quoted field is not closed")
        }
        guard let c = columns else {
          let header = CSVHeader(fields, line: line)
          guard let id = header.column(["id", "identifier", "name"]), let lat = header.column(["lat", "latitude"]),
            let lon = header.column(["lon", "lng", "long", "longitude"]), let radius = header.column(["radius", "radius_m"])
          else {
            throw TrackIOError(
              path: shownPath, line: number, column: 1,
              message: "header \"\(header.names.joined(separator: ","))\" lacks a column: expected id,lat,lon,radius")
          }
          columns = (id, lat, lon, radius, header.names.count)
          return true
        }
        guard fields.count == c.width else {
          throw TrackIOError(path: shownPath, line: number, column: 1, message: "\(fields.count) fields: expected \(c.width), as in the header")
        }
        func fail(_ k: Int, _ message: String) -> TrackIOError {
          TrackIOError(path: shownPath, line: number, column: fields.column(k), message: message)
        }
        guard let latitude = ByteNumbers.double(fields.field(c.lat, in: line)) else {
          throw fail(c.lat, "latitude \"\(fields.text(c.lat, in: line))\" is not a number: expected degrees in -90...90")
        }
        guard let longitude = ByteNumbers.double(fields.field(c.lon, in: line)) else {
          throw fail(c.lon, "longitude \"\(fields.text(c.lon, in: line))\" is not a number: expected degrees")
        }
        guard let radius = ByteNumbers.double(fields.field(c.radius, in: line)) else {
          throw fail(c.radius, "radius \"\(fields.text(c.radius, in: line))\" is not a number: expected metres")
        }
        let center: Coordinate
        do throws(CoordinateError) { center = try Coordinate.reading(latitude: latitude, longitude: longitude) } catch {
          throw fail(error.component == .latitude ? c.lat : c.lon, error.description)
        }
        let region: CircularRegion
        do throws(RegionError) {
          region = try CircularRegion(identifier: try RegionIdentifier(fields.text(c.id, in: line)), center: center, radius: radius)
        } catch {
          let column: Int
          switch error.reason {
          case .radiusNotFinite, .radiusNotPositive, .radiusTooLarge: column = c.radius
          default: column = c.id
          }
          throw fail(column, error.description)
        }
        if let first = seen.updateValue(number, forKey: region.identifier) {
          throw fail(c.id, "duplicate region identifier \"\(region.identifier.rawValue)\" (first on line \(first)): expected unique identifiers")
        }
        regions.append(.circle(region))
        return true
      }
      guard more != nil else { break }
    }
    guard columns != nil else {
      throw TrackIOError(path: shownPath, line: 1, column: 1, message: "empty file: expected a header id,lat,lon,radius")
    }
    return regions
  }
}
