import Foundation

extension TrackStatistics {
  /// GPX files of at least this many bytes are read in two halves, one on each of two threads;
  /// smaller ones are parsed on one thread and measured on another.
  static let halvesThreshold = 8 << 20

  /// Reads a GPX file (see ``read(path:lenient:assumeUTC:warning:)``).
  ///
  /// A regular file of ``halvesThreshold`` bytes or more is read in two halves at once. The
  /// caller's thread reads up to the file's first track point, and takes note of where it stands
  /// there (the elements open, the namespace prefixes in scope: ``GPXReader/Place``). A second
  /// thread then reads from the first `<trkpt` at or after `splitNear` (default: the middle of
  /// the file) to the end, standing in that same place, while the caller's thread reads on up to
  /// that offset. The halves are joined (``joining(_:_:_:_:)``) only when the caller's reader got
  /// there between two track points, standing in the same place, and the second half was read
  /// without an error or a warning. Otherwise, as when the offset is inside a comment, in another
  /// kind of element, or in a damaged stretch, the caller's reader reads on from the offset, so
  /// that every error and warning is the one reading the whole file in order gives, with its line
  /// and column.
  /// `halvesJoined` says whether the two halves were read at once and joined.
  static func readGPX(
    path: String, lenient: Bool, warning: (TrackIOError) -> Void, splitNear: Int? = nil
  ) throws(TrackIOError) -> (statistics: TrackStatistics, halvesJoined: Bool) {
    var front = try GPXReader(path: path, lenient: lenient)
    var statistics = TrackStatistics(format: .gpx)
    if let size = front.regularFileSize, size >= (splitNear == nil ? halvesThreshold : 1) {
      while let point = try front.next() {
        statistics.add(point)
        if lenient { front.takeWarnings().forEach(warning) }
        guard point.kind == .track else { continue }
        if let place = front.place,
          let start = try trackPointTag(in: path, from: max(splitNear ?? size / 2, front.unreadFileOffset))
        {
          let back = BackHalf(try GPXReader(resuming: place, path: path, from: start, lenient: lenient))
          defer { back.cancel() }
          try front.stop(at: start)
          while let point = try front.next() {
            statistics.add(point)
            if lenient { front.takeWarnings().forEach(warning) }
          }
          if front.isStoppedAtLimit && front.stands(at: place), let (backStatistics, backSummary) = back.result() {
            front.takeWarnings().forEach(warning)
            return (joining(statistics, front.summary, backStatistics, backSummary), true)
          }
          guard front.isStoppedAtLimit else {
            // The file's content ended before the offset (lenient: content after the root).
            front.takeWarnings().forEach(warning)
            statistics.finish(front.summary)
            return (statistics, false)
          }
          front.readPastLimit()
        }
        break
      }
    }
    // On from where `front` stands: parsed on a thread of its own, measured on this one.
    let reader = ReadAheadGPXReader(front)
    while let point = try reader.next() {
      statistics.add(point)
      if lenient { reader.takeWarnings().forEach(warning) }
    }
    reader.takeWarnings().forEach(warning)
    statistics.finish(reader.summary)
    return (statistics, false)
  }

  /// The file offset of the first `<trkpt` followed by a space at or after `offset` in the file
  /// at `path`; nil when there is none.
  static func trackPointTag(in path: String, from offset: Int) throws(TrackIOError) -> Int? {
    let input = try InputFile(path: path, inflating: false)
    try input.seek(to: offset)
    let pattern: StaticString = "<trkpt"
    let length = pattern.utf8CodeUnitCount
    let window = 1 << 16
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: window + length)
    defer { bytes.deallocate() }
    // Bytes kept from the window before: the pattern and its space may straddle two.
    var kept = 0
    var base = offset
    while true {
      let got = try input.read(into: bytes + kept, count: window)
      let end = kept + got
      var i = 0
      while i + length < end, let hit = memchr(bytes + i, Int32(UInt8(ascii: "<")), end - length - i) {
        i = bytes.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        if memcmp(bytes + i, pattern.utf8Start, length) == 0 && MarkupScanner.isSpace(bytes[i + length]) {
          return base + i
        }
        i += 1
      }
      guard got > 0 else { return nil }
      kept = min(end, length)
      (bytes).update(from: bytes + end - kept, count: kept)
      base += end - kept
    }
  }
}

/// The second half of a GPX file, read and measured on a thread of its own
/// (``TrackStatistics/readGPX(path:lenient:warning:splitNear:)``).
private final class BackHalf: @unchecked Sendable {
  private let condition = NSCondition()
  private var reader: GPXReader
  private var done = false
  private var cancelled = false
  private var outcome: (TrackStatistics, GPXSummary)?

  /// Points read between looks at ``cancel()``.
  private static let stride = 4_096

  /// Starts reading `reader` to the end on a thread of its own.
  init(_ reader: GPXReader) {
    self.reader = reader
    let thread = Thread { [self] in run() }
    thread.name = "geowake GPX back half"
    thread.start()
  }

  private func run() {
    var statistics = TrackStatistics(continuingSegmentOf: .gpx)
    var outcome: (TrackStatistics, GPXSummary)?
    do throws(TrackIOError) {
      var n = 0
      reading: while true {
        while n < Self.stride {
          guard let point = try reader.next() else { break reading }
          statistics.add(point)
          n += 1
        }
        n = 0
        if reader.hasWarnings || isCancelled { break reading }
      }
      if !reader.hasWarnings && !isCancelled && statistics.perTrack.count > 0 {
        statistics.finish(reader.summary)
        outcome = (statistics, reader.summary)
      }
    } catch {
      // Read again by the caller's reader, which gives the error with its line and column.
    }
    condition.lock()
    self.outcome = outcome
    done = true
    condition.broadcast()
    condition.unlock()
  }

  private var isCancelled: Bool {
    condition.lock()
    defer { condition.unlock() }
    return cancelled
  }

  /// The statistics and counts of the half, once read; nil when it met an error or a warning, or
  /// was cancelled.
  func result() -> (TrackStatistics, GPXSummary)? {
    condition.lock()
    defer { condition.unlock() }
    while !done { condition.wait() }
    return outcome
  }

  /// Stops the reading at its next look (a result not yet taken is dropped).
  func cancel() {
    condition.lock()
    cancelled = true
    condition.unlock()
  }
}
