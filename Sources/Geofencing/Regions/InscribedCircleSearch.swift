/// The largest circle inside a polygon, found by subdividing its bounding box (the "pole of
/// inaccessibility" search of Agafonkin's polylabel, 2016): cells are visited best bound first,
/// a cell's bound being the distance from its centre to the boundary plus its half-diagonal, and
/// a cell is split in four only while its bound exceeds the best radius found by more than the
/// tolerance.
///
/// **Error bound.** The result is the distance from an interior point to the boundary, so it never
/// exceeds the true largest radius; the search stops only when no cell can hold a point deeper by
/// more than `tolerance`, so it is never more than `tolerance` below it.
struct InscribedCircleSearch {
  let geometry: PolygonGeometry
  /// Metres per degree of longitude over metres per degree of latitude: the plane is
  /// ((x − middle) · xScale, y).
  let xScale: Double

  private struct Cell {
    var x: Double
    var y: Double
    var half: Double
    var distance: Double
    var bound: Double { distance + half * 2.0.squareRoot() }
  }

  /// The radius in degrees of latitude, within `tolerance` below the largest.
  func radius(tolerance: Double) -> Double {
    let box = geometry.planar.box
    let middle = geometry.planar.middleX
    let west = (box.west - middle) * xScale
    let east = (box.east - middle) * xScale
    let width = east - west
    let height = box.north - box.south
    let size = min(width, height)
    guard size > 0 else { return 0 }
    var queue: [Cell] = []
    var half = size / 2
    var y = box.south
    while y < box.north {
      var x = west
      while x < east {
        push(cell(x + half, y + half, half, middle: middle), into: &queue)
        x += size
      }
      y += size
    }
    var best = cell((west + east) / 2, (box.south + box.north) / 2, 0, middle: middle)
    while let next = pop(&queue) {
      if next.distance > best.distance { best = next }
      if next.bound - best.distance <= tolerance { continue }
      half = next.half / 2
      for (dx, dy) in [(-half, -half), (half, -half), (-half, half), (half, half)] {
        push(cell(next.x + dx, next.y + dy, half, middle: middle), into: &queue)
      }
    }
    return max(0, best.distance)
  }

  /// A cell centred at (x, y) in the scaled plane, with its signed distance to the boundary
  /// (negative outside).
  private func cell(_ x: Double, _ y: Double, _ half: Double, middle: Double) -> Cell {
    var least = Double.infinity
    geometry.forEachEdge { e in
      let ax = (e.x - middle) * xScale
      let bx = (e.z - middle) * xScale
      let dx = bx - ax
      let dy = e.w - e.y
      let length2 = dx * dx + dy * dy
      let t = length2 > 0 ? min(1, max(0, ((x - ax) * dx + (y - e.y) * dy) / length2)) : 0
      let px = ax + t * dx - x
      let py = e.y + t * dy - y
      least = min(least, px * px + py * py)
    }
    let distance = least.squareRoot()
    let inside = geometry.contains(x: x / xScale + middle, y: y)
    return Cell(x: x, y: y, half: half, distance: inside ? distance : -distance)
  }

  // A binary max-heap on `bound`.
  private func push(_ cell: Cell, into heap: inout [Cell]) {
    heap.append(cell)
    var i = heap.count - 1
    while i > 0 {
      let parent = (i - 1) / 2
      guard heap[parent].bound < heap[i].bound else { break }
      heap.swapAt(parent, i)
      i = parent
    }
  }

  private func pop(_ heap: inout [Cell]) -> Cell? {
    guard !heap.isEmpty else { return nil }
    let top = heap[0]
    let last = heap.removeLast()
    guard !heap.isEmpty else { return top }
    heap[0] = last
    var i = 0
    while true {
      let left = 2 * i + 1
      let right = left + 1
      var largest = i
      if left < heap.count && heap[left].bound > heap[largest].bound { largest = left }
      if right < heap.count && heap[right].bound > heap[largest].bound { largest = right }
      if largest == i { break }
      heap.swapAt(i, largest)
      i = largest
    }
    return top
  }
}
