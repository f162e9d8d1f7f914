#if Server
public import Crypto
import Foundation

/// The provider signing keys the APNs endpoint knows (`--apns-key TEAM_ID:KEY_ID:FILE.p8`): a
/// provider token (`authorization: bearer <JWT>`) must be signed, ES256, by the key its header
/// names (`kid`) for the team its claims name (`iss`), as APNs checks it
/// (Apple, *Establishing a token-based connection to APNs*). The times (`iat`: at most an hour
/// old, refreshed at most every 20 minutes) are the validator's (``APNsValidator``).
public struct ProviderKeys: Sendable {
  public struct Key: Sendable {
    public var team: String
    public var keyID: String
    let publicKey: P256.Signing.PublicKey
  }

  public private(set) var keys: [Key] = []

  public init() {}

  /// Why a key could not be taken.
  public struct Problem: Error, CustomStringConvertible, Sendable {
    public var description: String
  }

  /// Adds the key of `TEAM_ID:KEY_ID:FILE.p8`: the file is the PKCS #8 PEM Apple hands out
  /// (`-----BEGIN PRIVATE KEY-----`), a P-256 key.
  public mutating func add(argument: String) throws(Problem) {
    let parts = argument.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
      throw Problem(description: "expected TEAM_ID:KEY_ID:FILE.p8, as ABCDE12345:KEY1234567:AuthKey_KEY1234567.p8")
    }
    let text: String
    do { text = try String(contentsOfFile: parts[2], encoding: .utf8) } catch {
      throw Problem(description: "\(parts[2]): cannot read the key file: \(error.localizedDescription)")
    }
    let key: P256.Signing.PrivateKey
    do { key = try P256.Signing.PrivateKey(pemRepresentation: text) } catch {
      throw Problem(description: "\(parts[2]): not a P-256 private key in PEM (PKCS #8, as Apple's .p8 files): \(error)")
    }
    try add(team: parts[0], keyID: parts[1], publicKey: key.publicKey)
  }

  /// Adds a key by its public half.
  public mutating func add(team: String, keyID: String, publicKey: P256.Signing.PublicKey) throws(Problem) {
    guard !keys.contains(where: { $0.team == team && $0.keyID == keyID }) else {
      throw Problem(description: "the key \(keyID) of team \(team) is given twice")
    }
    keys.append(Key(team: team, keyID: keyID, publicKey: publicKey))
  }

  public var isEmpty: Bool { keys.isEmpty }

  /// Nil when `authorization` carries a JWT signed by one of the keys, else why not (APNs:
  /// 403 `InvalidProviderToken`). A header that is not a JWT at all is the validator's to refuse.
  public func problem(with authorization: String) -> String? {
    let parts = authorization.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "expected \"bearer <JWT>\"" }
    let segments = parts[1].split(separator: ".", omittingEmptySubsequences: false)
    guard segments.count == 3, let header = Self.base64URL(segments[0]), let claims = Self.base64URL(segments[1]),
      let signature = Self.base64URL(segments[2])
    else { return "expected a JWT of three base64url segments separated by dots" }
    guard let h = try? JSONSerialization.jsonObject(with: header) as? [String: Any],
      let c = try? JSONSerialization.jsonObject(with: claims) as? [String: Any]
    else { return "a JWT segment is not a JSON object" }
    guard let kid = h["kid"] as? String, let iss = c["iss"] as? String else { return "the JWT names no kid (key) or no iss (team)" }
    guard let key = keys.first(where: { $0.keyID == kid && $0.team == iss }) else {
      return "the token names key \(kid) of team \(iss), which is not one of the provider keys given (--apns-key)"
    }
    guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
      return "the signature is not an ES256 signature (64 bytes, r and s)"
    }
    let signed = Data(parts[1].utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
    guard key.publicKey.isValidSignature(ecdsa, for: signed) else {
      return "the signature does not verify with key \(kid) of team \(iss)"
    }
    return nil
  }

  /// Decodes base64url without padding (RFC 4648 §5).
  static func base64URL(_ text: Substring) -> Data? {
    var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    guard !s.contains("=") else { return nil }
    while s.count % 4 != 0 { s += "=" }
    return Data(base64Encoded: s)
  }
}
#endif
