extension PlanarPolygons {
  /// Whether these rings are certainly a valid polygon or multipolygon in the OGC sense, decided
  /// in GeoWake's own arithmetic. True only when:
  /// - every ring is closed and has at least three edges of nonzero length (a repeated position
  ///   makes an edge of none, which is passed over); at every vertex the ring turns, or goes on
  ///   exactly along the line it came (a run of collinear positions), never back along it;
  /// - every two edges that do not follow each other in one ring are apart: no two rings touch,
  ///   and no ring touches itself;
  /// - each hole lies inside its polygon's exterior ring and inside no other hole of it;
  /// - no polygon's exterior ring lies inside another polygon (inside its exterior ring and in
  ///   none of its holes).
  ///
  /// Each ring is then a simple closed curve of three or more distinct vertices, and with
  /// boundaries that share no point the containment of one vertex settles how two rings lie: the
  /// polygons have positive area, their interiors are connected and do not overlap, whatever the
  /// rings' orientations. Each fact rests on orientation signs whose floating-point determinants
  /// exceed four times Shewchuk's error bound ("Adaptive Precision Floating-Point Arithmetic and
  /// Fast Robust Geometric Predicates", 1997, `orient2d` stage A), so that the exact signs, and any
  /// evaluation accurate to that bound (GEOS's double-double orientation among them), agree. Two
  /// edges are apart when the ends of one lie strictly on one side of the other's line; edges
  /// whose boxes do not meet are apart without a test. Containment is the even-odd count of a
  /// ray's crossings, each decided by such a sign.
  ///
  /// False means only that this is not certain: a touch (a hole
  /// touching its exterior ring at a vertex is valid), a crossing, an orientation within the
  /// bound, more than ``mostRings`` rings, or more than ``pairsPerEdge`` pairs of edges to look
  /// at per edge. GEOS decides those (`validateWithGEOS()` in
  /// `GEOSValidation`).
  ///
  /// Cost: the edges' boxes sorted by west end, then each edge tested against the edges whose
  /// boxes overlap its own (a sweep), about n log n + k for n edges and k overlapping pairs; for
  /// r rings, a vertex of each tested against the rings it could lie in, at most r² ring walks.
  package var isCertainlyValid: Bool {
    let rings = ringLayout
    guard rings.count <= Self.mostRings else { return false }
    var edgeCount = 0
    for ring in rings {
      guard ring.end - ring.first >= 4 else { return false }
      edgeCount += ring.end - ring.first - 1
    }
    // Per ring, its edges of nonzero length (a repeated position makes an edge of none).
    var kept = [Int](repeating: 0, count: rings.count)
    return withVertices { vertices in
      withUnsafeTemporaryAllocation(of: EdgeBox.self, capacity: edgeCount) { boxes in
        var count = 0
        defer { boxes.baseAddress!.deinitialize(count: count) }
        for (r, ring) in rings.enumerated() {
          let last = ring.end - 2
          let closing = vertices.edge(last)
          let opening = vertices.edge(ring.first)
          guard closing.z == opening.x, closing.w == opening.y else { return false }
          let ringStart = count
          for i in ring.first...last {
            let e = vertices.edge(i)
            guard e.x.isFinite, e.y.isFinite else { return false }
            guard e.x != e.z || e.y != e.w else { continue }
            (boxes.baseAddress! + count).initialize(
              to: EdgeBox(
                west: min(e.x, e.z), east: max(e.x, e.z), south: min(e.y, e.w), north: max(e.y, e.w), edge: Int32(i),
                ring: Int32(r), ordinal: Int32(count - ringStart)))
            count += 1
          }
          kept[r] = count - ringStart
          guard kept[r] >= 3 else { return false }
          // The turn at each edge's end, into the next edge of the ring (repeated positions
          // skipped): certain, or none at all with the ring going on forward.
          for k in ringStart..<count {
            let e = vertices.edge(Int(boxes[k].edge))
            let next = vertices.edge(Int(boxes[k + 1 == count ? ringStart : k + 1].edge))
            guard Self.turnsOrGoesOn(e, next) else { return false }
          }
        }
        // The boxes made (edges of length zero have none), sorted in place: every copy of the
        // buffer's pointer sees the same memory.
        var byWest = UnsafeMutableBufferPointer(rebasing: boxes[0..<count])
        byWest.sort { $0.west < $1.west }
        // Pairs of boxes overlapping in longitude, at most so many: rings of many long edges side by
        // side (a comb) would make the sweep quadratic, where GEOS's monotone chains are not.
        var budget = Self.pairsPerEdge * count + 1024
        for a in 0..<count {
          let box = boxes[a]
          var b = a + 1
          while b < count && boxes[b].west <= box.east {
            let other = boxes[b]
            b += 1
            budget -= 1
            guard budget > 0 else { return false }
            guard other.south <= box.north, box.south <= other.north else { continue }
            if box.ring == other.ring {
              // Edges that follow each other share their vertex and meet only there (checked
              // above).
              let gap = abs(box.ordinal - other.ordinal)
              if gap == 1 || gap == kept[Int(box.ring)] - 1 { continue }
            }
            guard Self.certainlyApart(vertices.edge(Int(box.edge)), vertices.edge(Int(other.edge))) else {
              return false
            }
          }
        }
        return rings.count == 1 || Self.ringsNestCorrectly(rings, vertices)
      }
    }
  }

  /// The most rings ``isCertainlyValid`` decides (each is tested against the others).
  static let mostRings = 32

  /// The most pairs of edges overlapping in longitude ``isCertainlyValid`` looks at, per edge
  /// (plus 1,024): beyond, GEOS decides. The polygons of `compare-peers` have at most 6 per edge,
  /// its coastline-shaped districts at most 10.
  static let pairsPerEdge = 32

  /// For rings whose boundaries are certainly apart (``isCertainlyValid``): whether each hole is
  /// inside its exterior ring and in no other hole of its polygon, and no exterior ring is inside
  /// another polygon; false also when a containment is not certain.
  private static func ringsNestCorrectly(_ rings: [(first: Int, end: Int, exterior: Bool)], _ vertices: VertexReader)
    -> Bool
  {
    // The polygons: each exterior ring's index, its holes up to the next.
    var starts: [Int] = []
    for (r, ring) in rings.enumerated() where ring.exterior { starts.append(r) }
    guard starts.first == 0 else { return false }
    func polygon(_ k: Int) -> Range<Int> { starts[k]..<(k + 1 < starts.count ? starts[k + 1] : rings.count) }
    /// Whether ring r's first vertex is inside ring s; nil when not certain.
    func inside(_ r: Int, _ s: Int) -> Bool? {
      let p = vertices.edge(rings[r].first)
      return certainlyInside(p.x, p.y, rings[s].first..<rings[s].end - 1, vertices)
    }
    for k in starts.indices {
      let rings = polygon(k)
      let exterior = rings.lowerBound
      for hole in rings.dropFirst() {
        guard inside(hole, exterior) == true else { return false }
        for other in rings.dropFirst() where other != hole {
          guard inside(hole, other) == false else { return false }
        }
      }
      for j in starts.indices where j != k {
        let other = polygon(j)
        // Inside the other polygon: inside its exterior ring and in none of its holes.
        guard let inExterior = inside(exterior, other.lowerBound) else { return false }
        guard inExterior else { continue }
        var inHole = false
        for hole in other.dropFirst() {
          guard let here = inside(exterior, hole) else { return false }
          inHole = inHole || here
        }
        guard inHole else { return false }
      }
    }
    return true
  }

  /// Whether (px, py), on no edge of the ring, is inside it by the even-odd rule: the crossings
  /// of the ray from it to the east, each edge from below to above its latitude (or back) decided
  /// by which side of the edge the point lies on; nil when a side is not certain.
  private static func certainlyInside(_ px: Double, _ py: Double, _ edges: Range<Int>, _ vertices: VertexReader)
    -> Bool?
  {
    var inside = false
    for i in edges {
      let e = vertices.edge(i)
      guard (e.y > py) != (e.w > py) else { continue }
      let side = certainSign(e.x, e.y, e.z, e.w, px, py)
      guard side != 0 else { return nil }
      // Left of an edge going north, or right of one going south: the crossing is east of it.
      if (side > 0) == (e.w > e.y) { inside.toggle() }
    }
    return inside
  }

  /// An edge's bounding box, its index (from vertex `edge` to the next), its ring and its place
  /// in the ring.
  private struct EdgeBox {
    var west: Double
    var east: Double
    var south: Double
    var north: Double
    var edge: Int32
    var ring: Int32
    /// Its place among its ring's edges of nonzero length.
    var ordinal: Int32
  }

  /// Whether edge e (a → b) and the edge after it, `next` (b → c), meet only at b: c certainly off
  /// the line of e, or exactly on it (exact orientation) with the ring going on in the direction of
  /// e (no step back along it).
  @inline(__always)
  private static func turnsOrGoesOn(_ e: SIMD4<Double>, _ next: SIMD4<Double>) -> Bool {
    if certainSign(e.x, e.y, e.z, e.w, next.z, next.w) != 0 { return true }
    guard PlanarOrientation.sign(e.x, e.y, e.z, e.w, next.z, next.w) == 0 else { return false }
    // On one line: onward when each coordinate moves the same way along both edges (neither edge
    // has length zero, so a step back turns at least one of them around).
    func way(_ from: Double, _ to: Double) -> Int { from < to ? 1 : from > to ? -1 : 0 }
    return way(e.x, e.z) == way(next.x, next.z) && way(e.y, e.w) == way(next.y, next.w)
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
