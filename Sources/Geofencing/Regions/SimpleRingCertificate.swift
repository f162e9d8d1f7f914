extension PlanarPolygons {
  /// Whether these rings are certainly a valid polygon in the OGC sense, decided in GeoWake's own
  /// arithmetic: true only for one polygon of one ring that is closed, has at least three edges,
  /// no edge of length zero, a turn at every vertex (its two edges not along one line), and every
  /// two edges that do not follow each other apart.
  ///
  /// Such a ring is a simple closed curve of three or more distinct vertices: a polygon of
  /// positive area, valid whatever its orientation. Each fact rests on orientation signs whose
  /// floating-point determinants exceed four times Shewchuk's error bound ("Adaptive Precision
  /// Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997, `orient2d` stage A),
  /// so that the exact signs, and any evaluation accurate to that bound (GEOS's double-double
  /// orientation among them), agree. Two edges are apart when the ends of one lie strictly on one
  /// side of the other's line; edges whose boxes do not meet are apart without a test.
  ///
  /// False means only that this is not certain: a ring with holes, several parts, a run of
  /// collinear vertices, a touch, a crossing, or an orientation within the bound. GEOS decides
  /// those (`validateWithGEOS()` in `GEOSValidation`).
  ///
  /// Cost: the edges' boxes sorted by west end, then each edge tested against the edges whose
  /// boxes overlap its own (a sweep), about n log n + k for n edges and k overlapping pairs.
  package var isCertainlySimpleRing: Bool {
    guard ringCount == 1 else { return false }
    let edgeCount = vertexCount - 1
    guard edgeCount >= 3 else { return false }
    return withVertices { vertices in
      withUnsafeTemporaryAllocation(of: EdgeBox.self, capacity: edgeCount) { boxes in
        let first = vertices.edge(0)
        let last = vertices.edge(edgeCount - 1)
        guard last.z == first.x, last.w == first.y else { return false }
        for i in 0..<edgeCount {
          let e = vertices.edge(i)
          guard e.x.isFinite, e.y.isFinite, e.x != e.z || e.y != e.w else { return false }
          // The turn at the edge's end, into the next edge.
          let next = vertices.edge(i + 1 == edgeCount ? 0 : i + 1)
          guard Self.certainSign(e.x, e.y, e.z, e.w, next.z, next.w) != 0 else { return false }
          (boxes.baseAddress! + i).initialize(
            to: EdgeBox(
              west: min(e.x, e.z), east: max(e.x, e.z), south: min(e.y, e.w), north: max(e.y, e.w), edge: Int32(i)))
        }
        defer { boxes.baseAddress!.deinitialize(count: edgeCount) }
        var boxes = boxes
        boxes.sort { $0.west < $1.west }
        for a in 0..<edgeCount {
          let box = boxes[a]
          var b = a + 1
          while b < edgeCount && boxes[b].west <= box.east {
            let other = boxes[b]
            b += 1
            guard other.south <= box.north, box.south <= other.north else { continue }
            let i = Int(box.edge)
            let j = Int(other.edge)
            let gap = abs(i - j)
            // Edges that follow each other share their vertex and turn there (checked above).
            if gap == 1 || gap == edgeCount - 1 { continue }
            guard Self.certainlyApart(vertices.edge(i), vertices.edge(j)) else { return false }
          }
        }
        return true
      }
    }
  }

  /// An edge's bounding box and its index in the ring.
  private struct EdgeBox {
    var west: Double
    var east: Double
    var south: Double
    var north: Double
    var edge: Int32
  }

  /// Whether edges p and q, each (x0, y0, x1, y1), certainly share no point: the ends of one
  /// strictly on one side of the other's line, by certain signs.
  @inline(__always)
  private static func certainlyApart(_ p: SIMD4<Double>, _ q: SIMD4<Double>) -> Bool {
    let q0 = certainSign(p.x, p.y, p.z, p.w, q.x, q.y)
    if q0 != 0 && q0 == certainSign(p.x, p.y, p.z, p.w, q.z, q.w) { return true }
    let p0 = certainSign(q.x, q.y, q.z, q.w, p.x, p.y)
    return p0 != 0 && p0 == certainSign(q.x, q.y, q.z, q.w, p.z, p.w)
  }

  /// The side of a → b that c lies on (1 left, −1 right) when the floating-point determinant
  /// exceeds four times Shewchuk's stage-A bound (as ``PlanarOrientation/sign(_:_:_:_:_:_:)``
  /// computes it); 0 when it does not, whatever the exact sign.
  @inline(__always)
  static func certainSign(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
    let left = (ax - cx) * (by - cy)
    let right = (ay - cy) * (bx - cx)
    let determinant = left - right
    let bound = 4 * (3.0 + 16.0 * 0x1p-53) * 0x1p-53 * (abs(left) + abs(right))
    if determinant > bound { return 1 }
    if -determinant > bound { return -1 }
    return 0
  }
}
