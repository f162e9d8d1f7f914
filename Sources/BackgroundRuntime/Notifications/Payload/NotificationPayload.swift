public import JSONBytes
/// A JSON value kept as its exact text (custom keys, `content-state`, unknown `aps` keys).
public struct RawJSON: Hashable, Sendable, CustomStringConvertible {
  public var text: String
  public init(_ text: String) { self.text = text }
  public var description: String { text }
}

/// The `aps` dictionary, typed (Apple: *Generating a remote notification*): each member in
/// document order with its typed value, so that a canonical payload re-encodes byte for byte.
public struct APS: Hashable, Sendable {
  /// `interruption-level`.
  public enum InterruptionLevel: String, Hashable, Sendable, CaseIterable {
    case passive, active
    case timeSensitive = "time-sensitive"
    case critical
  }

  /// `alert`: a string, or a dictionary of its keys.
  public enum Alert: Hashable, Sendable {
    case text(String)
    case fields([AlertField])
  }

  public struct AlertField: Hashable, Sendable {
    public var key: String
    public var value: AlertValue
    public init(key: String, value: AlertValue) {
      self.key = key
      self.value = value
    }
  }

  public enum AlertValue: Hashable, Sendable {
    case string(String)
    case strings([String])
    case integer(Int)
    case raw(RawJSON)
  }

  /// `sound`: a file name, or the critical-alert dictionary.
  public enum Sound: Hashable, Sendable {
    case name(String)
    case fields([SoundField])
  }

  public enum SoundField: Hashable, Sendable {
    case critical(Int)
    case name(String)
    case volume(Double)
    case other(key: String, RawJSON)

    /// Its key in the sound dictionary.
    public var key: String {
      switch self {
      case .critical: return "critical"
      case .name: return "name"
      case .volume: return "volume"
      case .other(let key, _): return key
      }
    }
  }

  public enum Member: Hashable, Sendable {
    case alert(Alert)
    case badge(Int)
    case sound(Sound)
    case contentAvailable(Int)
    case mutableContent(Int)
    case category(String)
    case threadID(String)
    case targetContentID(String)
    case interruptionLevel(InterruptionLevel)
    case relevanceScore(Double)
    case filterCriteria(String)
    case staleDate(Int)
    case timestamp(Int)
    case dismissalDate(Int)
    case event(String)
    case contentState(RawJSON)
    case attributesType(String)
    case attributes(RawJSON)
    case urlArgs([String])
    /// A key APNs passes through unchanged.
    case other(key: String, RawJSON)
  }

  public var members: [Member]

  public init(_ members: [Member] = []) { self.members = members }

  public var alert: Alert? {
    for case .alert(let a) in members { return a }
    return nil
  }
  public var badge: Int? {
    for case .badge(let b) in members { return b }
    return nil
  }
  public var sound: Sound? {
    for case .sound(let s) in members { return s }
    return nil
  }
  public var interruptionLevel: InterruptionLevel? {
    for case .interruptionLevel(let l) in members { return l }
    return nil
  }
  public var relevanceScore: Double? {
    for case .relevanceScore(let r) in members { return r }
    return nil
  }
  /// `content-available` is 1: the app is woken in the background.
  public var isContentAvailable: Bool { members.contains { $0 == .contentAvailable(1) } }
  public var isMutableContent: Bool { members.contains { $0 == .mutableContent(1) } }
  /// Shows something to the user: an alert, a sound or a badge.
  public var isUserVisible: Bool {
    members.contains {
      switch $0 {
      case .alert, .sound, .badge: return true
      default: return false
      }
    }
  }
  /// A silent (background) notification: content-available and nothing shown.
  public var isSilent: Bool { isContentAvailable && !isUserVisible }
}

/// A notification payload as sent to APNs: the typed `aps` dictionary and the app's own keys.
///
/// Parsing is strict RFC 8259 JSON (UTF-8 validated, no trailing data, depth ≤ 64); a problem is a
/// ``PayloadError`` with the byte offset and the key path() (`$.aps.content-available: found a
/// string: expected the number 0 or 1`). ``json`` re-encodes it canonically — minified, members
/// in their original order, strings escaped only where JSON requires (`"`, `\`, control
/// characters), numbers in their shortest form — so a canonical payload round-trips byte for byte.
public struct NotificationPayload: Hashable, Sendable {
  public var aps: APS
  /// Top-level members other than `aps`, in document order, with their exact JSON text.
  public var custom: [(key: String, value: RawJSON)]
  /// Where `aps` sits among the top-level members (nil: the payload has none).
  public var apsIndex: Int?

  /// Found while parsing (also when not materializing).
  var traits: Traits

  public init(aps: APS, custom: [(key: String, value: RawJSON)] = [], apsIndex: Int? = 0) {
    self.aps = aps
    self.custom = custom
    self.apsIndex = apsIndex
    traits = Traits(isContentAvailable: aps.isContentAvailable, isUserVisible: aps.isUserVisible)
  }

  public static func == (a: NotificationPayload, b: NotificationPayload) -> Bool {
    a.aps == b.aps && a.apsIndex == b.apsIndex && a.custom.map(\.key) == b.custom.map(\.key) && a.custom.map(\.value) == b.custom.map(\.value)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(aps)
    hasher.combine(apsIndex)
    for c in custom {
      hasher.combine(c.key)
      hasher.combine(c.value)
    }
  }

  /// Parses `bytes` (the whole HTTP body).
  public init(parsing bytes: UnsafeBufferPointer<UInt8>) throws(PayloadError) {
    try self.init(bytes, materialize: true)
  }

  /// What delivery needs to know of a payload, found without building it.
  public struct Traits: Hashable, Sendable {
    /// `content-available` is 1.
    public var isContentAvailable: Bool
    /// Carries an alert, a sound or a badge.
    public var isUserVisible: Bool
    public var isSilent: Bool { isContentAvailable && !isUserVisible }
  }

  /// Checks `bytes` exactly as ``init(parsing:)`` does (the same errors) without building the
  /// strings and raw values, and returns its traits.
  public static func check(_ bytes: UnsafeBufferPointer<UInt8>) throws(PayloadError) -> Traits {
    try NotificationPayload(bytes, materialize: false).traits
  }

  init(_ bytes: UnsafeBufferPointer<UInt8>, materialize: Bool) throws(PayloadError) {
    var s = JSONScanner(bytes)
    s.materialize = materialize
    var aps: APS?
    var custom: [(key: String, value: RawJSON)] = []
    var apsIndex: Int?
    var traits = Traits(isContentAvailable: false, isUserVisible: false)
    var seen = SeenKeys()
    try s.expect(UInt8(ascii: "{"), "$", "a JSON object")
    if s.peek() == UInt8(ascii: "}") {
      s.i += 1
    } else {
      var index = 0
      while true {
        let keyStart = s.i
        let (raw, decoded) = try s.key("$")
        let isAPS = decoded.map { $0 == "aps" } ?? s.equals(raw, "aps")
        func name() -> String { isAPS ? "aps" : decoded ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[raw]), as: UTF8.self) }
        try s.expect(UInt8(ascii: ":"), "$.\(name())", "':' after the key")
        if isAPS {
          guard aps == nil else { throw s.fail("$.aps", "appears twice: expected one aps dictionary", at: keyStart) }
          aps = try Self.parseAPS(&s, &traits)
          apsIndex = index
        } else {
          if seen.insert(raw, decoded, in: s) { throw s.fail("$.\(name())", "appears twice: expected unique keys", at: keyStart) }
          let range = try s.skipValue("$.\(name())", depth: 1)
          if materialize { custom.append((name(), s.raw(range))) }
        }
        index += 1
        guard let next = s.peek() else { throw s.fail("$", "found the end of the payload: expected ',' or '}'") }
        s.i += 1
        if next == UInt8(ascii: "}") { break }
        guard next == UInt8(ascii: ",") else {
          s.i -= 1
          throw s.fail("$", "found \(s.found()): expected ',' or '}'")
        }
      }
    }
    s.skipSpace()
    guard s.atEnd else { throw s.fail("$", "found \(s.found()) after the object: expected the end of the payload") }
    self.aps = aps ?? APS()
    self.custom = custom
    self.apsIndex = apsIndex
    self.traits = traits
  }

  /// Parses UTF-8 text.
  public init(parsing text: String) throws(PayloadError) {
    var text = text
    let result = text.withUTF8 { bytes -> Result<NotificationPayload, PayloadError> in
      do throws(PayloadError) { return .success(try NotificationPayload(parsing: bytes)) } catch { return .failure(error) }
    }
    self = try result.get()
  }

  // MARK: - aps

  /// The `aps` keys GeoWake types, matched on raw bytes.
  enum APSKey: Int, CaseIterable {
    case alert, badge, sound, contentAvailable, mutableContent, category, threadID, targetContentID, filterCriteria, event
    case attributesType, interruptionLevel, relevanceScore, staleDate, timestamp, dismissalDate, contentState, attributes, urlArgs

    var text: StaticString {
      switch self {
      case .alert: return "alert"
      case .badge: return "badge"
      case .sound: return "sound"
      case .contentAvailable: return "content-available"
      case .mutableContent: return "mutable-content"
      case .category: return "category"
      case .threadID: return "thread-id"
      case .targetContentID: return "target-content-id"
      case .filterCriteria: return "filter-criteria"
      case .event: return "event"
      case .attributesType: return "attributes-type"
      case .interruptionLevel: return "interruption-level"
      case .relevanceScore: return "relevance-score"
      case .staleDate: return "stale-date"
      case .timestamp: return "timestamp"
      case .dismissalDate: return "dismissal-date"
      case .contentState: return "content-state"
      case .attributes: return "attributes"
      case .urlArgs: return "url-args"
      }
    }

    /// Matches on the length first, so that a key is compared with at most four candidates.
    static func match(_ s: JSONScanner, _ raw: Range<Int>) -> APSKey? {
      switch raw.count {
      case 5:
        if s.equals(raw, "alert") { return .alert }
        if s.equals(raw, "badge") { return .badge }
        if s.equals(raw, "sound") { return .sound }
        if s.equals(raw, "event") { return .event }
        return nil
      case 8:
        if s.equals(raw, "category") { return .category }
        if s.equals(raw, "url-args") { return .urlArgs }
        return nil
      case 9:
        if s.equals(raw, "thread-id") { return .threadID }
        if s.equals(raw, "timestamp") { return .timestamp }
        return nil
      case 10:
        if s.equals(raw, "stale-date") { return .staleDate }
        if s.equals(raw, "attributes") { return .attributes }
        return nil
      case 13:
        if s.equals(raw, "content-state") { return .contentState }
        return nil
      case 14:
        if s.equals(raw, "dismissal-date") { return .dismissalDate }
        return nil
      case 15:
        if s.equals(raw, "mutable-content") { return .mutableContent }
        if s.equals(raw, "relevance-score") { return .relevanceScore }
        if s.equals(raw, "filter-criteria") { return .filterCriteria }
        if s.equals(raw, "attributes-type") { return .attributesType }
        return nil
      case 17:
        if s.equals(raw, "content-available") { return .contentAvailable }
        if s.equals(raw, "target-content-id") { return .targetContentID }
        return nil
      case 18:
        if s.equals(raw, "interruption-level") { return .interruptionLevel }
        return nil
      default: return nil
      }
    }

    static func match(_ name: String) -> APSKey? {
      allCases.first { String(describing: $0.text) == name }
    }
  }

  static func parseAPS(_ s: inout JSONScanner, _ traits: inout Traits) throws(PayloadError) -> APS {
    var members: [APS.Member] = []
    try s.expect(UInt8(ascii: "{"), "$.aps", "a dictionary")
    if s.peek() == UInt8(ascii: "}") {
      s.i += 1
      return APS(members)
    }
    if s.materialize { members.reserveCapacity(6) }  // one allocation for the usual handful of keys
    var seenKnown: UInt32 = 0
    var seenOther = SeenKeys()
    while true {
      let keyStart = s.i
      let (raw, decoded) = try s.key("$.aps")
      let bytes = s.bytes
      func name() -> String { decoded ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[raw]), as: UTF8.self) }
      let key = decoded.map { APSKey.match($0) } ?? APSKey.match(s, raw)
      if let key {
        let bit: UInt32 = 1 << UInt32(key.rawValue)
        if seenKnown & bit != 0 { throw s.fail("$.aps.\(name())", "appears twice: expected unique keys", at: keyStart) }
        seenKnown |= bit
      } else if seenOther.insert(raw, decoded, in: s) {
        throw s.fail("$.aps.\(name())", "appears twice: expected unique keys", at: keyStart)
      }
      try s.expect(UInt8(ascii: ":"), "$.aps.\(name())", "':' after the key")
      let m: APS.Member
      if let key {
        m = try member(key, &s, "$.aps.\(name())")
        switch m {
        case .contentAvailable(let v): traits.isContentAvailable = v == 1
        case .alert, .sound, .badge: traits.isUserVisible = true
        default: break
        }
      } else {
        let range = try s.skipValue("$.aps.\(name())", depth: 2)
        m = .other(key: s.materialize ? name() : "", s.raw(range))
      }
      if s.materialize { members.append(m) }
      guard let next = s.peek() else { throw s.fail("$.aps", "found the end of the payload: expected ',' or '}'") }
      s.i += 1
      if next == UInt8(ascii: "}") { break }
      guard next == UInt8(ascii: ",") else {
        s.i -= 1
        throw s.fail("$.aps", "found \(s.found()): expected ',' or '}'")
      }
    }
    return APS(members)
  }

  static func member(_ key: APSKey, _ s: inout JSONScanner, _ path: @autoclosure () -> String) throws(PayloadError) -> APS.Member {
    switch key {
    case .alert:
      if s.peek() == UInt8(ascii: "\"") { return .alert(.text(try s.string(path()))) }
      guard s.peek() == UInt8(ascii: "{") else { throw s.fail(path(), "found \(s.found()): expected a string or a dictionary") }
      return .alert(.fields(try alertFields(&s, "$.aps.alert")))
    case .badge: return .badge(try integer(&s, path(), 0...Int(Int32.max), "a whole number ≥ 0"))
    case .sound:
      if s.peek() == UInt8(ascii: "\"") { return .sound(.name(try s.string(path()))) }
      guard s.peek() == UInt8(ascii: "{") else { throw s.fail(path(), "found \(s.found()): expected a string or a dictionary") }
      return .sound(.fields(try soundFields(&s, "$.aps.sound")))
    case .contentAvailable: return .contentAvailable(try integer(&s, path(), 0...1, "the number 0 or 1"))
    case .mutableContent: return .mutableContent(try integer(&s, path(), 0...1, "the number 0 or 1"))
    case .category: return .category(try s.string(path()))
    case .threadID: return .threadID(try s.string(path()))
    case .targetContentID: return .targetContentID(try s.string(path()))
    case .filterCriteria: return .filterCriteria(try s.string(path()))
    case .event: return .event(try s.string(path()))
    case .attributesType: return .attributesType(try s.string(path()))
    case .interruptionLevel:
      s.skipSpace()
      let at = s.i
      let saved = s.materialize
      s.materialize = true  // the value is checked against the levels either way
      let text = try s.string(path())
      s.materialize = saved
      guard let level = APS.InterruptionLevel(rawValue: text) else {
        throw s.fail(path(), "\"\(text)\": expected passive, active, time-sensitive or critical", at: at)
      }
      return .interruptionLevel(level)
    case .relevanceScore:
      s.skipSpace()
      let at = s.i
      let v = try s.number(path()).value
      guard (0...1).contains(v) else { throw s.fail(path(), "\(v) is out of range: expected a number in 0...1", at: at) }
      return .relevanceScore(v)
    case .staleDate: return .staleDate(try integer(&s, path(), 0...Int.max, "a Unix time in seconds"))
    case .timestamp: return .timestamp(try integer(&s, path(), 0...Int.max, "a Unix time in seconds"))
    case .dismissalDate: return .dismissalDate(try integer(&s, path(), 0...Int.max, "a Unix time in seconds"))
    case .contentState, .attributes:
      guard s.peek() == UInt8(ascii: "{") else { throw s.fail(path(), "found \(s.found()): expected a dictionary") }
      let range = try s.skipValue(path(), depth: 2)
      let text = s.raw(range)
      return key == .contentState ? .contentState(text) : .attributes(text)
    case .urlArgs: return .urlArgs(try strings(&s, path()))
    }
  }

  static func integer(_ s: inout JSONScanner, _ path: @autoclosure () -> String, _ range: ClosedRange<Int>, _ expected: String) throws(PayloadError) -> Int {
    s.skipSpace()
    let at = s.i
    guard let b = s.peek(), b == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) else {
      throw s.fail(path(), "found \(s.found()): expected \(expected)")
    }
    let n = try s.number(path())
    guard n.integer, n.value >= Double(range.lowerBound), n.value <= Double(range.upperBound) else {
      let text = String(decoding: UnsafeBufferPointer(rebasing: s.bytes[n.range]), as: UTF8.self)
      throw s.fail(path(), "\(text): expected \(expected)", at: at)
    }
    return Int(n.value)
  }

  static func strings(_ s: inout JSONScanner, _ path: @autoclosure () -> String) throws(PayloadError) -> [String] {
    try s.expect(UInt8(ascii: "["), path(), "an array of strings")
    var out: [String] = []
    if s.peek() == UInt8(ascii: "]") {
      s.i += 1
      return out
    }
    while true {
      out.append(try s.string("\(path())[\(out.count)]"))
      guard let next = s.peek() else { throw s.fail(path(), "found the end of the payload: expected ',' or ']'") }
      s.i += 1
      if next == UInt8(ascii: "]") { return out }
      guard next == UInt8(ascii: ",") else {
        s.i -= 1
        throw s.fail(path(), "found \(s.found()): expected ',' or ']'")
      }
    }
  }

  /// The alert keys with string values, those with string-array values, and the counter.
  enum AlertKeyKind { case string, strings, integer }

  static func alertKeyKind(_ s: JSONScanner, _ raw: Range<Int>, _ decoded: String?) -> AlertKeyKind? {
    if let decoded {
      var copy = decoded
      return copy.withUTF8 { b in alertKeyKind(JSONScanner(b), 0..<b.count, nil) }
    }
    switch raw.count {
    case 4: return s.equals(raw, "body") ? .string : nil
    case 5: return s.equals(raw, "title") ? .string : nil
    case 6: return s.equals(raw, "action") ? .string : nil
    case 7: return s.equals(raw, "loc-key") ? .string : nil
    case 8: return s.equals(raw, "subtitle") ? .string : s.equals(raw, "loc-args") ? .strings : nil
    case 11: return s.equals(raw, "summary-arg") ? .string : nil
    case 12: return s.equals(raw, "launch-image") ? .string : nil
    case 13: return s.equals(raw, "title-loc-key") ? .string : nil
    case 14: return s.equals(raw, "action-loc-key") ? .string : s.equals(raw, "title-loc-args") ? .strings : nil
    case 16: return s.equals(raw, "subtitle-loc-key") ? .string : nil
    case 17: return s.equals(raw, "subtitle-loc-args") ? .strings : s.equals(raw, "summary-arg-count") ? .integer : nil
    default: return nil
    }
  }

  static func alertFields(_ s: inout JSONScanner, _ path: String) throws(PayloadError) -> [APS.AlertField] {
    var fields: [APS.AlertField] = []
    if s.materialize { fields.reserveCapacity(4) }
    try dictionary(&s, path) { (raw: Range<Int>, decoded: String?, s: inout JSONScanner) throws(PayloadError) in
      let bytes = s.bytes
      func field() -> String { "\(path).\(decoded ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[raw]), as: UTF8.self))" }
      let value: APS.AlertValue
      switch alertKeyKind(s, raw, decoded) {
      case .string?: value = .string(try s.string(field()))
      case .strings?: value = .strings(try strings(&s, field()))
      case .integer?: value = .integer(try integer(&s, field(), 0...Int(Int32.max), "a whole number ≥ 0"))
      case nil:
        let range = try s.skipValue(field(), depth: 3)
        value = .raw(s.raw(range))
      }
      if s.materialize {
        fields.append(APS.AlertField(key: decoded ?? String(decoding: UnsafeBufferPointer(rebasing: s.bytes[raw]), as: UTF8.self), value: value))
      }
    }
    return fields
  }

  static func soundFields(_ s: inout JSONScanner, _ path: String) throws(PayloadError) -> [APS.SoundField] {
    var fields: [APS.SoundField] = []
    try dictionary(&s, path) { (raw: Range<Int>, decoded: String?, s: inout JSONScanner) throws(PayloadError) in
      let name = decoded ?? String(decoding: UnsafeBufferPointer(rebasing: s.bytes[raw]), as: UTF8.self)
      func field() -> String { "\(path).\(name)" }
      let f: APS.SoundField
      switch name {
      case "critical": f = .critical(try integer(&s, field(), 0...1, "the number 0 or 1"))
      case "name": f = .name(try s.string(field()))
      case "volume":
        s.skipSpace()
        let at = s.i
        let v = try s.number(field()).value
        guard (0...1).contains(v) else { throw s.fail(field(), "\(v) is out of range: expected a number in 0...1", at: at) }
        f = .volume(v)
      default:
        let range = try s.skipValue(field(), depth: 3)
        f = .other(key: name, s.raw(range))
      }
      if s.materialize { fields.append(f) }
    }
    return fields
  }

  /// Walks a dictionary's members, refusing duplicate keys; `body` gets each key's raw bytes
  /// (and its decoded text when it has escapes) and the dictionary's key path.
  static func dictionary(
    _ s: inout JSONScanner, _ path: String, _ body: (Range<Int>, String?, inout JSONScanner) throws(PayloadError) -> Void
  ) throws(PayloadError) {
    try s.expect(UInt8(ascii: "{"), path, "a dictionary")
    if s.peek() == UInt8(ascii: "}") {
      s.i += 1
      return
    }
    var seen = SeenKeys()
    while true {
      let keyStart = s.i
      let (raw, decoded) = try s.key(path)
      let bytes = s.bytes
      func name() -> String { decoded ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[raw]), as: UTF8.self) }
      if seen.insert(raw, decoded, in: s) { throw s.fail("\(path).\(name())", "appears twice: expected unique keys", at: keyStart) }
      try s.expect(UInt8(ascii: ":"), "\(path).\(name())", "':' after the key")
      try body(raw, decoded, &s)
      guard let next = s.peek() else { throw s.fail(path, "found the end of the payload: expected ',' or '}'") }
      s.i += 1
      if next == UInt8(ascii: "}") { return }
      guard next == UInt8(ascii: ",") else {
        s.i -= 1
        throw s.fail(path, "found \(s.found()): expected ',' or '}'")
      }
    }
  }

}

/// The keys of one JSON object seen so far, for duplicate detection: the first four as byte
/// ranges of the payload (no allocation), the rest — and any escaped key — as decoded text.
struct SeenKeys {
  private var r0: Range<Int>?
  private var r1: Range<Int>?
  private var r2: Range<Int>?
  private var r3: Range<Int>?
  private var names: [String] = []

  /// Records a key; returns true when it was already there.
  mutating func insert(_ raw: Range<Int>, _ decoded: String?, in s: JSONScanner) -> Bool {
    let text = decoded ?? (names.isEmpty ? nil : String(decoding: UnsafeBufferPointer(rebasing: s.bytes[raw]), as: UTF8.self))
    func same(_ r: Range<Int>?) -> Bool {
      guard let r else { return false }
      if let text { return String(decoding: UnsafeBufferPointer(rebasing: s.bytes[r]), as: UTF8.self) == text }
      return r.count == raw.count && s.equal(r, raw)
    }
    if same(r0) || same(r1) || same(r2) || same(r3) { return true }
    if let text {
      if names.contains(text) { return true }
      names.append(text)
      return false
    }
    if r0 == nil { r0 = raw } else if r1 == nil { r1 = raw } else if r2 == nil { r2 = raw } else if r3 == nil { r3 = raw } else {
      names.append(String(decoding: UnsafeBufferPointer(rebasing: s.bytes[raw]), as: UTF8.self))
    }
    return false
  }
}
