#if Server
/// What a token may do.
public enum AccessScope: String, Sendable, CaseIterable {
  /// Post fixes.
  case ingest
  /// Read events, devices, regions, metrics.
  case read
  /// End devices' tracks, change regions.
  case admin
}

/// The bearer tokens of `--tokens FILE`: one `TOKEN SCOPE[,SCOPE…]` a line, `#` comments and
/// blank lines skipped. Tokens are compared in constant time.
public struct AccessTokens: Sendable {
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
  }

  var tokens: [(token: [UInt8], scopes: Set<AccessScope>)] = []

  /// The shortest token accepted (bytes): a short one can be guessed.
  public static let shortestToken = 16

  public init(text: String) throws(Problem) {
    for (k, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard parts.count == 2 else { throw Problem(line: k + 1, message: "expected TOKEN SCOPE[,SCOPE…], found \(parts.count) fields") }
      guard parts[0].utf8.count >= Self.shortestToken else {
        throw Problem(line: k + 1, message: "the token is \(parts[0].utf8.count) bytes: expected at least \(Self.shortestToken)")
      }
      var scopes: Set<AccessScope> = []
      for name in parts[1].split(separator: ",") {
        guard let scope = AccessScope(rawValue: String(name)) else {
          throw Problem(line: k + 1, message: "unknown scope \"\(name)\": expected \(AccessScope.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        scopes.insert(scope)
      }
      tokens.append((Array(parts[0].utf8), scopes))
    }
    guard !tokens.isEmpty else { throw Problem(line: 0, message: "no token in the file") }
  }

  /// The scopes of `presented`, or nil for an unknown token. Every token is compared, whole, so
  /// the time taken says nothing about which bytes matched.
  public func scopes(of presented: some Sequence<UInt8>) -> Set<AccessScope>? {
    let given = Array(presented)
    var found: Set<AccessScope>?
    for (token, scopes) in tokens {
      var difference = UInt8(truncatingIfNeeded: token.count ^ given.count)
      for k in 0..<token.count { difference |= token[k] ^ (k < given.count ? given[k] : 0) }
      if difference == 0 { found = scopes }
    }
    return found
  }
}
#endif
