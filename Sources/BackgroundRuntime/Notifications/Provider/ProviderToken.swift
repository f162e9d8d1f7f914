public import JSONBytes
/// A provider authentication token as APNs reads it from `authorization: bearer <JWT>` (Apple,
/// *Establishing a token-based connection to APNs*): a JSON Web Token whose header names the
/// signing key (`alg` ES256, `kid`) and whose claims name the team (`iss`) and the time it was
/// issued (`iat`, seconds since the Unix epoch). GeoWake checks the form and the times; it cannot
/// check the signature (it has no keys) and says so.
public struct ProviderToken: Hashable, Sendable {
  public var keyID: String
  public var teamID: String
  public var issuedAt: Double

  /// Reads `bearer <header>.<claims>.<signature>`; nil with the reason when it is not one.
  public static func parse(_ authorization: String) -> Result<ProviderToken, TokenProblem> {
    let parts = authorization.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .failure(.init("expected \"bearer <JWT>\"")) }
    let segments = parts[1].split(separator: ".", omittingEmptySubsequences: false)
    guard segments.count == 3, segments.allSatisfy({ !$0.isEmpty }) else {
      return .failure(.init("expected a JWT of three base64url segments separated by dots"))
    }
    guard let header = base64URL(segments[0]), let claims = base64URL(segments[1]), base64URL(segments[2]) != nil else {
      return .failure(.init("a JWT segment is not base64url"))
    }
    guard let h = members(header), let c = members(claims) else { return .failure(.init("a JWT segment is not a JSON object")) }
    guard case .text(let alg)? = h["alg"], alg == "ES256" else { return .failure(.init("the JWT header's alg must be ES256")) }
    guard case .text(let kid)? = h["kid"], !kid.isEmpty else { return .failure(.init("the JWT header has no kid (key identifier)")) }
    guard case .text(let iss)? = c["iss"], !iss.isEmpty else { return .failure(.init("the JWT claims have no iss (team identifier)")) }
    guard case .number(let iat)? = c["iat"] else { return .failure(.init("the JWT claims have no iat (issue time, Unix seconds)")) }
    return .success(ProviderToken(keyID: kid, teamID: iss, issuedAt: iat))
  }

  /// Why a token could not be read.
  public struct TokenProblem: Error, Hashable, Sendable {
    public var message: String
    init(_ message: String) { self.message = message }
  }

  enum Value: Equatable {
    case text(String)
    case number(Double)
    case other
  }

  /// The top-level members of a JSON object (strings and numbers typed, the rest skipped).
  static func members(_ bytes: [UInt8]) -> [String: Value]? {
    bytes.withUnsafeBufferPointer { b -> [String: Value]? in
      var s = JSONScanner(b)
      var out: [String: Value] = [:]
      do throws(PayloadError) {
        try s.expect(UInt8(ascii: "{"), "$", "an object")
        if s.peek() == UInt8(ascii: "}") { return out }
        while true {
          let (raw, decoded) = try s.key("$")
          let name = decoded ?? String(decoding: UnsafeBufferPointer(rebasing: b[raw]), as: UTF8.self)
          try s.expect(UInt8(ascii: ":"), "$", "':'")
          switch s.peek() {
          case UInt8(ascii: "\"")?: out[name] = .text(try s.string("$"))
          case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: out[name] = .number(try s.number("$").value)
          default:
            _ = try s.skipValue("$")
            out[name] = .other
          }
          guard let next = s.peek() else { return nil }
          s.i += 1
          if next == UInt8(ascii: "}") { break }
          guard next == UInt8(ascii: ",") else { return nil }
        }
        s.skipSpace()
        return s.atEnd ? out : nil
      } catch { return nil }
    }
  }

  /// Decodes base64url without padding (RFC 4648 §5); nil when it is not.
  public static func base64URL(_ text: Substring) -> [UInt8]? {
    var out: [UInt8] = []
    var buffer: UInt32 = 0
    var bits = 0
    for c in text.utf8 {
      let v: UInt32
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 71)
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c + 4)
      case UInt8(ascii: "-"): v = 62
      case UInt8(ascii: "_"): v = 63
      case UInt8(ascii: "="): continue
      default: return nil
      }
      buffer = buffer << 6 | v
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
      }
    }
    return out
  }
}
