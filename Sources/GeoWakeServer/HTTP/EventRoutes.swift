#if Server
import Foundation
import Geofencing
import Hummingbird
import NIOCore
import TrackIO

extension LiveServer {
  /// The most events a long poll answers, and a stream sends in one page.
  static let largestPage = 10_000
  /// The longest a long poll waits, seconds.
  static let longestWait = 60.0

  /// `GET /v1/events`: a JSON long poll when `limit` or `wait` is given (or JSON is asked for),
  /// otherwise Server-Sent Events; either from `Last-Event-ID`, or `?after=` without one.
  func events(_ request: Request) async throws -> Response {
    let query = request.uri.queryParameters
    func integer(_ name: String) throws -> Int64? {
      guard let text = query[name[...]] else { return nil }
      guard let value = Int64(text), value >= 0 else {
        throw HTTPError(.badRequest, message: "?\(name)=\(text): expected a whole number ≥ 0")
      }
      return value
    }
    var after = try integer("after") ?? 0
    // A client resuming (an EventSource reconnecting) names the last event it has: it wins over
    // the ?after= of the address it was first given.
    if let last = request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value {
      guard let value = Int64(last), value >= 0 else {
        throw HTTPError(.badRequest, message: "Last-Event-ID: \(last): expected the id of an event (a whole number ≥ 0)")
      }
      after = value
    }
    let device = query["device"].map(String.init)
    let limit = try integer("limit")
    let waitText = query["wait"]
    var wait = 0.0
    if let waitText {
      guard let w = Double(waitText), w >= 0, w <= Self.longestWait else {
        throw HTTPError(.badRequest, message: "?wait=\(waitText): expected seconds in 0...\(Int(Self.longestWait))")
      }
      wait = w
    }
    let accept = request.headers[.accept] ?? ""
    let stream = limit == nil && waitText == nil && !accept.contains("application/json")
    if !stream {
      let count = Int(limit ?? 1_000)
      guard (1...Int64(Self.largestPage)).contains(Int64(count)) else {
        throw HTTPError(.badRequest, message: "?limit=\(count): expected 1...\(Self.largestPage)")
      }
      // Events up to the latest published before a query are all visible to it (they are
      // committed before they are published), so a device's poll can skip past them.
      var seen = engine.notifier.latest
      var page = try await log.events(after: after, limit: count, device: device)
      if page.isEmpty && wait > 0 {
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while page.isEmpty && ContinuousClock.now < deadline && !engine.notifier.isClosed {
          if device != nil { after = max(after, seen) }
          await engine.notifier.wait(after: max(after, seen), timeout: deadline - ContinuousClock.now)
          seen = engine.notifier.latest
          page = try await log.events(after: after, limit: count, device: device)
        }
      }
      let next = page.last?.seq ?? after
      let body = "{\"events\":[" + page.map(\.line).joined(separator: ",") + "],\"next\":\(next)}"
      return Self.json(body)
    }
    let log = self.log
    let notifier = engine.notifier
    let start = after
    let body = ResponseBody { writer in
      var cursor = start
      try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
      // Until the reader goes or the server shuts down (the reader reconnects from its last id).
      while !Task.isCancelled && !notifier.isClosed {
        // One page at a time: a slow reader holds the loop back at its write, so no more than a
        // page is ever buffered for it; it resumes from its last id.
        let before = notifier.latest
        let page = try await log.events(after: cursor, limit: 500, device: device)
        if page.isEmpty {
          if device != nil { cursor = max(cursor, before) }
          await notifier.wait(after: max(cursor, before), timeout: .seconds(15))
          if notifier.latest <= max(cursor, before) { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
          continue
        }
        var text = ""
        for (seq, line) in page { text += "id: \(seq)\nevent: geowake\ndata: \(line)\n\n" }
        try await writer.write(ByteBuffer(string: text))
        cursor = page.last!.seq
      }
      try await writer.finish(nil)
    }
    return Response(
      status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
  }
}

/// The fence set as a GeoJSON FeatureCollection (as `geowake regions --format geojson` writes it),
/// with its version (the log row of the last change; 0: the regions file) as a foreign member.
enum RegionsDocument {
  static func json(_ regions: [Region], version: Int64) -> String {
    let sink = ByteSink.inMemory()
    try? sink.write("{\"type\":\"FeatureCollection\",\"version\":\(version),\"features\":[\n")
    for (k, region) in regions.enumerated() {
      if k > 0 { try? sink.write(",\n") }
      try? RegionWriter.writeFeature(region, to: sink)
    }
    try? sink.write("\n]}\n")
    return String(decoding: sink.takeBytes(), as: UTF8.self)
  }

  static func feature(_ region: Region) -> String {
    let sink = ByteSink.inMemory()
    try? RegionWriter.writeFeature(region, to: sink)
    return String(decoding: sink.takeBytes(), as: UTF8.self)
  }
}
#endif
