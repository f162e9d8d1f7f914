public import BackgroundRuntime

/// The events of a timeline not yet released, in the order they are released: by time, then in
/// the order they were made. Most events come in time order (a fix's events are no earlier than
/// the last one's): those wait in a first-in first-out run, the others in a heap (the runtime's
/// one queue of timed items), and a release merges the two.
struct TimelineOrder: Sendable, Codable, Hashable {
  struct Entry: Sendable, Codable, Hashable {
    var time: Double
    var sequence: Int
    var event: TimelineEvent
  }

  /// Events in time order, from `head` on.
  private(set) var run: [Entry] = []
  private(set) var head = 0
  private(set) var queue = EventQueue<TimelineEvent>()
  /// Events made so far: the next one's sequence number.
  private(set) var made = 0

  var isEmpty: Bool { head == run.count && queue.isEmpty }

  /// The time of the next event to release.
  var first: Double? {
    let fromRun = head < run.count ? run[head].time : nil
    guard let fromQueue = queue.firstTime else { return fromRun }
    return fromRun.map { min($0, fromQueue) } ?? fromQueue
  }

  mutating func add(_ event: TimelineEvent) {
    let time = event.time
    if queue.isEmpty, run.last.map({ $0.time <= time }) ?? true {
      run.append(Entry(time: time, sequence: made, event: event))
    } else {
      // Out of order: into the heap, whose sequence numbers are the same ones (a tie with the run
      // goes to the earlier-made event).
      queue.push(event, at: time, rank: made)
    }
    made += 1
  }

  /// Appends to `events`, in order, every event earlier than `time`.
  mutating func release(before time: Double, into events: inout [TimelineEvent]) {
    while true {
      let fromRun = head < run.count && run[head].time < time
      let fromQueue = (queue.firstTime.map { $0 < time } ?? false)
      guard fromRun || fromQueue else { break }
      if fromRun, !fromQueue || Self.runFirst(run[head], queue) {
        events.append(run[head].event)
        head += 1
      } else if let entry = queue.pop() {
        events.append(entry.item)
      }
    }
    if head == run.count {
      run.removeAll(keepingCapacity: true)
      head = 0
    } else if head > 4_096 && head * 2 > run.count {
      run.removeFirst(head)
      head = 0
    }
  }

  /// Whether the run's next event goes before the heap's (time, then the order made; the heap's
  /// rank is the order made).
  private static func runFirst(_ entry: Entry, _ queue: EventQueue<TimelineEvent>) -> Bool {
    guard let first = queue.first else { return true }
    return (entry.time, entry.sequence) < (first.time, first.rank)
  }

  /// Whether it is what a decoded snapshot must be: the run in time order with the cursor within
  /// it, the heap a heap, every time finite and every sequence number below the count made.
  var isConsistent: Bool {
    let pending = run[min(head, run.count)...]
    return head >= 0 && head <= run.count && queue.isConsistent && pending.allSatisfy { $0.time.isFinite && $0.sequence < made && $0.sequence >= 0 }
      && zip(pending, pending.dropFirst()).allSatisfy { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
      && queue.pushedCount <= made
  }
}
