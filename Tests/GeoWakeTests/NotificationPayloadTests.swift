import BackgroundRuntime
import Foundation
import Testing
import _GeoWakeTestSupport

@Suite("Notification payloads")
struct NotificationPayloadTests {
  struct Case: Decodable {
    var test: String
    var expected_raw: String
  }

  struct Cases: Decodable { var cases: [Case] }

  static func builderCases() throws -> [Case] {
    try JSONDecoder().decode(Cases.self, from: Data(FixtureFiles.text("apns/apns2_payload_builder_expected.json").utf8)).cases
  }

  /// Every payload apns2's builder tests expect parses and re-encodes to the same bytes (they are
  /// canonical), hence the same JSON object.
  @Test func apns2BuilderPayloadsRoundTrip() throws {
    let cases = try Self.builderCases()
    #expect(cases.count == 46)
    for c in cases {
      let payload = try NotificationPayload(parsing: c.expected_raw)
      #expect(payload.json == c.expected_raw, "\(c.test)")
      let a = try JSONSerialization.jsonObject(with: Data(payload.json.utf8)) as? NSDictionary
      let b = try JSONSerialization.jsonObject(with: Data(c.expected_raw.utf8)) as? NSDictionary
      #expect(a == b, "\(c.test)")
    }
  }

  @Test func typedAps() throws {
    let combined = try NotificationPayload(parsing: #"{"aps":{"alert":"hello","badge":1,"interruption-level":"active","relevance-score":0.1,"sound":"Default.caf"},"key":"val"}"#)
    #expect(combined.aps.alert == .text("hello"))
    #expect(combined.aps.badge == 1)
    #expect(combined.aps.sound == .name("Default.caf"))
    #expect(combined.aps.interruptionLevel == .active)
    #expect(combined.aps.relevanceScore == 0.1)
    #expect(combined.custom.map(\.key) == ["key"] && combined.custom[0].value.text == "\"val\"")
    #expect(!combined.aps.isSilent && combined.aps.isUserVisible)
    let silent = try NotificationPayload(parsing: #"{ "aps" : { "content-available" : 1 }, "id": 42 }"#)
    #expect(silent.aps.isSilent)
    #expect(silent.json == #"{"aps":{"content-available":1},"id":42}"#)  // canonical: minified
    let dictionary = try NotificationPayload(parsing: #"{"aps":{"alert":{"title":"T","loc-args":["a","b"],"summary-arg-count":3}}}"#)
    #expect(dictionary.aps.alert == .fields([
      .init(key: "title", value: .string("T")), .init(key: "loc-args", value: .strings(["a", "b"])),
      .init(key: "summary-arg-count", value: .integer(3)),
    ]))
    // Escapes decode, and re-encode minimally.
    let escaped = try NotificationPayload(parsing: #"{"aps":{"alert":"caf\u00e9 \ud83d\ude00 \"q\" \/"}}"#)
    #expect(escaped.aps.alert == .text("café 😀 \"q\" /"))
    #expect(escaped.json == #"{"aps":{"alert":"café 😀 \"q\" /"}}"#)
    // aps need not come first; its place is kept.
    #expect(try NotificationPayload(parsing: #"{"a":[1,{"b":null}],"aps":{}}"#).json == #"{"a":[1,{"b":null}],"aps":{}}"#)
  }

  @Test(arguments: [
    (#"{"aps":{"content-available":"1"}}"#, "byte 28, $.aps.content-available: found a string: expected the number 0 or 1"),
    (#"{"aps":{"content-available":2}}"#, "byte 28, $.aps.content-available: 2: expected the number 0 or 1"),
    (#"{"aps":{"badge":-1}}"#, "byte 16, $.aps.badge: -1: expected a whole number ≥ 0"),
    (#"{"aps":{"badge":1.5}}"#, "byte 16, $.aps.badge: 1.5: expected a whole number ≥ 0"),
    (#"{"aps":{"alert":7}}"#, "byte 16, $.aps.alert: found a number: expected a string or a dictionary"),
    (#"{"aps":{"alert":{"title":1}}}"#, "byte 25, $.aps.alert.title: found a number: expected a string"),
    (#"{"aps":{"interruption-level":"urgent"}}"#, "byte 29, $.aps.interruption-level: \"urgent\": expected passive, active, time-sensitive or critical"),
    (#"{"aps":{"relevance-score":2}}"#, "byte 26, $.aps.relevance-score: 2.0 is out of range: expected a number in 0...1"),
    (#"{"aps":{},"aps":{}}"#, "byte 10, $.aps: appears twice: expected one aps dictionary"),
    (#"{"aps":{"badge":1,"badge":2}}"#, "byte 18, $.aps.badge: appears twice: expected unique keys"),
    (#"{"aps":{}"#, "byte 9, $: found the end of the payload: expected ',' or '}'"),
    (#"{"aps":{}} x"#, "byte 11, $: found 'x' after the object: expected the end of the payload"),
    (#"{"aps":{"alert":"a\qb"}}"#, #"byte 18, $.aps.alert: bad escape \q: expected one of \" \\ \/ \b \f \n \r \t \uXXXX"#),
    (#"{"k":01}"#, "byte 5, $.k: leading zero in a number"),
    (#"{"k":[1,]}"#, "byte 8, $.k[1]: found ']': expected a value"),
    (#"["aps"]"#, "byte 0, $: found an array: expected a JSON object"),
    ("", "byte 0, $: found the end of the payload: expected a JSON object"),
  ])
  func errorsGiveOffsetAndKeyPath(_ text: String, _ expected: String) {
    do {
      _ = try NotificationPayload(parsing: text)
      Issue.record("accepted \(text)")
    } catch {
      #expect(error.description == expected)
    }
    // The allocation-free check used by APNs validation finds the same problem.
    var copy = text
    let checked = copy.withUTF8 { b -> String in
      do throws(PayloadError) {
        _ = try NotificationPayload.check(b)
        return "accepted"
      } catch { return error.description }
    }
    #expect(checked == expected)
  }

  @Test func checkAgreesWithParseOnTraits() throws {
    for c in try Self.builderCases() + [Case(test: "escaped key", expected_raw: #"{"aps":{"content\u002davailable":1},"\u0061":1}"#)] {
      let parsed = try NotificationPayload(parsing: c.expected_raw)
      var copy = c.expected_raw
      let traits = try copy.withUTF8 { b throws(PayloadError) in try NotificationPayload.check(b) }
      #expect(traits.isContentAvailable == parsed.aps.isContentAvailable, "\(c.test)")
      #expect(traits.isUserVisible == parsed.aps.isUserVisible, "\(c.test)")
    }
  }

  @Test func invalidUTF8AndDeepNesting() {
    let bytes: [UInt8] = Array(#"{"aps":{"alert":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)
    #expect(throws: PayloadError(offset: 17, keyPath: "$.aps.alert", message: "invalid UTF-8 in a string")) {
      _ = try bytes.withUnsafeBufferPointer { b throws(PayloadError) in try NotificationPayload(parsing: b) }
    }
    let deep = "{\"k\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
    #expect(throws: PayloadError.self) { try NotificationPayload(parsing: deep) }
  }

  /// Property: damaged payloads (bytes flipped, cut, inserted) never crash; parse and the
  /// allocation-free check always agree, on the error or on the traits.
  @Test func damagedPayloadsNeverCrashAndCheckAgrees() throws {
    var random = SeededGenerator(seed: 11)
    let seeds = try Self.builderCases().map { Array($0.expected_raw.utf8) }
    let alphabet = Array(#"{}[]":,\ 0123456789.eE+-truefalsnu"#.utf8) + [0xC3, 0xA9, 0xFF, 0x00, 0x1F]
    for round in 0..<3_000 {
      var bytes = seeds[round % seeds.count]
      for _ in 0..<Int(random.uniform(1...4)) {
        let k = Int(random.uniform(0...Double(max(0, bytes.count - 1))))
        let b = alphabet[Int(random.uniform(0...Double(alphabet.count - 1)))]
        switch random.next() % 3 {
        case 0 where !bytes.isEmpty: bytes[k] = b
        case 1: bytes.insert(b, at: min(k, bytes.count))
        default: if !bytes.isEmpty { bytes.removeSubrange(k..<bytes.count) }
        }
      }
      let parsed = bytes.withUnsafeBufferPointer { b -> Result<NotificationPayload, PayloadError> in
        do throws(PayloadError) { return .success(try NotificationPayload(parsing: b)) } catch { return .failure(error) }
      }
      let checked = bytes.withUnsafeBufferPointer { b -> Result<NotificationPayload.Traits, PayloadError> in
        do throws(PayloadError) { return .success(try NotificationPayload.check(b)) } catch { return .failure(error) }
      }
      switch (parsed, checked) {
      case (.success(let p), .success(let t)):
        #expect(t.isContentAvailable == p.aps.isContentAvailable && t.isUserVisible == p.aps.isUserVisible)
        #expect(try NotificationPayload(parsing: p.json) == p)  // what parses re-encodes and parses back
      case (.failure(let a), .failure(let b)):
        #expect(a == b)
        #expect(a.offset >= 0 && a.offset <= bytes.count)
      default:
        Issue.record("parse and check disagree on \(String(decoding: bytes, as: UTF8.self))")
      }
    }
  }

  /// Property: any payload we encode parses back to the same value (random aps members and strings).
  @Test func encodeParseRoundTrip() throws {
    var random = SeededGenerator(seed: 5)
    let alphabet = Array("aé\"\\\n\t/😀 z\u{01}")
    for _ in 0..<500 {
      func text() -> String { String((0..<Int(random.uniform(0...8))).map { _ in alphabet[Int(random.uniform(0...Double(alphabet.count - 1)))] }) }
      var members: [APS.Member] = [.alert(.text(text())), .badge(Int(random.uniform(0...99))), .contentAvailable(1), .threadID(text())]
      if random.uniform(0...1) < 0.5 { members.append(.relevanceScore((random.uniform(0...1) * 100).rounded() / 100)) }
      if random.uniform(0...1) < 0.5 { members.append(.sound(.fields([.critical(1), .name(text()), .volume(0.25)]))) }
      let payload = NotificationPayload(aps: APS(members.shuffled(using: &random)), custom: [("k", RawJSON("[1,2]"))], apsIndex: 0)
      #expect(try NotificationPayload(parsing: payload.json) == payload)
    }
  }
}
