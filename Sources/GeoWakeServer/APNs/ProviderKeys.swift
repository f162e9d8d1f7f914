#if Server
public import Crypto
import BackgroundRuntime
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
    // The form, the key and the team as the validator reads them.
    let token: ProviderToken
    switch ProviderToken.parse(authorization) {
    case .failure(let problem): return problem.message
    case .success(let t): token = t
    }
    guard let key = keys.first(where: { $0.keyID == token.keyID && $0.team == token.teamID }) else {
      return "the token names key \(token.keyID) of team \(token.teamID), which is not one of the provider keys given (--apns-key)"
    }
    let jwt = authorization.split(separator: " ", omittingEmptySubsequences: true)[1]
    let segments = jwt.split(separator: ".", omittingEmptySubsequences: false)
    guard let signature = ProviderToken.base64URL(segments[2]), signature.count == 64,
      let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
    else { return "the signature is not an ES256 signature (64 bytes, r and s)" }
    let signed = Data(jwt.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
    guard key.publicKey.isValidSignature(ecdsa, for: signed) else {
      return "the signature does not verify with key \(token.keyID) of team \(token.teamID)"
    }
    return nil
  }
}
#endif
