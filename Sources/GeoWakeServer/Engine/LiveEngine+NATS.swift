#if Server
extension LiveEngine {
  /// The last event published to NATS JetStream (0: none yet).
  public func publishedToNATS() throws(StoreError) -> Int64 { try store.position(.natsPublished) }

  /// Notes that the events through `seq` are stored in JetStream.
  func notePublishedToNATS(through seq: Int64, count: Int) throws(StoreError) {
    try store.setPosition(.natsPublished, seq)
    metrics.natsPublished += count
  }

  /// The stream sequence of the last fix message used (0: none yet).
  public func natsFixesUsed() throws(StoreError) -> UInt64 { UInt64(try store.position(.natsFixesUsed)) }

  /// Notes a batch of fix messages used, through stream sequence `last`.
  func noteNATS(fixes: Int, rejected: Int, through last: UInt64) throws(StoreError) {
    if last > 0 { try store.setPosition(.natsFixesUsed, Int64(last)) }
    metrics.natsFixes += fixes
    metrics.natsRejected += rejected
  }
}
#endif
