public import BackgroundRuntime

/// The events of a timeline not yet released, in the order they are released: by time, then in
/// the order they were made (the runtime's one queue of timed items).
struct TimelineOrder: Sendable, Codable, Hashable {
  private(set) var queue = EventQueue<TimelineEvent>()

  var isEmpty: Bool { queue.isEmpty }
  /// The time of the next event to release.
  var first: Double? { queue.first?.time }

  mutating func add(_ event: TimelineEvent) { queue.push(event, at: event.time, rank: 0) }

  /// Appends to `events`, in order, every event earlier than `time`.
  mutating func release(before time: Double, into events: inout [TimelineEvent]) {
    while let top = queue.first, top.time < time, let entry = queue.pop() { events.append(entry.item) }
  }
}
