import JSONBytes
extension NotificationPayload {
  /// The payload as canonical JSON: minified, members in their order, minimal string escapes,
  /// shortest numbers (see the type's documentation).
  public var json: String {
    var out = "{"
    var members: [String] = custom.map { JSONText.quoted($0.key) + ":" + $0.value.text }
    if let apsIndex { members.insert("\"aps\":" + aps.json, at: min(apsIndex, members.count)) }
    out += members.joined(separator: ",")
    return out + "}"
  }

  /// Bytes of ``json``.
  public var byteCount: Int { json.utf8.count }
}

extension APS {
  /// The dictionary as canonical JSON.
  public var json: String {
    "{" + members.map { JSONText.quoted($0.key) + ":" + $0.valueJSON }.joined(separator: ",") + "}"
  }
}

extension APS.Member {
  /// The member's key in the payload (spelled once, by the parser's ``NotificationPayload/APSKey``).
  public var key: String {
    if case .other(let key, _) = self { return key }
    return apsKey.map { "\($0.text)" } ?? ""
  }

  /// The typed key this member is for; nil for a key passed through.
  var apsKey: NotificationPayload.APSKey? {
    switch self {
    case .alert: return .alert
    case .badge: return .badge
    case .sound: return .sound
    case .contentAvailable: return .contentAvailable
    case .mutableContent: return .mutableContent
    case .category: return .category
    case .threadID: return .threadID
    case .targetContentID: return .targetContentID
    case .interruptionLevel: return .interruptionLevel
    case .relevanceScore: return .relevanceScore
    case .filterCriteria: return .filterCriteria
    case .staleDate: return .staleDate
    case .timestamp: return .timestamp
    case .dismissalDate: return .dismissalDate
    case .event: return .event
    case .contentState: return .contentState
    case .attributesType: return .attributesType
    case .attributes: return .attributes
    case .urlArgs: return .urlArgs
    case .other: return nil
    }
  }

  var valueJSON: String {
    switch self {
    case .alert(.text(let t)): return JSONText.quoted(t)
    case .alert(.fields(let fields)):
      return "{" + fields.map { f in
        let v: String
        switch f.value {
        case .string(let s): v = JSONText.quoted(s)
        case .strings(let a): v = JSONText.array(a)
        case .integer(let n): v = "\(n)"
        case .raw(let r): v = r.text
        }
        return JSONText.quoted(f.key) + ":" + v
      }.joined(separator: ",") + "}"
    case .sound(.name(let n)): return JSONText.quoted(n)
    case .sound(.fields(let fields)):
      return "{" + fields.map { f in
        switch f {
        case .critical(let c): return "\"critical\":\(c)"
        case .name(let n): return "\"name\":" + JSONText.quoted(n)
        case .volume(let v): return "\"volume\":" + JSONText.number(v)
        case .other(_, let r): return JSONText.quoted(f.key) + ":" + r.text
        }
      }.joined(separator: ",") + "}"
    case .badge(let n), .contentAvailable(let n), .mutableContent(let n), .staleDate(let n), .timestamp(let n), .dismissalDate(let n):
      return "\(n)"
    case .category(let s), .threadID(let s), .targetContentID(let s), .filterCriteria(let s), .event(let s), .attributesType(let s):
      return JSONText.quoted(s)
    case .interruptionLevel(let l): return JSONText.quoted(l.rawValue)
    case .relevanceScore(let r): return JSONText.number(r)
    case .contentState(let r), .attributes(let r), .other(_, let r): return r.text
    case .urlArgs(let a): return JSONText.array(a)
    }
  }
}
