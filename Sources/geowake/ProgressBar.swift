import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A progress bar on standard error for reading a large input: shown only when standard error is
/// a terminal, the output is not (results printed to the terminal show their own progress, and a
/// bar would share their lines) and the file is at least ``minimumBytes`` (or when
/// `GEOWAKE_PROGRESS=always`; never with `GEOWAKE_PROGRESS=never`). Redrawn only when the whole
/// percentage changes, and erased before the output is written and at the end, so that it never
/// mixes with the output or the diagnostics.
struct ProgressBar {
  /// Inputs smaller than this read fast enough not to need a bar.
  static let minimumBytes = 8 << 20
  let label: String
  let total: Int
  let isEnabled: Bool
  private var drawnPercent = -1

  /// - Parameters:
  ///   - output: where the results go (`-`: standard output).
  ///   - passes: how many times the file is read (a seed spread reads it once per seed).
  init(path: String, label: String, output: String, passes: Int = 1) {
    self.label = label
    var info = stat()
    total = path != "-" && stat(path, &info) == 0 ? Int(info.st_size) * max(1, passes) : 0
    switch ProcessInfo.processInfo.environment["GEOWAKE_PROGRESS"] {
    case "always": isEnabled = total > 0
    case "never": isEnabled = false
    default:
      isEnabled = total >= Self.minimumBytes && isatty(STDERR_FILENO) != 0 && !(output == "-" && isatty(STDOUT_FILENO) != 0)
    }
  }

  /// Shows `bytes` read out of the total.
  mutating func update(bytes: Int) {
    guard isEnabled else { return }
    let percent = min(100, bytes * 100 / max(total, 1))
    guard percent != drawnPercent else { return }
    drawnPercent = percent
    let width = 30
    let filled = percent * width / 100
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    let line = "\r\(label) [\(bar)] \(percent)% of \(Self.megabytes(total))"
    FileHandle.standardError.write(Data(line.utf8))
  }

  /// Erases the bar.
  func finish() {
    guard isEnabled, drawnPercent >= 0 else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }

  /// Erases the bar so that a diagnostic can be written; the next update draws it again.
  mutating func clear() {
    finish()
    drawnPercent = -1
  }

  /// `bytes` in megabytes (10⁶ bytes), to a tenth.
  static func megabytes(_ bytes: Int) -> String {
    let tenths = (bytes + 50_000) / 100_000
    return "\(tenths / 10).\(tenths % 10) MB"
  }
}
