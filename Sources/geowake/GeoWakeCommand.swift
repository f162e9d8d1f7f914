import ArgumentParser

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
  )

  /// Parses the arguments and runs the command, with interrupts leaving no partial output.
  static func main() async {
    Interrupts.removeUnfinishedOutputsOnExit()
    await main(nil)
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
