/// A queue of timed items, popped in time order; items at the same time come out in the order
/// of their ``EventQueue/Entry/rank`` (lower first), then in the order they were pushed. No
/// randomness, no hashing: the same pushes give the same pops. Inlinable, so that a client's queue
/// of its own items is specialized (no generic calls per push and pop).
public struct EventQueue<Item> {
  public struct Entry {
    public var time: Double
    /// Tie-breaker between items at the same time (see the runtime's documentation).
    public var rank: Int
    public var sequence: Int
    public var item: Item

    @inlinable
    init(time: Double, rank: Int, sequence: Int, item: Item) {
      self.time = time
      self.rank = rank
      self.sequence = sequence
      self.item = item
    }
  }

  @usableFromInline var heap: [Entry] = []
  @usableFromInline var pushed = 0

  @inlinable public init() {}

  @inlinable public var isEmpty: Bool { heap.isEmpty }
  @inlinable public var count: Int { heap.count }
  /// The earliest entry, if any.
  @inlinable public var first: Entry? { heap.first }
  /// The earliest entry's time, if any (without a copy of its item).
  @inlinable public var firstTime: Double? { heap.isEmpty ? nil : heap[0].time }
  /// Items pushed so far: the next one's sequence number.
  @inlinable public var pushedCount: Int { pushed }

  @inlinable
  public mutating func push(_ item: Item, at time: Double, rank: Int) {
    heap.append(Entry(time: time, rank: rank, sequence: pushed, item: item))
    pushed += 1
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard Self.before(heap[child], heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  @inlinable
  public mutating func pop() -> Entry? {
    guard !heap.isEmpty else { return nil }
    heap.swapAt(0, heap.count - 1)
    let top = heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { break }
      var child = left
      if left + 1 < heap.count && Self.before(heap[left + 1], heap[left]) { child = left + 1 }
      guard Self.before(heap[child], heap[parent]) else { break }
      heap.swapAt(child, parent)
      parent = child
    }
    return top
  }

  /// Whether the entries form a heap in pop order with finite times and sequence numbers below
  /// the count pushed: what a decoded queue must be before it is trusted.
  public var isConsistent: Bool {
    for (k, e) in heap.enumerated() {
      guard e.time.isFinite, e.sequence >= 0, e.sequence < pushed else { return false }
      if k > 0, Self.before(e, heap[(k - 1) / 2]) { return false }
    }
    return true
  }

  @inlinable @inline(__always)
  static func before(_ a: Entry, _ b: Entry) -> Bool {
    (a.time, a.rank, a.sequence) < (b.time, b.rank, b.sequence)
  }
}

extension EventQueue: Sendable where Item: Sendable {}
extension EventQueue.Entry: Sendable where Item: Sendable {}
extension EventQueue.Entry: Codable where Item: Codable {}
extension EventQueue.Entry: Hashable where Item: Hashable {}
extension EventQueue.Entry: Equatable where Item: Equatable {}

extension EventQueue: Equatable where Item: Equatable {
  public static func == (a: Self, b: Self) -> Bool { a.heap == b.heap && a.pushed == b.pushed }
}

extension EventQueue: Hashable where Item: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(heap)
    hasher.combine(pushed)
  }
}

extension EventQueue: Codable where Item: Codable {
  private enum CodingKeys: String, CodingKey { case heap, pushed }

  /// Encoded as its heap, in place: a restored queue pops in the same order.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(heap, forKey: .heap)
    try container.encode(pushed, forKey: .pushed)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    heap = try container.decode([Entry].self, forKey: .heap)
    pushed = try container.decode(Int.self, forKey: .pushed)
  }
}
