public import Foundation

/// Locates files under the package's `Fixtures/` folder, whatever the working directory.
public enum FixtureFiles {
  /// The package root: three levels above this source file (`Sources/_GeoWakeTestSupport/…`).
  public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Absolute URL of `Fixtures/<relativePath>`.
  public static func url(_ relativePath: String) -> URL {
    packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
  }

  /// The text of `Fixtures/<relativePath>`.
  public static func text(_ relativePath: String) throws -> String {
    try String(contentsOf: url(relativePath), encoding: .utf8)
  }

  /// Non-empty, non-comment (`#`) lines of a fixture (LF or CRLF), split on whitespace and commas.
  public static func records(_ relativePath: String) throws -> [[Substring]] {
    try text(relativePath).split(whereSeparator: \.isNewline).compactMap { line in
      line.hasPrefix("#") ? nil : line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
    }.filter { !$0.isEmpty }
  }
}
