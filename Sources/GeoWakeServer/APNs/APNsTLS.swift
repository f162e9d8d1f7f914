#if Server
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The certificate and key the APNs endpoint serves TLS with: the files given
/// (`--tls-cert`, `--tls-key`, PEM), or a self-signed certificate for `localhost`, 127.0.0.1 and
/// ::1 kept in the data folder (`apns-tls-cert.pem`, `apns-tls-key.pem`), made at the first start
/// and used again after, so a client told to trust it once keeps trusting it.
public struct APNsTLS: Sendable {
  public let certificatePath: String
  public let keyPath: String
  /// Whether the certificate was made at this start.
  public let made: Bool
  let certificates: [NIOSSLCertificate]
  let key: NIOSSLPrivateKey

  /// Why the TLS identity could not be set up.
  public struct Problem: Error, CustomStringConvertible, Sendable {
    public var description: String
  }

  /// The given certificate and key.
  public init(certificate: String, key: String) throws(Problem) {
    certificatePath = certificate
    keyPath = key
    made = false
    do { certificates = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
      throw Problem(description: "\(certificate): not a PEM certificate (chain) that can be read: \(error)")
    }
    guard !certificates.isEmpty else { throw Problem(description: "\(certificate): no certificate in the file: expected PEM") }
    do { self.key = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
      throw Problem(description: "\(key): not a PEM private key that can be read: \(error)")
    }
  }

  /// The self-signed certificate of `dataDirectory`, made when it has none.
  public init(selfSignedIn dataDirectory: String) throws(Problem) {
    let certificatePath = dataDirectory + "/apns-tls-cert.pem"
    let keyPath = dataDirectory + "/apns-tls-key.pem"
    let files = FileManager.default
    var made = false
    if !files.fileExists(atPath: certificatePath) || !files.fileExists(atPath: keyPath) {
      let (certificate, key) = try Self.selfSigned()
      // The key first, readable by its owner only; the certificate last: a start cut short
      // between the two makes both again.
      guard files.createFile(atPath: keyPath, contents: Data(key.utf8), attributes: [.posixPermissions: 0o600]),
        files.createFile(atPath: certificatePath, contents: Data(certificate.utf8))
      else { throw Problem(description: "\(dataDirectory): cannot write the self-signed certificate and key") }
      made = true
    }
    try self.init(certificate: certificatePath, key: keyPath)
    self = APNsTLS(copying: self, made: made)
  }

  private init(copying other: APNsTLS, made: Bool) {
    certificatePath = other.certificatePath
    keyPath = other.keyPath
    certificates = other.certificates
    key = other.key
    self.made = made
  }

  /// A P-256 key and a certificate for it, signed by itself, valid from an hour ago for 825 days
  /// (the longest a TLS server certificate is trusted on Apple's systems).
  static func selfSigned() throws(Problem) -> (certificate: String, key: String) {
    do {
      let key = P256.Signing.PrivateKey()
      let name = try DistinguishedName { CommonName("geowake APNs endpoint (self-signed)") }
      let now = Date()
      let certificate = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
        notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(825 * 86_400), issuer: name,
        subject: name, signatureAlgorithm: .ecdsaWithSHA256,
        extensions: try Certificate.Extensions {
          Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
          try ExtendedKeyUsage([.serverAuth])
          SubjectAlternativeNames([
            .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
          ])
        }, issuerPrivateKey: .init(key))
      return (try certificate.serializeAsPEM().pemString + "\n", key.pemRepresentation + "\n")
    } catch { throw Problem(description: "cannot make a self-signed certificate: \(error)") }
  }

  /// The server's TLS settings: this identity, TLS 1.2 or later (APNs asks for 1.2).
  var configuration: TLSConfiguration {
    var tls = TLSConfiguration.makeServerConfiguration(
      certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
    tls.minimumTLSVersion = .tlsv12
    return tls
  }
}
#endif
