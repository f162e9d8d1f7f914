/// Runs one piece of work per input on up to `jobs` tasks at once and hands the results over in
/// the order of the inputs: the shape of a many-device run, where each device is analysed on its
/// own and the output must not depend on how many workers there were.
///
/// ```swift
/// var devices = deviceFiles.makeIterator()
/// try await OrderedParallelMap.run(inputs: &devices, jobs: 8) { path in
///   analyse(path)  // runs concurrently, on its own copy of everything it changes
/// } emit: { output in
///   try write(output)  // runs on the caller, in input order
/// }
/// ```
///
/// **Bounded.** Inputs are drawn from the iterator only as work is started, at most `jobs` run at
/// once, and a result that finishes ahead of its turn waits for at most `lookahead` inputs
/// before it; so memory holds at most `jobs + lookahead` inputs and results, whatever the number
/// of inputs. A slow input holds back the start of inputs `lookahead` beyond it, not the others
/// already running.
public enum OrderedParallelMap {
  /// - Parameters:
  ///   - inputs: drawn on the caller's task as work starts (it may read a file to make them).
  ///   - jobs: how many run at once (at least 1).
  ///   - lookahead: how far past the oldest unfinished input work may start (default `2 × jobs`,
  ///     at least `jobs`).
  ///   - work: the work on one input; it must not share mutable state with any other.
  ///   - emit: takes the results in input order; an error from it stops the run (work under way
  ///     is cancelled) and is rethrown.
  public static func run<Inputs: IteratorProtocol, Output: Sendable>(
    inputs: inout Inputs, jobs: Int, lookahead: Int? = nil,
    work: @escaping @Sendable (Inputs.Element) -> Output,
    emit: (Output) throws -> Void
  ) async throws where Inputs.Element: Sendable {
    let jobs = max(1, jobs)
    let lookahead = max(jobs, lookahead ?? 2 * jobs)
    try await withThrowingTaskGroup(of: (Int, Output).self) { group in
      var finished: [Int: Output] = [:]
      var started = 0
      var emitted = 0
      var running = 0
      var exhausted = false
      while true {
        while !exhausted && running < jobs && started < emitted + lookahead {
          guard let input = inputs.next() else {
            exhausted = true
            break
          }
          let index = started
          group.addTask { (index, work(input)) }
          started += 1
          running += 1
        }
        guard running > 0, let (index, output) = try await group.next() else { break }
        running -= 1
        finished[index] = output
        while let next = finished.removeValue(forKey: emitted) {
          try emit(next)
          emitted += 1
        }
      }
    }
  }
}
