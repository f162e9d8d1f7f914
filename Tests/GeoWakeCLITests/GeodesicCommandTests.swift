import Testing
import _GeoWakeTestSupport

@Suite("geowake geodesic")
struct GeodesicCommandTests {
  /// The output is GeodSolve's, byte for byte (expected lines printed by GeographicLib 2.1.2
  /// `GeodSolve -i` on the same input).
  @Test func matchesGeodSolveOutput() throws {
    let input = """
      40.6 -73.8 49.01666667 2.55
      0 0 0.5 179.5
      -41.32 174.81 40.96 -5.50
      90 0 -90 0
      1 2 1 2
      10 20 10.00001 20

      """
    let expected = """
      53.47021824 111.59366951 5853226.256
      25.67187287 154.32708547 19936288.579
      161.06766999 18.82519512 19959679.267
      180.00000000 180.00000000 20003931.459
      180.00000000 180.00000000 0.000
      0.00000000 0.00000000 1.106

      """
    let result = try CommandRunner.run(["geodesic"], stdin: input)
    #expect(result.status == 0)
    #expect(result.stdout == expected)
  }

  @Test func precisionOption() throws {
    let result = try CommandRunner.run(["geodesic", "-p", "9"], stdin: "40.6 -73.8 49.01666667 2.55\n")
    #expect(result.stdout == "53.47021823943234 111.59366951402322 5853226.255613290\n")
  }

  @Test func badLinesKeepTheOutputAlignedAndExit65() throws {
    let result = try CommandRunner.run(["geodesic"], stdin: "0 0 1 1\n95 0 0 0\n0 0 x 0\n1 2 3\n")
    #expect(result.status == 65)
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 5)
    #expect(lines[1] == "ERROR: latitude 95.0 is out of range: expected a finite value in -90...90")
    #expect(lines[2] == "ERROR: lat2 \"x\" is not a number: expected decimal degrees")
    #expect(lines[3] == "ERROR: 3 values: expected 4 (lat1 lon1 lat2 lon2)")
    #expect(result.stderr.contains("<stdin>:2:1: error: latitude 95.0 is out of range"))
    #expect(result.stderr.contains("<stdin>:3:5: error: lat2 \"x\" is not a number"))
  }
}
