#if Server
public import ArgumentParser
import BackgroundRuntime
import Foundation
import GeoWake
public import GeoWakeServer
import RuntimeIO
import SeededRandom
import TrackIO

extension APNsEndpoint.Transport: ExpressibleByArgument {}

/// `geowake serve`'s APNs options: where the endpoint listens and how, the provider keys, the
/// devices behind the tokens, and the clock.
struct APNsOptions: ParsableArguments {
  @Option(name: .customLong("apns"), help: ArgumentHelp("Also serve an APNs endpoint at HOST:PORT: POST /3/device/<token> as api.push.apple.com answers it, the push entering the device behind the token (its steps on the event stream).", valueName: "host:port"))
  var address: String?

  @Option(name: .customLong("apns-transport"), help: "How the APNs endpoint speaks: tls (the default: HTTP/2 over TLS, with ALPN h2 or without ALPN, and HTTP/1.1 for a client that asks for it), or cleartext (HTTP/2 with prior knowledge, or HTTP/1.1).")
  var transport: APNsEndpoint.Transport = .tls

  @Option(name: .customLong("tls-cert"), help: "The APNs endpoint's certificate (PEM); default: a self-signed one for localhost, made in --data at the first start.")
  var certificate: String?

  @Option(name: .customLong("tls-key"), help: "The private key of --tls-cert (PEM).")
  var key: String?

  @Option(name: .customLong("apns-key"), help: ArgumentHelp("A provider key, TEAM_ID:KEY_ID:FILE.p8 (repeatable): requests must then carry a provider token (authorization: bearer <JWT>) signed ES256 by one of them (InvalidProviderToken otherwise).", valueName: "team:key:file"))
  var providerKeys: [String] = []

  @Option(name: .customLong("apns-devices"), help: ArgumentHelp("The devices behind the tokens: CSV lines token,device[,platform[,scenario.json]]. A token no line names is a device of its own, named by its token, on --platform with the default app.", valueName: "file"))
  var devicesFile: String?

  @Option(name: .customLong("apns-app"), help: ArgumentHelp("The default app of a push device (a scenario JSON, as geowake push --app); default: one that declares remote-notification and whose handler takes 2 s.", valueName: "scenario.json"))
  var app: String?

  @Option(name: .customLong("clock"), help: ArgumentHelp("The push devices' clock: real (the default), or a time (ISO 8601 with its zone) a simulated clock starts at, which only POST /v1/clock moves.", valueName: "real|time"))
  var clock: String = "real"

  /// The endpoint, or nil without --apns; every problem is reported and thrown as its status.
  func endpoint(engine: LiveEngine, platform: Platform, dataDirectory: String, seed: UInt64, hasTokens: Bool) async throws -> APNsEndpoint? {
    guard let address else {
      for (given, name) in [(certificate, "--tls-cert"), (key, "--tls-key"), (devicesFile, "--apns-devices"), (app, "--apns-app")] where given != nil {
        Diagnostics.error("\(name): needs --apns HOST:PORT (the APNs endpoint it is for)")
        throw SysExit.usage
      }
      if !providerKeys.isEmpty || clock != "real" {
        Diagnostics.error("\(providerKeys.isEmpty ? "--clock" : "--apns-key"): needs --apns HOST:PORT (the APNs endpoint it is for)")
        throw SysExit.usage
      }
      return nil
    }
    guard let (host, port) = ServeCommand.hostAndPort(address) else {
      Diagnostics.error("--apns \(address): expected HOST:PORT, as 127.0.0.1:2197")
      throw SysExit.usage
    }
    if !hasTokens, providerKeys.isEmpty, !ServerOptions.isLoopback(host) {
      Diagnostics.error("--apns \(address): without --apns-key (or --tokens) only a loopback address is served: anyone who reaches it could wake the devices")
      throw SysExit.usage
    }
    var keys = ProviderKeys()
    for argument in providerKeys {
      do throws(ProviderKeys.Problem) { try keys.add(argument: argument) } catch {
        Diagnostics.error("--apns-key \(argument): \(error.description)")
        throw SysExit.dataError
      }
    }
    let mode: ServerClock.Mode
    if clock == "real" {
      mode = .real
    } else if let start = TimestampText.parse(clock), clock.contains("Z") || clock.contains("+") || clock.dropFirst(10).contains("-") {
      mode = .simulated(start)
    } else {
      Diagnostics.error("--clock \(clock): expected real, or an ISO 8601 time with its zone (2024-05-01T08:00:00Z)")
      throw SysExit.usage
    }
    var tls: APNsTLS?
    if transport == .tls {
      if (certificate == nil) != (key == nil) {
        Diagnostics.error("\(certificate == nil ? "--tls-key" : "--tls-cert"): needs \(certificate == nil ? "--tls-cert" : "--tls-key") too")
        throw SysExit.usage
      }
      do throws(APNsTLS.Problem) {
        if let certificate, let key { tls = try APNsTLS(certificate: certificate, key: key) } else { tls = try APNsTLS(selfSignedIn: dataDirectory) }
      } catch {
        Diagnostics.error(error.description)
        throw SysExit.dataError
      }
    } else if certificate != nil || key != nil {
      Diagnostics.error("--tls-cert, --tls-key: the cleartext transport has no certificate (--apns-transport tls uses them)")
      throw SysExit.usage
    }
    var scenario = AppScenario(
      behaviours: [.remoteNotification: HandlerBehaviour(work: 2)], configuration: AppConfiguration(backgroundModes: [.remoteNotification]))
    if let app {
      do { scenario = PlatformOption.scenario(try ScenarioReader.read(path: app), from: app, on: platform) } catch { throw Diagnostics.fail(error) }
    }
    let fallback = PushBook.Assignment(device: "", platform: platform, scenario: scenario)
    var assigned: [String: PushBook.Assignment] = [:]
    if let devicesFile { assigned = try Self.readDevices(devicesFile, fallback: fallback) }
    // What the devices are made from: the stored inputs replay to the same devices only so.
    var hash = StableHash()
    hash.combine(platform.name.rawValue)
    for file in [devicesFile, app].compactMap({ $0 }) { hash.combine(FileManager.default.contents(atPath: file) ?? Data()) }
    hash.combine(ProviderKeysText.names(providerKeys))
    let devices: PushDevices
    do {
      devices = try await PushDevices.start(
        engine: engine, clock: ServerClock(mode), keys: keys, assigned: assigned, fallback: fallback, seed: seed,
        fingerprint: String(hash.finalized, radix: 16))
    } catch {
      Diagnostics.error("\(dataDirectory): error: the push devices cannot be rebuilt from the store: \(error)")
      throw SysExit.dataError
    }
    return APNsEndpoint(host: host, port: port, transport: transport, tls: tls, devices: devices)
  }

  /// The devices file: `token,device[,platform[,scenario.json]]` a line; `#` comments and empty
  /// lines skipped. Every problem names its line and field.
  static func readDevices(_ path: String, fallback: PushBook.Assignment) throws -> [String: PushBook.Assignment] {
    let text: String
    do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
      Diagnostics.error("\(path): error: cannot read the devices file: \(error.localizedDescription)")
      throw SysExit.noInput
    }
    var out: [String: PushBook.Assignment] = [:]
    var names: [String: Int] = [:]
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = index + 1
      let trimmed = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
      func fail(_ column: Int, _ message: String) -> any Error {
        Diagnostics.error("\(path):\(line):\(column): error: \(message)")
        return SysExit.dataError
      }
      if line == 1, fields.first?.lowercased() == "token" { continue }
      guard (2...4).contains(fields.count) else { throw fail(1, "expected token,device[,platform[,scenario.json]], got \(fields.count) fields") }
      var assignment = fallback
      if fields.count > 2, !fields[2].isEmpty {
        guard let name = Platform.Name(argument: fields[2]) else {
          throw fail(3, "platform \"\(fields[2])\": expected one of \(Platform.Name.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        assignment.platform = Platform.named(name)
      }
      let token = fields[0].lowercased()
      guard APNsValidator.isDeviceToken(token, profile: assignment.platform.push) else {
        throw fail(1, "\"\(fields[0])\" is not a device token: expected an even number of hexadecimal digits (64 for iOS)")
      }
      guard !fields[1].isEmpty else { throw fail(2, "the device has no name") }
      if out[token] != nil { throw fail(1, "the token is named twice") }
      if let first = names[fields[1]] { throw fail(2, "the device \(fields[1]) has a token already (line \(first))") }
      names[fields[1]] = line
      assignment.device = fields[1]
      if fields.count > 3, !fields[3].isEmpty {
        do { assignment.scenario = try ScenarioReader.read(path: fields[3]) } catch { throw Diagnostics.fail(error) }
      }
      assignment.scenario = PlatformOption.scenario(assignment.scenario, from: fields.count > 3 ? fields[3] : path, on: assignment.platform)
      out[token] = assignment
    }
    return out
  }
}
#endif

#if Server
/// The provider keys by name (`TEAM:KEY`), for the setup's fingerprint: the file a key is read
/// from may move.
enum ProviderKeysText {
  static func names(_ arguments: [String]) -> String {
    arguments.map { $0.split(separator: ":", maxSplits: 2).prefix(2).joined(separator: ":") }.sorted().joined(separator: ",")
  }
}
#endif
