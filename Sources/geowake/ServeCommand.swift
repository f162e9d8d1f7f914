#if Server
import ArgumentParser
import Foundation
import GeoWake
import GeoWakeServer
import Geofencing
import SeededRandom
import TrackIO

/// `geowake serve`: the live engine over HTTP (docs/serve.md).
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the live engine: fixes from many devices in over HTTP, region events out, durable in --data.",
    discussion: """
      POST /v1/fixes takes a JSON array or NDJSON of {device, time, lat, lon, accuracy?, speed?, course?, cell?} \
      and answers, per fix, accepted or rejected with the reason, once the fixes and their events are \
      durable. GET /v1/events streams the events (Server-Sent Events, resumable with Last-Event-ID or \
      ?after=SEQ) as geowake analyze --format jsonl writes them, with a seq; ?limit=N&wait=S is a JSON \
      long poll. GET /v1/devices/ID, DELETE /v1/devices/ID (ends its track), GET /v1/regions, PUT and \
      DELETE /v1/regions/ID (a GeoJSON Feature: the fence set changes while fixes flow; the changes \
      are kept in --data, on top of the same --regions file), GET /metrics, GET /healthz, GET \
      /openapi.json. Without --tokens only a loopback address is served.

      --apns HOST:PORT also answers push providers as api.push.apple.com does (POST \
      /3/device/TOKEN over HTTP/2 and TLS, or cleartext): each accepted push enters the simulated \
      phone behind the token (--apns-devices), and its steps go to the event stream; --clock TIME \
      makes the push devices' clock one that only POST /v1/clock moves.


      Example (it runs until interrupted):
        geowake serve --regions Fixtures/demo/tokyo-regions.csv --data /tmp/geowake-data --listen 127.0.0.1:8080
      """
  )

  @Option(help: "Regions file (CSV id,lat,lon,radius; GeoJSON; or JSON).")
  var regions: String

  @Option(name: [.customLong("platform"), .customLong("profile")], help: "The rules events follow: server (the default: the geometric truth), or a phone's (ios, android, …) to see what it would report.")
  var platformName: Platform.Name = .server

  @OptionGroup(title: "Server rules")
  var serverRules: ServerRulesOptions

  @Option(help: "The folder the engine's state is kept in (created when missing).")
  var data: String = "geowake-data"

  @Option(help: "The address to listen on, HOST:PORT (port 0: any free port, printed).")
  var listen: String = "127.0.0.1:8080"

  @Option(help: "Bearer tokens, one 'TOKEN SCOPE[,SCOPE…]' a line (scopes: ingest, read, admin).")
  var tokens: String?

  @Option(name: .customLong("max-body"), help: "The largest request body in bytes; larger gets 413.")
  var maxBody: Int = 16 << 20

  @Option(name: .customLong("client-rate"), help: ArgumentHelp("Fixes a second each client may post (a client is its token, or its address without tokens); 0: no limit. Over it: 429 with Retry-After.", valueName: "fixes"))
  var clientRate: Double = 50_000

  @Option(name: .customLong("client-in-flight"), help: ArgumentHelp("Batches each client may have in flight at once; more: 429.", valueName: "batches"))
  var clientInFlight: Int = 4

  @Option(help: "Seeds the platform's random draws (a device's seed is drawn from it and its name, as in analyze).")
  var seed: UInt64 = 0

  @Option(
    name: .customLong("nats"),
    help: "Also take fixes from NATS JetStream at this URL (nats://HOST:PORT): fix messages on geowake.fixes.<device> (stream GEOWAKE_FIXES, durable consumer geowake), events published to geowake.events.<device> (stream GEOWAKE_EVENTS) with Nats-Msg-Id DEVICE-SEQ; a message is acknowledged once its fix is used and its events stored in JetStream.")
  var nats: String?

  @Option(name: .customLong("checkpoint-interval"), help: "Seconds between checkpoints of the device states.")
  var checkpointInterval: Double = 30

  @OptionGroup(title: "APNs endpoint")
  var apns: APNsOptions

  func validate() throws { try serverRules.check(platform: platformName) }

  /// HOST and PORT of `HOST:PORT` (`[::1]:PORT` too), or nil.
  static func hostAndPort(_ address: String) -> (String, Int)? {
    guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65_535).contains(port) else {
      return nil
    }
    var host = String(address[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return (host, port)
  }

  func run() async throws {
    guard let (host, port) = Self.hostAndPort(listen) else {
      Diagnostics.error("--listen \(listen): expected HOST:PORT, as 127.0.0.1:8080")
      throw SysExit.usage
    }
    var accessTokens: AccessTokens?
    if let tokens {
      let text: String
      do { text = try String(contentsOfFile: tokens, encoding: .utf8) } catch {
        Diagnostics.error("\(tokens): error: cannot read the tokens file: \(error.localizedDescription)")
        throw SysExit.noInput
      }
      do { accessTokens = try AccessTokens(text: text) } catch {
        Diagnostics.error("\(tokens):\(error.line):1: error: \(error.message)")
        throw SysExit.dataError
      }
    } else if !ServerOptions.isLoopback(host) {
      Diagnostics.error("--listen \(listen): without --tokens only a loopback address (127.0.0.1, ::1, localhost) is served: anyone who reaches it could post and read")
      throw SysExit.usage
    }
    guard maxBody > 0 else {
      Diagnostics.error("--max-body \(maxBody): expected a number of bytes > 0")
      throw SysExit.usage
    }
    guard clientRate >= 0, clientRate.isFinite else {
      Diagnostics.error("--client-rate \(clientRate): expected fixes a second ≥ 0 (0: no limit)")
      throw SysExit.usage
    }
    guard clientInFlight > 0 else {
      Diagnostics.error("--client-in-flight \(clientInFlight): expected a number of batches > 0")
      throw SysExit.usage
    }
    if let nats, let problem = NATSOptions.problem(in: nats) {
      Diagnostics.error("--nats \(nats): \(problem), as nats://127.0.0.1:4222")
      throw SysExit.usage
    }
    guard checkpointInterval > 0, checkpointInterval.isFinite else {
      Diagnostics.error("--checkpoint-interval \(checkpointInterval): expected seconds > 0")
      throw SysExit.usage
    }
    let regionFile: RegionFile
    do { regionFile = try RegionFileReader.readValidated(path: regions) } catch { throw Diagnostics.fail(error) }
    let fingerprint: String
    do {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: regions))
      var hash = StableHash()
      hash.combine(bytes)
      fingerprint = String(hash.finalized, radix: 16)
    } catch {
      Diagnostics.error("\(regions): error: cannot read: \(error.localizedDescription)")
      throw SysExit.noInput
    }
    let settings = EngineSettings(
      regions: regionFile.regions, regionsFingerprint: fingerprint, platform: serverRules.applied(to: Platform.named(platformName)), rules: serverRules.settings,
      notifications: regionFile.notifications, seed: seed, dataDirectory: data, checkpointInterval: checkpointInterval)
    let engine: LiveEngine
    let log: EventLog
    do {
      engine = try LiveEngine(settings: settings)
      log = try EventLog(dataDirectory: data)
    } catch {
      Diagnostics.error("\(data): error: \(error)")
      throw SysExit.cannotCreate
    }
    let endpoint = try await apns.endpoint(
      engine: engine, platform: serverRules.applied(to: Platform.named(platformName)), dataDirectory: data, seed: seed,
      hasTokens: accessTokens != nil)
    let server = LiveServer(engine: engine, log: log, options: ServerOptions(
        host: host, port: port, tokens: accessTokens, maxBody: maxBody,
        limits: ClientLimits.Settings(rate: clientRate == 0 ? nil : clientRate, inFlight: clientInFlight)), apns: endpoint)
    let devices = await engine.deviceCount
    let fences = await engine.fences
    let shown = host.contains(":") ? "[\(host)]" : host
    let version = fences.row == 0 ? "as in \(regions)" : "version \(fences.row), changed since \(regions)"
    let banner = "\(fences.regions.count) regions (\(version)), platform \(platformName.rawValue), \(devices) devices restored from \(data)"
    // SIGINT or SIGTERM: no new connections, streams and long polls end (readers resume from
    // their last id elsewhere), batches in flight are answered, then a last checkpoint; a second
    // signal ends the process at once (nothing is lost either way: the log replays).
    let notifier = engine.notifier
    Interrupts.handOver([SIGINT, SIGTERM]) {
      Diagnostics.error("geowake serve: stopping: batches in flight are answered, then the device states checkpointed (a second signal stops at once)")
      notifier.close()
    }
    var bridgeTask: Task<Void, Never>?
    if let nats {
      let bridge: NATSBridge
      do { bridge = try NATSBridge(engine: engine, dataDirectory: data, options: NATSOptions(url: nats)) } catch {
        Diagnostics.error("\(data): error: \(error)")
        throw SysExit.cannotCreate
      }
      bridgeTask = Task {
        do { try await bridge.run() } catch { Diagnostics.error("geowake serve: NATS: \(error)") }
      }
    }
    defer { bridgeTask?.cancel() }
    do {
      try await server.run(onRunning: { bound in
        Diagnostics.error("geowake serve: listening on http://\(shown):\(bound) — \(banner)")
      }, onAPNsRunning: { bound in
        guard let endpoint else { return }
        let apnsHost = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        let scheme = endpoint.transport == .tls ? "https" : "http"
        var line = "geowake serve: APNs endpoint on \(scheme)://\(apnsHost):\(bound) (\(endpoint.transport.rawValue))"
        if let tls = endpoint.tls { line += ", certificate \(tls.certificatePath)\(tls.made ? " (self-signed, made now)" : "")" }
        line += endpoint.devices.clock.isSimulated ? ", simulated clock (POST /v1/clock moves it)" : ", real time"
        Diagnostics.error(line)
      })
      await bridgeTask?.value
      Diagnostics.error("geowake serve: stopped; the device states are checkpointed in \(data)")
    } catch {
      Diagnostics.error("geowake serve: \(error)")
      throw SysExit.ioError
    }
  }
}
#endif
