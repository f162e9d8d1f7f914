// geowake-runtime-bench [EVENTS] [REPEAT]
//
// Times the background runtime: EVENTS (default 1,000,000) seeded system events — location
// events, fetches, notifications, user sessions, force-quits, one every 0-120 s — through an
// AppRuntime with varying handlers and background tasks; prints the timeline events produced per
// second (best of REPEAT).
import BackgroundRuntime
import Dispatch

var state: UInt64 = 20_240_501
func next(_ state: inout UInt64) -> UInt64 {
  state &+= 0x9E37_79B9_7F4A_7C15
  var z = state
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return z ^ (z >> 31)
}

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
var events: [SystemEvent] = []
events.reserveCapacity(count)
var t = 1_700_000_000.0
for _ in 0..<count {
  t += Double(next(&state) % 120)
  let roll = next(&state) % 100
  let kind: SystemEvent.Kind =
    roll < 70 ? .location : roll < 85 ? .fetch : roll < 95 ? .remoteNotification : roll < 99 ? .userSession(duration: Double(next(&state) % 300)) : .forceQuit
  events.append(SystemEvent(time: t, kind: kind))
}
let behaviours: [LaunchReason: HandlerBehaviour] = [
  .location: HandlerBehaviour(work: 4, backgroundTask: 20, variation: 0.5),
  .fetch: HandlerBehaviour(work: 15, backgroundTask: 32, endsTaskOnExpiration: false, variation: 0.5),
  .remoteNotification: HandlerBehaviour(work: 8, variation: 1),
]

@inline(never)
func run(_ events: [SystemEvent], _ behaviours: [LaunchReason: HandlerBehaviour]) -> (Double, Int) {
  var runtime = AppRuntime(profile: .ios, behaviours: behaviours, seed: 7)
  var out: [RuntimeEvent] = []
  out.reserveCapacity(events.count * 8)
  let start = DispatchTime.now().uptimeNanoseconds
  for e in events { runtime.schedule(e) }
  runtime.run(into: &out)
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, out.count)
}

var best = (Double.infinity, 0)
for _ in 0..<repeats {
  let r = run(events, behaviours)
  if r.0 < best.0 { best = r }
}
print("task=runtime system_events=\(count) timeline_events=\(best.1) run_s=\(best.0) timeline_events_per_s=\(Double(best.1) / best.0)")
