import Dispatch
import Foundation
import TrackIO

/// What the tool does when it is interrupted: SIGINT (Ctrl-C), SIGTERM or SIGHUP remove the
/// temporary file of every output not yet committed, so that no partial file is left, and end the
/// process with status 128 + the signal's number (130, 143, 129), as a shell reports it.
enum Interrupts {
  /// Kept for the life of the process: a released source stops delivering.
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

  /// Installs the handlers, and removes unfinished outputs at any exit as well.
  static func removeUnfinishedOutputsOnExit() {
    atexit { ByteSink.removeUnfinishedOutputs() }
    let queue = DispatchQueue(label: "geowake.interrupts")
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      // The default action would end the process before the handler runs.
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
      source.setEventHandler {
        ByteSink.removeUnfinishedOutputs()
        _exit(128 + signalNumber)
      }
      source.resume()
      sources.append(source)
    }
  }
}
