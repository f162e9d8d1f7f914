import Foundation

/// "1 region", "3 regions".
func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// The width tables are written for.
enum TerminalWidth {
  /// The narrowest width tables are fitted to.
  static let narrowest = 72

  /// `GEOWAKE_COLUMNS` when set (0: no limit); else, with `output` standard output on a
  /// terminal, the terminal's columns (`COLUMNS`, or 80, when it does not say); else, or with
  /// `wide`, nil: rows as long as they are, for files, pipes and scripts. Never under
  /// ``narrowest``: a row's columns before its reason take about that.
  static func columns(output: String, wide: Bool) -> Int? {
    guard !wide else { return nil }
    let narrowest = Self.narrowest
    if let text = ProcessInfo.processInfo.environment["GEOWAKE_COLUMNS"], let n = Int(text) { return n > 0 ? max(narrowest, n) : nil }
    guard output == "-", isatty(STDOUT_FILENO) == 1 else { return nil }
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return max(narrowest, Int(size.ws_col)) }
    if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 { return max(narrowest, n) }
    return 80
  }
}
