public import BackgroundRuntime
public import TrackIO

/// Reads a provider's push schedule: JSON Lines, one request per line —
///
/// ```
/// {"at": "2024-05-01T08:00:00Z", "token": "11aa…ef7",
///  "headers": {"apns-push-type": "background", "apns-priority": "5", "apns-topic": "com.example.app"},
///  "payload": {"aps": {"content-available": 1}}}
/// ```
///
/// `payload` is the body exactly as sent: its bytes are taken from the line as they are (so a
/// canonical payload reaches APNs unchanged); `payloadText` (a string) may replace it to carry bytes
/// that are not valid JSON; with neither the request has no body. Header values are strings (a
/// number is taken as its text); a header given twice stays twice (APNs answers
/// `DuplicateHeaders`). `method` and `path` may override `POST` and `/3/device/<token>`. Unknown
/// keys, a missing `at` or `token`, and values of the wrong type are errors naming the line, the
/// column and the key path, as is an `at` without a zone unless `assumeUTC` (then it is read as
/// UTC). Requests may come in any time order.
public enum PushScheduleReader {
  public static func read(path: String, assumeUTC: Bool = false) throws(TrackIOError) -> [ProviderRequest] {
    var lines = try ByteLineReader(path: path)
    let shown = lines.path
    var requests: [ProviderRequest] = []
    while true {
      let number = lines.lineNumber + 1
      let more: Bool? = try lines.nextLine { line throws(TrackIOError) -> Bool in
        guard line.contains(where: { !MarkupScanner.isSpace($0) }) else { return true }
        let bytes = Array(line)
        var parser = JSONParser(path: shown, bytes: bytes)
        func fail(_ keyPath: String, _ message: String, _ offset: Int) -> TrackIOError {
          TrackIOError(path: shown, line: number, column: offset + 1, message: "\(keyPath): \(message)")
        }
        let root: JSONNode
        do throws(TrackIOError) { root = try parser.parseDocument() } catch {
          throw TrackIOError(path: shown, line: number, column: error.column, message: error.message)
        }
        guard case .object(let members) = root.value else { throw fail("$", "found \(root.kind): expected an object with at, token, headers and payload", root.offset) }
        var at: Double?
        var token: String?
        var method = "POST"
        var requestPath: String?
        var headers: [ProviderRequest.Header] = []
        var payload: [UInt8]?
        var seen: Set<String> = []
        for (key, node) in members {
          let keyPath = "$.\(key)"
          guard seen.insert(key).inserted else { throw fail(keyPath, "appears twice", node.offset) }
          func text() throws(TrackIOError) -> String {
            guard case .string(let s) = node.value else { throw fail(keyPath, "found \(node.kind): expected a string", node.offset) }
            return s
          }
          switch key {
          case "at":
            let s = try text()
            guard let t = TimestampText.parse(s) else {
              throw fail(keyPath, "\"\(s)\" is not an ISO 8601 time such as 2024-05-01T08:00:00Z", node.offset)
            }
            var utf8 = s
            guard assumeUTC || utf8.withUTF8(ByteNumbers.hasZone) else {
              throw fail(keyPath, ByteNumbers.zonelessMessage(s, what: "time"), node.offset)
            }
            at = t
          case "token": token = try text()
          case "method": method = try text()
          case "path": requestPath = try text()
          case "headers":
            guard case .object(let fields) = node.value else { throw fail(keyPath, "found \(node.kind): expected an object of header names and values", node.offset) }
            for (name, value) in fields {
              switch value.value {
              case .string(let v): headers.append(.init(name, v))
              case .number: headers.append(.init(name, String(decoding: bytes[value.offset..<value.end], as: UTF8.self)))
              default: throw fail("\(keyPath).\(name)", "found \(value.kind): expected a string (or a number)", value.offset)
              }
            }
          case "payload":
            guard payload == nil else { throw fail(keyPath, "given with payloadText: expected one of them", node.offset) }
            payload = Array(bytes[node.offset..<node.end])
          case "payloadText":
            guard payload == nil else { throw fail(keyPath, "given with payload: expected one of them", node.offset) }
            payload = Array(try text().utf8)
          default:
            throw fail(keyPath, "unknown key: expected at, token, headers, payload, payloadText, method or path", node.offset)
          }
        }
        guard let at else { throw fail("$", "no \"at\": expected the time the provider sends the request", root.offset) }
        guard let token else { throw fail("$", "no \"token\": expected the device token in hexadecimal", root.offset) }
        requests.append(ProviderRequest(time: at, token: token, method: method, path: requestPath, headers: headers, payload: payload))
        return true
      }
      guard more != nil else { break }
    }
    return requests
  }
}
