import ArgumentParser
import Foundation
import Geodesy

/// `geowake geodesic`: the inverse geodesic problem, line by line, like GeographicLib's `GeodSolve -i`.
struct GeodesicCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "geodesic",
    abstract: "Solve inverse geodesic problems on WGS84 (same input and output as GeodSolve -i).",
    discussion: """
      Reads lines "lat1 lon1 lat2 lon2" (decimal degrees, separated by spaces, tabs or commas) \
      from standard input and prints "azi1 azi2 s12": the azimuths at both ends in degrees \
      (precision+5 decimals) and the distance in metres (precision decimals). Blank lines and \
      lines starting with # are echoed as they are. A bad line prints "ERROR: reason" in its place \
      (so output stays aligned with input), the reason with its line and column on standard \
      error, and the exit status becomes 65.
      """ + HelpExamples.section(["echo \"40.64 -73.78 51.47 -0.45\" | geowake geodesic",
        "echo \"-33.94 151.18 35.55 139.78\" | geowake geodesic --precision 6"])
  )

  @Option(name: [.customShort("p"), .long], parsing: .unconditional, help: "Digits after the decimal point for s12 (0…10); azimuths get 5 more.")
  var precision: Int = 3

  func checkOptions() throws {
    guard (0...10).contains(precision) else { throw ValidationError("--precision must be in 0...10, got \(precision)") }
  }

  func run() throws {
    try checkOptions()
    // readLine would take a directory's read error for the end of input.
    var status = stat()
    if fstat(STDIN_FILENO, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
      Diagnostics.error("<stdin>: error: is a directory, expected lines of LAT1 LON1 LAT2 LON2")
      throw SysExit.noInput
    }
    var sawError = false
    var lineNumber = 0
    var output = ""
    while let line = readLine(strippingNewline: true) {
      lineNumber += 1
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") {
        output += line + "\n"
        continue
      }
      switch solve(line, lineNumber: lineNumber) {
      case .success(let text): output += text + "\n"
      case .failure(let message):
        sawError = true
        output += "ERROR: \(message.reason)\n"
        Diagnostics.error("<stdin>:\(lineNumber):\(message.column): error: \(message.reason)")
      }
      if output.utf8.count > 1 << 16 {
        FileHandle.standardOutput.write(Data(output.utf8))
        output = ""
      }
    }
    FileHandle.standardOutput.write(Data(output.utf8))
    if sawError { throw SysExit.dataError }
  }

  struct LineError: Error {
    var column: Int
    var reason: String
  }

  func solve(_ line: String, lineNumber: Int) -> Result<String, LineError> {
    var fields: [(text: Substring, column: Int)] = []
    var start: String.Index?
    var column = 0
    var startColumn = 0
    for index in line.indices {
      column += line[index].utf8.count
      let separator = line[index] == " " || line[index] == "\t" || line[index] == ","
      if separator {
        if let s = start { fields.append((line[s..<index], startColumn)) }
        start = nil
      } else if start == nil {
        start = index
        startColumn = column
      }
    }
    if let s = start { fields.append((line[s...], startColumn)) }
    guard fields.count == 4 else {
      return .failure(LineError(column: 1, reason: "\(fields.count) values: expected 4 (lat1 lon1 lat2 lon2)"))
    }
    let names = ["lat1", "lon1", "lat2", "lon2"]
    var values: [Double] = []
    for (k, field) in fields.enumerated() {
      guard let v = Double(field.text) else {
        return .failure(LineError(column: field.column, reason: "\(names[k]) \"\(field.text)\" is not a number: expected decimal degrees"))
      }
      values.append(v)
    }
    let start1: Coordinate
    let end1: Coordinate
    do throws(CoordinateError) {
      start1 = try Coordinate(latitude: values[0], longitude: values[1])
    } catch {
      return .failure(LineError(column: fields[error.component == .latitude ? 0 : 1].column, reason: error.description))
    }
    do throws(CoordinateError) {
      end1 = try Coordinate(latitude: values[2], longitude: values[3])
    } catch {
      return .failure(LineError(column: fields[error.component == .latitude ? 2 : 3].column, reason: error.description))
    }
    let r = Geodesic.wgs84.inverse(from: start1, to: end1)
    let azimuthFormat = "%.\(precision + 5)f"
    let distanceFormat = "%.\(precision)f"
    return .success(
      String(format: azimuthFormat, r.initialAzimuth) + " " + String(format: azimuthFormat, r.finalAzimuth) + " "
        + String(format: distanceFormat, r.distance))
  }
}
