import Geofencing

extension RegionFileReader {
  /// Polygons handed from the reading thread to the checking one at a time.
  static let checkBatchSize = 1_024

  /// What the reading thread handed over: polygons to check, and after the last of them the
  /// outcome of the whole read.
  struct CheckBatch {
    var polygons: [PolygonRegion] = []
    var outcome: Result<RegionFile, TrackIOError>?
  }

  /// The reading thread's side of ``readChecking(path:chunk:batchSize:_:)``.
  final class CheckingProducer: @unchecked Sendable {
    let channel: BatchChannel<CheckBatch>
    let path: String
    let chunk: Int
    let batchSize: Int

    init(path: String, chunk: Int, batchSize: Int, channel: BatchChannel<CheckBatch>) {
      self.path = path
      self.chunk = chunk
      self.batchSize = batchSize
      self.channel = channel
    }

    /// The reading thread: reads the file, handing every polygon over as its check would see it,
    /// then the outcome; gives up at the next polygon once the caller stopped.
    func produce() {
      guard var batch = channel.batchToFill() else { return }
      batch.polygons.removeAll(keepingCapacity: true)
      batch.outcome = nil
      var stopped = false
      let (channel, batchSize) = (channel, batchSize)
      let outcome: Result<RegionFile, TrackIOError>
      do throws(TrackIOError) {
        let file = try RegionFileReader.read(
          path: path,
          checkPolygon: { (polygon) throws(RegionError) in
            // Nothing more is wanted: end the read where it stands.
            if stopped { throw RegionError(identifier: polygon.identifier.rawValue, reason: .emptyPolygon) }
            batch.polygons.append(polygon)
            guard batch.polygons.count >= batchSize else { return }
            channel.hand(batch)
            guard let next = channel.batchToFill() else {
              stopped = true
              throw RegionError(identifier: polygon.identifier.rawValue, reason: .emptyPolygon)
            }
            batch = next
            batch.polygons.removeAll(keepingCapacity: true)
            batch.outcome = nil
          }, shortcut: true, chunk: chunk)
        outcome = .success(file)
      } catch {
        outcome = .failure(error)
      }
      guard !stopped else { return }
      batch.outcome = outcome
      channel.hand(batch)
    }
  }

  /// ``read(path:checkPolygon:)`` with the reading (a thread of its own) and the checking (the
  /// caller's thread) side by side: the polygons go to `check` in file order, a batch at a time,
  /// while the file is read further.
  ///
  /// The result is the one-thread read's, errors included: a polygon `check` refuses stops the
  /// reading thread, and the file is read again on one thread, which reports the first problem
  /// exactly where it lies (a reading error before that polygon comes first, as it would).
  static func readChecking(
    path: String, chunk: Int = JSONChunkReader.chunk, batchSize: Int = checkBatchSize, _ check: @escaping PolygonCheck
  )
    throws(TrackIOError) -> RegionFile
  {
    // Every batch's array is made here, on the caller's thread (see ``BatchChannel``).
    let ahead = 3
    var batches: [CheckBatch] = []
    for _ in 0...ahead {
      var batch = CheckBatch()
      batch.polygons.reserveCapacity(batchSize)
      batches.append(batch)
    }
    let channel = BatchChannel(batches: batches, ahead: ahead) { CheckBatch() }
    defer { channel.stop() }
    let producer = CheckingProducer(path: path, chunk: chunk, batchSize: batchSize, channel: channel)
    BatchChannel<CheckBatch>.startThread(named: "geowake region reader") { producer.produce() }
    var batch = CheckBatch()
    while true {
      channel.exchange(&batch)
      for polygon in batch.polygons {
        do throws(RegionError) { try check(polygon) } catch {
          channel.stop()
          return try read(path: path, checkPolygon: check, shortcut: true, chunk: chunk)
        }
      }
      if let outcome = batch.outcome { return try outcome.get() }
    }
  }
}
