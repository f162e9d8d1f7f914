import JSONBytes
import Foundation
public import Geofencing
import Geodesy

/// Writes regions as CSV (`id,lat,lon,radius`, circles only) or as a GeoJSON FeatureCollection
/// (circles as a Point with a `radius` property in metres, polygons as Polygon or MultiPolygon;
/// `id` on every feature).
public enum RegionWriter {
  public enum Format: String, CaseIterable, Sendable {
    case csv
    case geojson
  }

  /// Writes every region and commits the sink (a file is put in place).
  /// - Throws: ``TrackIOError`` when a write fails, or for a polygon in CSV (which cannot hold one).
  public static func write(_ regions: [Region], format: Format, to sink: ByteSink) throws(TrackIOError) {
    switch format {
    case .csv:
      try sink.write("id,lat,lon,radius\n")
      for region in regions {
        guard case .circle(let c) = region else {
          throw TrackIOError(path: sink.path, line: 0, column: 0,
                             message: "region \(region.identifier) is a polygon: CSV holds circles only, use --format geojson")
        }
        try sink.write(csvField(c.identifier.rawValue))
        try sink.write(",")
        try sink.write(c.center.latitude, decimals: 7)
        try sink.write(",")
        try sink.write(c.center.longitude, decimals: 7)
        try sink.write(",")
        try sink.write(c.radius, decimals: 2)
        try sink.write("\n")
      }
    case .geojson:
      try sink.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
      for (i, region) in regions.enumerated() {
        try sink.write(i == 0 ? "" : ",\n")
        try writeFeature(region, to: sink)
      }
      try sink.write("\n]}\n")
    }
    try sink.commit()
  }

  /// Writes one region as a GeoJSON Feature (no separator), with `id`, `radius` for a circle, and
  /// `extraProperties` (JSON members without braces, e.g. `"kind":"region"`) first.
  package static func writeFeature(_ region: Region, extraProperties: String = "", to sink: ByteSink) throws(TrackIOError) {
    try sink.write("{\"type\":\"Feature\",\"id\":\(JSONText.quoted(region.identifier.rawValue)),\"properties\":{")
    try sink.write(extraProperties)
    switch region {
    case .circle(let c):
      try sink.write(extraProperties.isEmpty ? "\"radius\":" : ",\"radius\":")
      try sink.write(c.radius, decimals: 2)
      try sink.write("},\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
      try position(c.center, sink)
      try sink.write("]}}")
    case .polygon(let p):
      try sink.write("},\"geometry\":{\"type\":\"\(p.polygons.count == 1 ? "Polygon" : "MultiPolygon")\",\"coordinates\":")
      if p.polygons.count > 1 { try sink.write("[") }
      for (k, polygon) in p.polygons.enumerated() {
        try sink.write(k == 0 ? "[" : ",[")
        for (r, ring) in ([polygon.exterior] + polygon.holes).enumerated() {
          try sink.write(r == 0 ? "[" : ",[")
          let closed = ring.first == ring.last ? ring : ring + [ring[0]]
          for (v, vertex) in closed.enumerated() {
            try sink.write(v == 0 ? "[" : ",[")
            try position(vertex, sink)
            try sink.write("]")
          }
          try sink.write("]")
        }
        try sink.write("]")
      }
      if p.polygons.count > 1 { try sink.write("]") }
      try sink.write("}}")
    }
  }

  static func position(_ c: Coordinate, _ sink: ByteSink) throws(TrackIOError) {
    try sink.write(c.longitude, decimals: 7)
    try sink.write(",")
    try sink.write(c.latitude, decimals: 7)
  }

  /// `text` as one CSV field (RFC 4180): quoted when it holds a comma, quote, space or line break.
  package static func csvField(_ text: String) -> String {
    var bytes: [UInt8] = []
    ByteSink.appendCSVField(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

