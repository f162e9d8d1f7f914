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
    guard var book = pushBook else { preconditionFailure("the push devices are started before the endpoint serves") }
    var answers: [PushBook.Answer] = []
    var reasons: [String] = []
    var taken: [(EngineStore.PushInput, PushBook.Steps)] = []
    answers.reserveCapacity(requests.count)
    for request in requests {
      var steps: PushBook.Steps = []
      let (answer, reason) = PushBook.take(request, &book.state, book.setup, &steps)
      answers.append(answer)
      reasons.append(reason)
      taken.append((.request(request), steps))
    }
    try record(taken, book)
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
    guard var book = pushBook else { return }
    var steps: PushBook.Steps = []
    PushBook.run(until: time, &book.state, &steps)
    if steps.isEmpty && !always {
      pushBook = book
      return
    }
    try record([(.run(until: time), steps)], book)
  }

  func pushReport(device name: String) -> String? { pushBook?.report(device: name) }

  func pushEnd(device name: String, at time: Double) throws -> Bool? {
    guard var book = pushBook, let token = book.state.named[name], let phone = book.state.phones[token] else { return nil }
    guard !phone.ended else { return false }
    var steps: PushBook.Steps = []
    PushBook.end(token, at: time, &book.state, &steps)
    try record([(.end(token: token, at: time), steps)], book)
    return true
  }

  /// Stores the inputs with their steps and takes `book` as the devices' state; when the store
  /// fails, the state stays as it was (no input is taken).
  func record(_ taken: [(EngineStore.PushInput, PushBook.Steps)], _ book: PushBook) throws {
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
    pushBook = book
    publish(tally, answer: answer, started: nil)
  }
}
#endif
