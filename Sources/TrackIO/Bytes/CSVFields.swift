/// Splits one CSV line (RFC 4180 style) into field ranges without copying.
///
/// Fields are separated by commas; a field may be wrapped in double quotes, with `""` standing
/// for a quote inside. Quoted fields are reported without their quotes; the caller decodes `""`
/// if it needs the text. Whitespace around unquoted fields is trimmed.
package struct CSVFields {
  /// (start, end) byte offsets of each field within the line, end exclusive.
  private(set) var ranges: [(start: Int, end: Int)] = []
  /// Set when a quoted field is not closed: the byte offset of its opening quote.
  private(set) var unterminatedQuote: Int?

  package mutating func split(_ line: UnsafeBufferPointer<UInt8>) {
    ranges.removeAll(keepingCapacity: true)
    unterminatedQuote = nil
    var i = 0
    let n = line.count
    while true {
      while i < n, line[i] == UInt8(ascii: " ") || line[i] == UInt8(ascii: "\t") { i += 1 }
      if i < n, line[i] == UInt8(ascii: "\"") {
        let open = i
        i += 1
        let start = i
        var closed = false
        while i < n {
          if line[i] == UInt8(ascii: "\"") {
            if i + 1 < n, line[i + 1] == UInt8(ascii: "\"") {
              i += 2
              continue
            }
            closed = true
            break
          }
          i += 1
        }
        guard closed else {
          unterminatedQuote = open
          ranges.append((start, n))
          return
        }
        ranges.append((start, i))
        i += 1
        while i < n, line[i] != UInt8(ascii: ",") { i += 1 }
      } else {
        let start = i
        while i < n, line[i] != UInt8(ascii: ",") { i += 1 }
        var end = i
        while end > start, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        ranges.append((start, end))
      }
      guard i < n else { return }
      i += 1  // the comma
    }
  }

  package var count: Int { ranges.count }

  package func field(_ k: Int, in line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: line[ranges[k].start..<ranges[k].end])
  }

  /// The text of field k, with `""` decoded.
  package func text(_ k: Int, in line: UnsafeBufferPointer<UInt8>) -> String {
    let bytes = field(k, in: line)
    let text = String(decoding: bytes, as: UTF8.self)
    // Only a field with a quote inside can hold a doubled one.
    return bytes.contains(UInt8(ascii: "\"")) ? text.replacingQuotes() : text
  }

  /// 1-based byte column where field k starts.
  package func column(_ k: Int) -> Int { ranges[k].start + 1 }
}

extension String {
  fileprivate func replacingQuotes() -> String {
    guard contains("\"\"") else { return self }
    var out = ""
    var previousWasQuote = false
    for c in self {
      if c == "\"" && previousWasQuote {
        previousWasQuote = false
        continue
      }
      previousWasQuote = c == "\""
      out.append(c)
    }
    return out
  }
}

/// A CSV header: which column holds each named field.
package struct CSVHeader {
  package let names: [String]

  package init(_ fields: CSVFields, line: UnsafeBufferPointer<UInt8>) {
    names = (0..<fields.count).map { fields.text($0, in: line).lowercased() }
  }

  /// The index of the first column whose name is one of `aliases`.
  package func column(_ aliases: [String]) -> Int? {
    names.firstIndex { aliases.contains($0) }
  }
}
