import ArgumentParser
import Foundation
import TrackIO

/// Which format a command writes: the one `--format` names; else the one the output file's
/// extension names, if the command writes it (`-o report.html` writes HTML); else the command's
/// default. When `--format` and the extension disagree, `--format` wins, with a warning; an
/// extension naming a format the command does not write, without `--format`, is refused.
enum OutputFormat {
  /// The format each file extension names.
  static let byExtension: [String: String] = [
    "html": "html", "htm": "html", "jsonl": "jsonl", "ndjson": "jsonl", "json": "json", "geojson": "geojson",
    "csv": "csv", "gpx": "gpx", "txt": "table",
  ]

  /// The format the extension of `output` names (nil for standard output or an unknown extension).
  static func named(byExtensionOf output: String) -> String? {
    guard output != "-", let name = output.split(separator: "/").last, let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    return byExtension[name[name.index(after: dot)...].lowercased()]
  }

  /// The format to write: `given`, else the extension's if in `supported`, else `fallback`.
  static func resolve(_ given: String?, output: String, supported: [String], fallback: String) -> String {
    if let given { return given }
    if let named = named(byExtensionOf: output), supported.contains(named) { return named }
    return fallback
  }

  /// Checks `-o` against what the command writes, before anything is read: without `--format`,
  /// an extension naming a format the command cannot write is refused (a `.csv` file holding a
  /// table, or a `.json` file holding JSON Lines, would be read wrongly by whatever opens it);
  /// with `--format`, an extension naming another format is a warning.
  static func check(_ given: String?, output: String, supported: [String]) throws {
    guard let named = named(byExtensionOf: output), named != given else { return }
    if let given {
      Diagnostics.error("warning: \(output) is named like \(named), but --format is \(given): the file will hold \(given)")
    } else if !supported.contains(named) {
      let list = supported.count == 1 ? supported[0] : supported.dropLast().joined(separator: ", ") + " or " + supported.last!
      throw ValidationError(
        "-o \(output) names \(named), which this command does not write: it writes \(list); "
          + "name the file for one of them, or give --format to write one there anyway")
    }
  }

  /// Refuses, before anything is written, to print about `bytes` to a terminal when that is
  /// more than a screenful could ever show (1 MB).
  static func refuseLargeTerminalOutput(_ output: String, bytes: Double) throws {
    guard output == "-", isatty(STDOUT_FILENO) == 1, bytes > 1_000_000 else { return }
    throw ValidationError("this would print about \(Int((bytes / 1_000_000).rounded())) MB to the terminal: give -o FILE, or pipe the output")
  }
}

/// `-o FILE` and `--force`, for the commands that write results.
struct OutputOptions: ParsableArguments {
  @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
  var output: String = "-"

  @Flag(help: "Replace the output file if it exists.")
  var force = false

  /// The output opened.
  func sink() throws -> ByteSink {
    do { return try ByteSink(path: output, overwrite: force) } catch { throw Diagnostics.fail(error) }
  }
}
