/// Text for a terminal of a given width: paragraphs wrapped at spaces, tables split into blocks
/// of columns that fit (each block repeating the first column), nothing elided.
public enum TerminalText {
  /// `text`'s lines, each longer than `width` broken at spaces, continuation lines indented
  /// by `indent` spaces more than the line; a word longer than a continuation line is cut into
  /// pieces that fit, so that no line is wider than `width`.
  public static func wrapped(_ text: String, width: Int, indent: Int = 4) -> String {
    var out: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      guard line.count > width else {
        out.append(String(line))
        continue
      }
      // The line's own indent is kept, and its continuation lines indented further.
      let lead = String(line.prefix { $0 == " " })
      let continuation = lead + String(repeating: " ", count: indent)
      // A word longer than a continuation line (a long path) is cut into pieces that fit.
      let room = max(1, width - continuation.count)
      var words: [Substring] = []
      for word in line.dropFirst(lead.count).split(separator: " ", omittingEmptySubsequences: false) {
        var rest = word
        while rest.count > room {
          words.append(rest.prefix(room))
          rest = rest.dropFirst(room)
        }
        words.append(rest)
      }
      var current = lead
      for word in words {
        if current.count > lead.count, current.count + 1 + word.count > width {
          out.append(current)
          current = continuation + word
        } else {
          current += (current.count == lead.count ? "" : " ") + word
        }
      }
      out.append(current)
    }
    return out.joined(separator: "\n")
  }

  /// `header` and `rows` as columns as wide as their widest cell plus two spaces; when that is
  /// wider than `width`, as several blocks one under the other, each starting with the first
  /// column and holding as many of the others as fit.
  public static func table(header: [String], rows: [[String]], width: Int) -> String {
    let widths = header.indices.map { k in ([header[k]] + rows.map { k < $0.count ? $0[k] : "" }).map(\.count).max() ?? 0 }
    var blocks: [[Int]] = []
    var block: [Int] = []
    var used = widths[0] + 2
    for k in header.indices.dropFirst() {
      if !block.isEmpty, used + widths[k] + 2 > width {
        blocks.append(block)
        block = []
        used = widths[0] + 2
      }
      block.append(k)
      used += widths[k] + 2
    }
    if !block.isEmpty { blocks.append(block) }
    var text: [String] = []
    for (b, columns) in blocks.enumerated() {
      if b > 0 { text.append("") }
      for row in [header] + rows {
        let cells = [0] + columns
        text.append(cells.enumerated().map { i, k in
          let cell = k < row.count ? row[k] : ""
          return i == cells.count - 1 ? cell : cell.column(widths[k] + 2)
        }.joined())
      }
    }
    return text.joined(separator: "\n") + "\n"
  }
}
