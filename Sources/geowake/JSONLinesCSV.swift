import TrackIO

/// JSON Lines as CSV, for the commands whose rows are of several kinds (fetch's steps, summaries
/// and checks; fidelity's departures and platforms): one column per key any line has, in the
/// order the keys first appear (members of a nested object as `key.member`; an array as its JSON
/// text), one row per line, a cell empty where the line lacks the key or it is `null`. Strings
/// are written as they are, numbers and booleans as the JSON text has them, fields quoted as
/// RFC 4180 needs.
enum JSONLinesCSV {
  /// `jsonLines`, which the command wrote itself (each line one object), as CSV.
  static func convert(_ jsonLines: [UInt8]) throws(TrackIOError) -> String {
    var columns: [String] = []
    var index: [String: Int] = [:]
    var rows: [[Int: String]] = []
    var start = 0
    while start < jsonLines.count {
      var end = start
      while end < jsonLines.count, jsonLines[end] != UInt8(ascii: "\n") { end += 1 }
      let line = Array(jsonLines[start..<end])
      start = end + 1
      guard !line.isEmpty else { continue }
      var parser = JSONParser(path: "", bytes: line)
      let node = try parser.parseDocument()
      var row: [Int: String] = [:]
      func add(_ key: String, _ text: String) {
        let column: Int
        if let known = index[key] {
          column = known
        } else {
          column = columns.count
          index[key] = column
          columns.append(key)
        }
        row[column] = text
      }
      func flatten(_ node: JSONNode, prefix: String) {
        guard case .object(let members) = node.value else { return }
        for (key, value) in members {
          let name = prefix.isEmpty ? key : prefix + "." + key
          switch value.value {
          case .object: flatten(value, prefix: name)
          case .string(let text): add(name, RegionWriter.csvField(text))
          case .null: add(name, "")
          case .number, .bool, .array: add(name, RegionWriter.csvField(String(decoding: line[value.offset..<value.end], as: UTF8.self)))
          }
        }
      }
      flatten(node, prefix: "")
      rows.append(row)
    }
    var text = columns.map(RegionWriter.csvField).joined(separator: ",") + "\n"
    for row in rows {
      text += (0..<columns.count).map { row[$0] ?? "" }.joined(separator: ",") + "\n"
    }
    return text
  }
}
