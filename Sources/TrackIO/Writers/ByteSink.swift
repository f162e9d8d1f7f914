import Foundation
import JSONBytes

/// A buffered byte writer to a file or standard output, with allocation-free number formatting.
///
/// Never replaces anything unless asked: an existing file is refused without `overwrite`, a file is
/// written through a temporary one that only ``commit()`` puts in place (an error or an interrupt
/// part-way leaves the user's file as it was and no temporary file behind), a symbolic link keeps
/// being a link to the new file, and devices and FIFOs (`/dev/null`, a named pipe) are written
/// straight to.
public final class ByteSink {
  private enum Destination {
    case memory
    case standardOutput
    case file(OutputFile)
  }

  private let destination: Destination
  private var buffer: [UInt8] = []
  /// The path as given, or `<stdout>`.
  public let path: String
  /// Whether ``commit()`` has run: a file sink released before it discards what it wrote.
  private var committed = false

  static let flushThreshold = 1 << 20

  /// Opens `path` for writing; `-` means standard output.
  ///
  /// A regular file (new, or existing and replaced with `overwrite`; through a symbolic link, the
  /// file it leads to) is written to a temporary file beside it that ``commit()`` moves into place;
  /// a sink released without a commit (an error part-way) removes it. A character device or a FIFO
  /// is written straight to, `overwrite` or not.
  /// - Throws: ``TrackIOError`` when the file exists and `overwrite` is false, when `path` is a
  ///   directory or a block device, or when it cannot be created.
  /// Makes the folder `path` for files to be written into (its parent must exist); nothing to do
  /// when it is one already; any other file there is an error (never replaced).
  public static func makeFolder(_ path: String) throws(TrackIOError) {
    try OutputFile.makeFolder(path)
  }

  public init(path: String, overwrite: Bool = false) throws(TrackIOError) {
    if path == "-" {
      destination = .standardOutput
      self.path = "<stdout>"
    } else {
      destination = .file(try OutputFile(path: path, overwrite: overwrite))
      self.path = path
    }
    buffer.reserveCapacity(Self.flushThreshold + 4096)
  }

  private init(memory: ()) {
    destination = .memory
    path = "<memory>"
  }

  /// A sink that keeps everything written to it, for ``takeBytes()``: one device's part of an
  /// output that is put together in order elsewhere.
  public static func inMemory() -> ByteSink { ByteSink(memory: ()) }

  /// The bytes written to an in-memory sink since the last call (empty for other sinks, whose
  /// bytes go out as they are flushed). `keepingCapacity`: the next bytes are written into room
  /// as large as these took (a sink taken from after every line does not grow again each time).
  public func takeBytes(keepingCapacity: Bool = false) -> [UInt8] {
    guard case .memory = destination else { return [] }
    let bytes = buffer
    buffer.removeAll(keepingCapacity: keepingCapacity)
    return bytes
  }

  /// Appends bytes as they are.
  public func write(bytes: some Sequence<UInt8>) throws(TrackIOError) {
    buffer.append(contentsOf: bytes)
    try maybeFlush()
  }

  /// Wraps standard output.
  public static func standardOutput() -> ByteSink {
    // Opening "-" cannot fail.
    (try? ByteSink(path: "-")) ?? { preconditionFailure("standard output") }()
  }

  /// Removes the temporary files of every output not yet committed, in this process. For a
  /// command-line tool's SIGINT and SIGTERM handling (run it, then exit); safe from any thread.
  public static func removeUnfinishedOutputs() {
    OutputFile.removeUnfinishedFiles()
  }

  deinit {
    // A file sink that was not committed ends with an error: its temporary file goes with it
    // (OutputFile's deinit). Standard output gets what was written.
    if case .standardOutput = destination { try? flush() }
  }

  /// Finishes the output: writes everything out and, for a file, puts it in place (replacing the
  /// existing one only when the sink was opened with `overwrite`).
  public func commit() throws(TrackIOError) {
    try flush()
    guard !committed else { return }
    committed = true
    if case .file(let file) = destination { try file.commit() }
  }

  /// Writes buffered bytes out.
  public func flush() throws(TrackIOError) {
    guard !buffer.isEmpty else { return }
    let descriptor: Int32
    switch destination {
    case .memory: return
    case .standardOutput: descriptor = STDOUT_FILENO
    case .file(let file): descriptor = file.descriptor
    }
    let failure = buffer.withUnsafeBytes { bytes -> TrackIOError? in
      do throws(TrackIOError) { try OutputFile.write(bytes, to: descriptor, path: path) } catch { return error }
      return nil
    }
    if let failure { throw failure }
    buffer.removeAll(keepingCapacity: true)
  }

  @inline(__always) private func maybeFlush() throws(TrackIOError) {
    if buffer.count >= Self.flushThreshold { try flush() }
  }

  /// Appends UTF-8 text.
  public func write(_ text: String) throws(TrackIOError) {
    buffer.append(contentsOf: text.utf8)
    try maybeFlush()
  }

  /// Appends `text` padded with spaces to `width` characters, or followed by one space when it is
  /// that wide already (the table columns' rule, as `String.column`), without building a string.
  public func write(_ text: String, column width: Int) throws(TrackIOError) {
    let utf8 = text.utf8
    buffer.append(contentsOf: utf8)
    // ASCII text has as many characters as bytes; only other text needs counting.
    let n = utf8.allSatisfy { $0 < 0x80 } ? utf8.count : text.count
    buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(1, width - n)))
    try maybeFlush()
  }

  /// Appends `value` with exactly `decimals` digits after the point, rounded half away from zero
  /// on the scaled value (fine for generated data; not a general-purpose formatter).
  public func write(_ value: Double, decimals: Int) throws(TrackIOError) {
    ByteSink.appendFixed(value, decimals: decimals, to: &buffer)
    try maybeFlush()
  }

  /// Appends an integer.
  public func write(_ value: Int) throws(TrackIOError) {
    ByteSink.appendInteger(value, to: &buffer)
    try maybeFlush()
  }

  /// Appends an ISO 8601 UTC timestamp, with `fractionDigits` digits of fractional seconds (0…9).
  public func writeTimestamp(_ seconds: Double, fractionDigits: Int = 0) throws(TrackIOError) {
    ByteSink.appendTimestamp(seconds, fractionDigits: fractionDigits, to: &buffer)
    try maybeFlush()
  }

  /// ``writeTimestamp(_:fractionDigits:)`` padded to `width` characters as
  /// ``write(_:column:)`` pads text, without building a string.
  public func writeTimestamp(_ seconds: Double, fractionDigits: Int, column width: Int) throws(TrackIOError) {
    let start = buffer.count
    ByteSink.appendTimestamp(seconds, fractionDigits: fractionDigits, to: &buffer)
    buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(1, width - (buffer.count - start))))
    try maybeFlush()
  }

  /// Appends `text` as a JSON string literal (``JSONText/quoted(_:)``), without making a string.
  public func writeJSONString(_ text: String) throws(TrackIOError) {
    JSONText.appendQuoted(text, to: &buffer)
    try maybeFlush()
  }

  /// Appends `text` as a CSV field (RFC 4180): as it is, or in double quotes with its quotes
  /// doubled when it holds a comma, a quote, a space or a line break.
  public func writeCSVField(_ text: String) throws(TrackIOError) {
    ByteSink.appendCSVField(text, to: &buffer)
    try maybeFlush()
  }

  /// ``writeCSVField(_:)`` into `out`. The test is on the UTF-8 bytes: a comma followed by a
  /// combining mark is a comma to a CSV reader too.
  static func appendCSVField(_ text: String, to out: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
      let special = bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: " ") || $0 == 0x0A || $0 == 0x0D }
      guard special else {
        out.append(contentsOf: bytes)
        return
      }
      out.append(UInt8(ascii: "\""))
      var start = 0
      for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\"") {
        // Up to and including the quote, which is then doubled.
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...i]))
        out.append(b)
        start = i + 1
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
      out.append(UInt8(ascii: "\""))
    }
  }

  static func appendInteger(_ value: Int, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var v = value.magnitude
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
      (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { d in
      repeat {
        d[count] = UInt8(v % 10) + 48
        v /= 10
        count += 1
      } while v > 0
      for k in stride(from: count - 1, through: 0, by: -1) { out.append(d[k]) }
    }
  }

  static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
    guard value.isFinite else {
      out.append(contentsOf: value.isNaN ? Array("nan".utf8) : Array((value < 0 ? "-inf" : "inf").utf8))
      return
    }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    guard scaled < 9e18 else {
      out.append(contentsOf: String(value).utf8)
      return
    }
    var integer = UInt64(scaled)
    if value < 0 && integer > 0 { out.append(UInt8(ascii: "-")) }
    var divisor: UInt64 = 1
    for _ in 0..<decimals { divisor *= 10 }
    appendInteger(Int(integer / divisor), to: &out)
    if decimals > 0 {
      out.append(UInt8(ascii: "."))
      integer %= divisor
      var d = divisor / 10
      while d > 0 {
        out.append(UInt8(integer / d) + 48)
        integer %= d
        d /= 10
      }
    }
  }

  static func appendTimestamp(_ seconds: Double, fractionDigits: Int, to out: inout [UInt8]) {
    // Every Double is written: a time no clock can give (beyond ±10¹⁵ s, 31 million years) as
    // the nearest one that can be, NaN as "NaN". The readers' checks say when such a time came in.
    guard !seconds.isNaN else { return out.append(contentsOf: "NaN".utf8) }
    let seconds = min(max(seconds, -1e15), 1e15)
    var whole = seconds.rounded(.down)
    var fraction = seconds - whole
    var scale = 1.0
    for _ in 0..<fractionDigits { scale *= 10 }
    var fractionUnits = (fraction * scale).rounded()
    if fractionUnits >= scale {
      whole += 1
      fractionUnits = 0
    }
    fraction = fractionUnits
    let total = Int(whole)
    let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
    let secondOfDay = total - days * 86_400
    let (y, m, d) = ByteNumbers.civilFromDays(days)
    func two(_ v: Int) {
      out.append(UInt8(v / 10) + 48)
      out.append(UInt8(v % 10) + 48)
    }
    // Years 0…999 with four digits, as ISO 8601 writes them (0001-01-01), so the readers read them back.
    if (0..<1000).contains(y) { out.append(contentsOf: y < 10 ? "000".utf8 : y < 100 ? "00".utf8 : "0".utf8) }
    appendInteger(y, to: &out)
    out.append(UInt8(ascii: "-"))
    two(m)
    out.append(UInt8(ascii: "-"))
    two(d)
    out.append(UInt8(ascii: "T"))
    two(secondOfDay / 3600)
    out.append(UInt8(ascii: ":"))
    two(secondOfDay / 60 % 60)
    out.append(UInt8(ascii: ":"))
    two(secondOfDay % 60)
    if fractionDigits > 0 {
      out.append(UInt8(ascii: "."))
      var units = Int(fraction)
      var digits = [UInt8](repeating: 48, count: fractionDigits)
      for k in stride(from: fractionDigits - 1, through: 0, by: -1) {
        digits[k] = UInt8(units % 10) + 48
        units /= 10
      }
      out.append(contentsOf: digits)
    }
    out.append(UInt8(ascii: "Z"))
  }
}
