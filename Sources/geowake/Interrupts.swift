import Dispatch
import Foundation
import TrackIO

/// What the tool does when it is interrupted: SIGINT (Ctrl-C), SIGTERM or SIGHUP remove the
/// temporary file of every output not yet committed, so that no partial file is left, and end the
/// process with status 128 + the signal's number (130, 143, 129), as a shell reports it. A command
/// that shuts down by itself (`geowake serve`) takes the first SIGINT or SIGTERM over
/// (``handOver(_:then:)``); a second one ends the process at once.
enum Interrupts {
  /// Kept for the life of the process: a released source stops delivering.
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
  private static let queue = DispatchQueue(label: "geowake.interrupts")
  /// The signals handed over, what to do at the first, and whether it came (touched on `queue` only).
  nonisolated(unsafe) private static var handedOver: Set<Int32> = []
  nonisolated(unsafe) private static var onFirst: (@Sendable () -> Void)?
  nonisolated(unsafe) private static var stopping = false

  /// From now on the first of `signals` runs `then` and leaves the process running (the command
  /// stops by itself); another after it ends the process as any interrupt does.
  static func handOver(_ signals: Set<Int32>, then: @escaping @Sendable () -> Void) {
    queue.sync {
      handedOver = signals
      onFirst = then
    }
  }

  /// Installs the handlers, and removes unfinished outputs at any exit as well.
  static func removeUnfinishedOutputsOnExit() {
    atexit { ByteSink.removeUnfinishedOutputs() }
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      // The default action would end the process before the handler runs.
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
      source.setEventHandler {
        if handedOver.contains(signalNumber), !stopping, let onFirst {
          stopping = true
          onFirst()
          return
        }
        ByteSink.removeUnfinishedOutputs()
        _exit(128 + signalNumber)
      }
      source.resume()
      sources.append(source)
    }
  }
}
