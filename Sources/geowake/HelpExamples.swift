/// The examples that end a command's `--help`: commands that run as written from the
/// repository's folder (a test runs each one), each wrapped to fit 80 columns with shell
/// continuations.
enum HelpExamples {
  /// Width of an example line, its indent included.
  static let width = 78

  /// A blank line, "Examples:" and each command, its words wrapped with ` \` continuations: to
  /// follow a command's discussion.
  static func section(_ commands: [String]) -> String { "\n\n" + alone(commands) }

  /// "Examples:" and each command: a discussion of its own.
  static func alone(_ commands: [String]) -> String {
    var lines = ["Examples:"]
    for command in commands {
      var line = "  "
      for word in command.split(separator: " ") {
        if line.count + word.count + 3 > width, line.count > 2 {
          lines.append(line + " \\")
          line = "      "
        } else if line.count > 2 {
          line += " "
        }
        line += word
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }
}
