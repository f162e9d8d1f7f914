// geowake-runtime-bench [EVENTS] [REPEAT]
//
// Times the background runtime: EVENTS (default 1,000,000) seeded system events — location
// events, fetches, notifications, user sessions, force-quits, one every 0-120 s — through an
// AppRuntime with varying handlers and background tasks; prints the timeline events produced per
// second (best of REPEAT).
import BackgroundRuntime
import Dispatch
import SyntheticData

var random = SeededGenerator(seed: 20_240_501)

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
var events: [SystemEvent] = []
events.reserveCapacity(count)
var t = 1_700_000_000.0
for _ in 0..<count {
  t += Double(random.next() % 120)
  let roll = random.next() % 100
  let kind: SystemEvent.Kind =
    roll < 70 ? .location : roll < 85 ? .fetch : roll < 95 ? .remoteNotification : roll < 99 ? .userSession(duration: Double(random.next() % 300)) : .forceQuit
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
