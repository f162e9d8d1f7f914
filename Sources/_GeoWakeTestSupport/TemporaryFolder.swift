public import Foundation

/// A fresh folder under the system's temporary directory, removed when the value goes away.
public final class TemporaryFolder {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// Writes `text` to a file named `name` in the folder and returns its path.
  public func file(_ name: String, containing text: String) throws -> String {
    let file = url.appendingPathComponent(name)
    // Not atomically: on Linux, Foundation leaves a TemporaryDirectory.* folder behind for each atomic write.
    try text.write(to: file, atomically: false, encoding: .utf8)
    return file.path
  }

  /// The path of `name` in the folder (not created).
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
