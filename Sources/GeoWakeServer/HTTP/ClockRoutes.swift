#if Server
import Foundation
import Hummingbird
import JSONBytes
import TrackIO

extension LiveServer {
  /// `GET /v1/clock`: the push devices' time; `POST /v1/clock` with `{"time": ISO 8601 or Unix
  /// seconds}` or `{"advance": seconds}` moves a simulated clock forward, and every push device
  /// with it (admin scope).
  func clockRoutes(_ router: Router<ServerContext>) {
    router.get("/v1/clock") { request, _ -> Response in
      try await self.authorize(request, .read)
      guard let clock = self.apns?.devices.clock else {
        throw HTTPError(.notFound, message: "no clock: the server has no APNs endpoint (--apns)")
      }
      return Self.json(Self.clockJSON(clock))
    }
    router.post("/v1/clock") { request, _ -> Response in
      try await self.authorize(request, .admin)
      guard let devices = self.apns?.devices else {
        throw HTTPError(.notFound, message: "no clock: the server has no APNs endpoint (--apns)")
      }
      let body = try await self.body(request)
      guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], object.count == 1 else {
        throw HTTPError(.badRequest, message: "expected {\"time\": ISO 8601 or Unix seconds} or {\"advance\": seconds}")
      }
      let target: Double
      if let advance = object["advance"] {
        guard let seconds = (advance as? NSNumber)?.doubleValue, !(advance is Bool), seconds.isFinite, seconds >= 0 else {
          throw HTTPError(.badRequest, message: "advance: expected seconds ≥ 0")
        }
        target = devices.clock.now + seconds
      } else if let time = object["time"] {
        if let text = time as? String, let t = TimestampText.parse(text) {
          target = t
        } else if let n = time as? NSNumber, !(time is Bool) {
          target = n.doubleValue
        } else {
          throw HTTPError(.badRequest, message: "time: expected an ISO 8601 time with its zone or Unix seconds")
        }
      } else {
        throw HTTPError(.badRequest, message: "expected {\"time\": ISO 8601 or Unix seconds} or {\"advance\": seconds}")
      }
      do {
        if let problem = try await devices.setClock(to: target) { throw HTTPError(.conflict, message: problem) }
      } catch let error as StoreError {
        throw HTTPError(.serviceUnavailable, message: "the devices' steps were not stored (\(error.message)): send it again")
      }
      return Self.json(Self.clockJSON(devices.clock))
    }
  }

  static func clockJSON(_ clock: ServerClock) -> String {
    let now = clock.now
    return "{\"time\":\(JSONText.quoted(TimestampText.iso8601(now, fractionDigits: 3))),\"unix\":\(now),\"simulated\":\(clock.isSimulated)}"
  }
}
#endif
