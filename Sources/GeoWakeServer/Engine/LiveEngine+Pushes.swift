#if Server
import BackgroundRuntime
import GeoWakeReports

/// The APNs endpoint's devices (``PushDevices``, ``PushBook``): each input taken, stored with
/// the steps it released in one transaction, and put on the event stream, one at a time with the
/// fixes.
extension LiveEngine {
  /// Sets the push devices up and replays the inputs stored.
  /// - Returns: the latest time among them (-∞ without any): a simulated clock resumes there.
  func startPushes(_ setup: PushBook.Setup, fingerprint: String) throws -> Double {
    try store.adoptPushSetup(fingerprint)
    let (book, latest) = try Self.replayPushes(setup, store: store)
    pushBook = book
    return latest
  }

  static func replayPushes(_ setup: PushBook.Setup, store: EngineStore) throws -> (PushBook, Double) {
    var book = PushBook(setup)
    var latest = -Double.infinity
    var discarded: PushBook.Steps = []
    for input in try store.pushInputs() {
      discarded.removeAll(keepingCapacity: true)
      switch input {
      case .request(let r):
        _ = PushBook.take(r, &book.state, setup, &discarded)
        latest = max(latest, r.time)
      case .run(let time):
        PushBook.run(until: time, &book.state, &discarded)
        latest = max(latest, time)
      case .end(let token, let time):
        PushBook.end(token, at: time, &book.state, &discarded)
        latest = max(latest, time)
      }
    }
    return (book, latest)
  }

  /// Takes requests in order, stores them and what they released in one transaction (a group
  /// commit: requests that arrive while one is written wait for the next), and answers each.
  func pushRequests(_ requests: [EngineStore.PushLogRequest]) throws -> [PushBook.Answer] {
    var answers: [PushBook.Answer] = []
    var reasons: [String] = []
    answers.reserveCapacity(requests.count)
    reasons.reserveCapacity(requests.count)
    try changePushes { book in
      var taken: [(EngineStore.PushInput, PushBook.Steps)] = []
      taken.reserveCapacity(requests.count)
      for request in requests {
        var steps: PushBook.Steps = []
        let (answer, reason) = PushBook.take(request, &book.state, book.setup, &steps)
        answers.append(answer)
        reasons.append(reason)
        taken.append((.request(request), steps))
      }
      return taken
    }
    for (answer, reason) in zip(answers, reasons) { pushBook?.answered["\(answer.status) \(reason)", default: 0] += 1 }
    return answers
  }

  func pushTooLarge(_ request: ProviderRequest) -> PushBook.Answer {
    let rejection = pushBook!.state.doorman.refuse(
      request, PushRejection(.payloadTooLarge, "the body is larger than \(APNsEndpoint.bodyLimit) bytes"))
    pushBook?.answered["\(rejection.status) \(rejection.reason.rawValue)", default: 0] += 1
    return PushBook.answer(rejection)
  }

  /// Every push device to `time`; stored even without steps when `always` (a simulated clock's
  /// move, so that a restart resumes it there).
  func pushRun(until time: Double, always: Bool) throws {
    guard pushBook != nil else { return }
    try changePushes { book in
      var steps: PushBook.Steps = []
      PushBook.run(until: time, &book.state, &steps)
      return steps.isEmpty && !always ? [] : [(.run(until: time), steps)]
    }
  }

  func pushReport(device name: String) -> String? { pushBook?.report(device: name) }

  func pushEnd(device name: String, at time: Double) throws -> Bool? {
    // Looked up without a copy of the book held past here (changePushes changes it in place).
    guard let token = pushBook?.state.named[name], let ended = pushBook?.state.phones[token]?.ended else { return nil }
    guard !ended else { return false }
    try changePushes { book in
      var steps: PushBook.Steps = []
      PushBook.end(token, at: time, &book.state, &steps)
      return [(.end(token: token, at: time), steps)]
    }
    return true
  }

  /// Changes the push devices' state in place (a copy kept for a rollback would copy each
  /// device's storage at its first change, and the devices' table, for every group) and stores
  /// the inputs `change` took, with their steps, in one transaction. When the store fails, the
  /// state is rebuilt from the inputs stored, which the failed ones are not among; when even that
  /// fails, every later input is refused with the store's error.
  func changePushes(_ change: (inout PushBook) -> [(EngineStore.PushInput, PushBook.Steps)]) throws {
    guard var book = pushBook.take() else { preconditionFailure("the push devices are started before the endpoint serves") }
    if let failure = book.failure {
      pushBook = book
      throw failure
    }
    let taken = change(&book)
    guard !taken.isEmpty else {
      pushBook = book
      return
    }
    do {
      try record(taken)
    } catch {
      var restored: PushBook
      do {
        restored = try Self.replayPushes(book.setup, store: store).0
      } catch let failure {
        restored = PushBook(book.setup)
        restored.failure = failure as? StoreError ?? StoreError(message: "the push devices cannot be rebuilt: \(failure)", code: 1)
      }
      restored.answered = book.answered
      pushBook = restored
      throw error
    }
    pushBook = book
  }

  /// Stores the inputs with their steps in one transaction and puts the steps on the stream.
  func record(_ taken: [(EngineStore.PushInput, PushBook.Steps)]) throws {
    var answer = IngestAnswer()
    var tally = EngineMetrics()
    do {
      try store.begin()
      for (input, steps) in taken {
        try store.appendPushInput(input)
        for (device, entries) in steps {
          for entry in entries {
            let (type, body) = lines.line(entry, device: device)
            answer.lastSequence = try store.appendEvent(device: device, body: body)
            answer.events += 1
            tally.events[type, default: 0] += 1
          }
        }
      }
      try store.commit()
    } catch {
      store.rollback()
      throw error
    }
    publish(tally, answer: answer, started: nil)
  }

  /// Runs SQL on the store as it is (a test's way to make it fail, `PRAGMA query_only`).
  func executeOnStore(_ sql: String) throws { try store.connection.execute(sql) }
}
#endif
