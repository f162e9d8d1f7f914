import ArgumentParser
import Foundation

@main
struct GeoWakeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "geowake",
    abstract: "Decides when a backgrounded mobile app gets woken, and does the geometry behind it.",
    discussion: """
      Exit status follows sysexits(3): 0 success, 64 bad usage, 65 bad input data, 66 input \
      missing, 73 output cannot be created, 74 I/O error.
      """,
    version: GeoWakeVersion.text,
    subcommands: [AnalyzeCommand.self, InfoCommand.self, RegionsCommand.self, CellsCommand.self, CompareCommand.self, FetchCommand.self, PushCommand.self, FidelityCommand.self, CrossingsCommand.self, GeodesicCommand.self, GenerateCommand.self]
      + serveCommand
  )

  /// Parses the arguments and runs the command, with interrupts leaving no partial output.
  static func main() async {
    Interrupts.removeUnfinishedOutputsOnExit()
    var command: any ParsableCommand
    do { command = try await asyncParseAsRoot(nil) } catch { exit(withError: error) }
    do {
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch let error as ValidationError {
      // A usage error found while running, shown as the parser shows its own: with the usage of
      // the command that ran.
      let usage = usageString(for: type(of: command))
      let path = usage.split(separator: " ").prefix { !$0.hasPrefix("[") && !$0.hasPrefix("<") }.joined(separator: " ")
      FileHandle.standardError.write(Data("Error: \(error.message)\nUsage: \(usage)\n  See '\(path) --help' for more information.\n".utf8))
      exit(withError: SysExit.usage)
    } catch {
      exit(withError: error)
    }
  }
}

/// sysexits(3) codes.
enum SysExit {
  static let usage = ExitCode(64)
  static let dataError = ExitCode(65)
  static let noInput = ExitCode(66)
  static let cannotCreate = ExitCode(73)
  static let ioError = ExitCode(74)
}

/// `geowake serve`, when the tool is built with the live engine (the Server trait, the default).
#if Server
let serveCommand: [any ParsableCommand.Type] = [ServeCommand.self]
#else
let serveCommand: [any ParsableCommand.Type] = []
#endif
