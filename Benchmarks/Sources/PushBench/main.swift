// geowake-push-bench [REQUESTS] [REPEAT]
//
// Times the APNs model (issue #7's bars): REQUESTS (default 1,000,000) seeded provider requests —
// silent pushes (70 %), alerts at priority 10 and 5, alerts with collapse IDs and expirations, a
// few malformed ones — one every 0-20 s, with the device offline 10 % of the time and in Low Power
// Mode 10 %. Prints (best of REPEAT):
//   parse:    payload bytes parsed per second (NotificationPayload, strict, typed aps);
//   validate: requests validated per second (APNsValidator: headers, token, payload);
//   simulate: requests validated and scheduled per second (PushSimulation.run, app wakes included).
import BackgroundRuntime
import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

enum ProcessInfoLite {
  static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
import SyntheticData

var random = SeededGenerator(seed: 20_240_501)
let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let token = "11aa01229f15f0f0c52029d8cf8cd0aeaf2365fe4cebc4af26cd6d76b7919ef7"
let payloads: [[UInt8]] = [
  #"{"aps":{"content-available":1},"feed":"sports","seq":12345}"#,
  #"{"aps":{"alert":{"title":"Breaking news","body":"Markets open higher after a quiet night in Asia"},"sound":"default","badge":3,"thread-id":"markets"},"article":{"id":"a-20240501-0800","section":"business"}}"#,
  #"{"aps":{"alert":"Score update: 2-1","interruption-level":"time-sensitive","relevance-score":0.8}}"#,
  #"{"aps":{"content-available":1,"mutable-content":1,"category":"NEW_MESSAGE"},"message":{"from":"Jenna","preview":"Are we still on for lunch? \u00e9t\u00e9 \ud83d\ude00"}}"#,
].map { Array($0.utf8) }
var requests: [ProviderRequest] = []
requests.reserveCapacity(count)
var t = 1_714_550_400.0
for k in 0..<count {
  t += Double(random.next() % 21)
  let roll = random.next() % 100
  var headers: [ProviderRequest.Header] = [.init("apns-topic", "com.example.news")]
  let body: [UInt8]
  if roll < 70 {
    headers += [.init("apns-push-type", "background"), .init("apns-priority", "5")]
    body = random.next() % 2 == 0 ? payloads[0] : payloads[3]
  } else if roll < 85 {
    headers += [.init("apns-push-type", "alert"), .init("apns-priority", "10"), .init("apns-id", "84DB694F-464F-49BD-960A-D6DB028335C9")]
    body = payloads[1]
  } else if roll < 98 {
    headers += [.init("apns-push-type", "alert"), .init("apns-priority", "5"), .init("apns-collapse-id", "score"), .init("apns-expiration", "\(Int(t) + 3_600)")]
    body = payloads[2]
  } else {
    headers += [.init("apns-push-type", "background"), .init("apns-priority", "10")]
    body = payloads[0]
  }
  requests.append(ProviderRequest(time: t, token: k % 1_000 == 999 ? "xyz" : token, headers: headers, payload: body))
}
var intervals: [DeviceConditions.Interval] = []
var c = 1_714_550_400.0
while c < t {
  c += Double(random.next() % 36_000)
  let condition: DeviceCondition = random.next() % 2 == 0 ? .offline : .lowPowerMode
  let length = Double(random.next() % 7_200)
  intervals.append(.init(start: c, end: c + length, condition: condition))
  c += length
}
let device = PushDevice(conditions: DeviceConditions(intervals), handler: HandlerBehaviour(work: 3, variation: 0.5))
let payloadBytes = requests.reduce(0) { $0 + ($1.payload?.count ?? 0) }

// The bodies on their own, so that timing the parser does not also time copying requests.
let bodies = requests.map { $0.payload ?? [] }

@MainActor @inline(never)
func parseAll() -> (Double, Int) {
  var aps = 0
  let start = DispatchTime.now().uptimeNanoseconds
  for k in bodies.indices {
    bodies[k].withUnsafeBufferPointer { b in
      if let p = try? NotificationPayload(parsing: b) { aps &+= p.aps.members.count }
    }
  }
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, aps)
}

@MainActor @inline(never)
func validateAll() -> (Double, Int) {
  var v = APNsValidator(deviceToken: token, topic: "com.example.news")
  var accepted = 0
  let start = DispatchTime.now().uptimeNanoseconds
  for r in requests { if case .success = v.validate(r) { accepted += 1 } }
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, accepted)
}

@MainActor @inline(never)
func simulate() -> (Double, Int) {
  let start = DispatchTime.now().uptimeNanoseconds
  let run = PushSimulation(requests: requests, device: device).run()
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  return (seconds, run.outcomes.lazy.filter { $0.deliveredAt != nil }.count)
}

// GEOWAKE_TASK=parse|validate|simulate runs one task only (for profiling).
let only = ProcessInfoLite.environment("GEOWAKE_TASK")
for (name, task) in [("parse", parseAll), ("validate", validateAll), ("simulate", simulate)] where only == nil || only == name {
  var best = (Double.infinity, 0)
  for _ in 0..<repeats {
    let r = task()
    if r.0 < best.0 { best = r }
  }
  let rate = name == "parse" ? "payload_MB_per_s=\(Double(payloadBytes) / best.0 / 1e6)" : "requests_per_s=\(Double(count) / best.0)"
  print("task=\(name) requests=\(count) payload_bytes=\(payloadBytes) result=\(best.1) s=\(best.0) \(rate)")
}
