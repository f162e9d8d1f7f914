public import Foundation

/// Runs the built `geowake` executable, as a user would, and captures what it prints.
public enum CommandRunner {
  public struct Result: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
  }

  /// The `geowake` binary next to the test bundle (SwiftPM builds both into one folder).
  public static var executable: URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for folder in [beside, beside.deletingLastPathComponent()] {
      let candidate = folder.appendingPathComponent("geowake")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return FixtureFiles.packageRoot.appendingPathComponent(".build/debug/geowake")
  }

  /// Runs `geowake arguments…` with `stdin` as standard input, from the package root, with
  /// `environment` added to the test's environment.
  public static func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.currentDirectoryURL = FixtureFiles.packageRoot
    let input = Pipe()
    let output = Pipe()
    // Standard error goes to a file, so that neither stream can block the process on a full pipe
    // while the other is read.
    let errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("geowake-stderr-\(UUID().uuidString)")
    // Not FileManager.createFile: on Linux it writes atomically and leaves a TemporaryDirectory.*
    // folder behind.
    try Data().write(to: errorURL)
    defer { try? FileManager.default.removeItem(at: errorURL) }
    let errorHandle = try FileHandle(forWritingTo: errorURL)
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errorHandle
    try process.run()
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try errorHandle.close()
    let errData = (try? Data(contentsOf: errorURL)) ?? Data()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }
}
