extension String {
  /// The text left-aligned in a column of `width` characters: padded with spaces, never cut
  /// (a longer text is kept whole, followed by one space, so that columns stay separated).
  /// Cheaper than Foundation's `padding(toLength:withPad:startingAt:)`, which also truncates.
  package func column(_ width: Int) -> String {
    let n = count
    return n >= width ? self + " " : self + String(repeating: " ", count: width - n)
  }
}
