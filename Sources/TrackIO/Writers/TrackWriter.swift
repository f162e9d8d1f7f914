public import Geodesy

/// Writes fixes as GPX 1.1 (`trk/trkseg/trkpt` with optional `ele`, `time`, optional `hdop`) or as CSV
/// (`time,lat,lon,accuracy`), streaming.
public struct TrackWriter {
  /// Output formats.
  public enum Format: String, CaseIterable, Sendable {
    case gpx
    case csv
  }

  public let format: Format
  private let sink: ByteSink
  private var finished = false

  /// Starts a track on `sink` (writes the GPX preamble or the CSV header).
  public init(format: Format, sink: ByteSink, name: String) throws(TrackIOError) {
    self.format = format
    self.sink = sink
    switch format {
    case .gpx:
      try sink.write(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"geowake generate\" "
          + "xmlns=\"http://www.topografix.com/GPX/1/1\">\n  <trk>\n    <name>\(Self.escaped(name))</name>\n    <trkseg>\n")
    case .csv:
      try sink.write("time,lat,lon,accuracy\n")
    }
  }

  /// Appends one fix; `hdop` and `elevation` (metres, to 0.1 m), when given, are written to GPX.
  public func write(_ fix: LocationFix, hdop: Double? = nil, elevation: Double? = nil) throws(TrackIOError) {
    switch format {
    case .gpx:
      try sink.write("      <trkpt lat=\"")
      try sink.write(fix.coordinate.latitude, decimals: 7)
      try sink.write("\" lon=\"")
      try sink.write(fix.coordinate.longitude, decimals: 7)
      try sink.write("\">")
      if let elevation {
        try sink.write("<ele>")
        try sink.write(elevation, decimals: 1)
        try sink.write("</ele>")
      }
      try sink.write("<time>")
      try sink.writeTimestamp(fix.time, fractionDigits: fix.time.rounded() == fix.time ? 0 : 3)
      try sink.write("</time>")
      if let hdop {
        try sink.write("<hdop>")
        try sink.write(hdop, decimals: 1)
        try sink.write("</hdop>")
      }
      try sink.write("</trkpt>\n")
    case .csv:
      try sink.writeTimestamp(fix.time, fractionDigits: fix.time.rounded() == fix.time ? 0 : 3)
      try sink.write(",")
      try sink.write(fix.coordinate.latitude, decimals: 7)
      try sink.write(",")
      try sink.write(fix.coordinate.longitude, decimals: 7)
      try sink.write(",")
      if let accuracy = fix.horizontalAccuracy { try sink.write(accuracy, decimals: 1) }
      try sink.write("\n")
    }
  }

  /// Closes the track (GPX end tags) and commits the sink (a file is put in place).
  public mutating func finish() throws(TrackIOError) {
    guard !finished else { return }
    finished = true
    if format == .gpx { try sink.write("    </trkseg>\n  </trk>\n</gpx>\n") }
    try sink.commit()
  }

  static func escaped(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}
