public import JSONBytes

/// A problem in a JSON payload: where (byte offset from the payload's start, and the key path to
/// the value concerned, `$.aps.alert.title`), and what was expected.
public typealias PayloadError = JSONError

extension JSONScanner {
  /// The exact text of `range` (empty when not materializing).
  func raw(_ range: Range<Int>) -> RawJSON { RawJSON(rawText(range)) }
}
