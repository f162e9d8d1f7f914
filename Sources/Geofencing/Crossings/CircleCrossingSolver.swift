import Geodesy

/// Finds where a ``PathSegment`` crosses the boundary of a circle, exactly on WGS84.
///
/// * **States are exact.** The containment of the segment's ends (and of any point that decides
///   a pass-through) comes from the chord test, with Karney's geodesic inside the chord band.
/// * **Long pieces are split.** Pieces longer than ``maximumPieceLength`` are halved until a piece
///   is short or provably cannot reach the boundary (the Lipschitz test: containment can change
///   only after moving as far as the margin to the band, so two end margins adding up to more
///   than the piece length rule a crossing out).
/// * **Short pieces are quasi-convex.** On a short piece the chord distance to the centre has no
///   interior maximum, so ends on opposite sides have one crossing; ends outside have two exactly
///   when the closest approach is inside (a *pass-through*); ends inside have none. The closest
///   approach is first bounded with the straight 3-D segment between the ends (the path is
///   within √(L² − c²)/2 of it, L its length bound and c the segment's length), and searched on
///   the path itself only when that is inconclusive.
/// * **Crossings are located on the chord.** The crossing is the root of chord(P(u)) = c_mid, the
///   middle of the circle's chord band, found by safeguarded secant steps to
///   ``timeTolerance``. Inside a grid cell, P(u) comes from the curve through the piece's ends
///   with the path's second derivative (``CartesianFrame/curvature(deltaLatitude:deltaLongitude:)``)
///   when its proven error is within ``interpolationTolerance``, not from a fresh series each step. The exact boundary lies within half the band of it: 4 µm for a 2 km
///   circle, 0.05 mm at ``exactRefinementBand``. Circles whose band is wider get their crossing
///   refined on the exact geodesic distance.
struct CircleCrossingSolver {
  /// Crossing times are located to this many seconds along the path.
  static let timeTolerance = 1e-6
  /// Pieces of path longer than this (metres) are subdivided.
  static let maximumPieceLength = 1_000.0
  /// Chord bands wider than this (metres; circles above about 4.6 km) are refined exactly.
  static let exactRefinementBand = 1e-4
  /// The largest error (metres) of the interpolated path points the secant steps may use: a
  /// hundredth of the narrowest chord band (1 µm).
  static let interpolationTolerance = 1e-8

  struct Evaluation {
    /// Earth-centred coordinates of the point.
    var p: SIMD3<Double>
    /// Chord length to the centre.
    var d: Double
    var inside: Bool
    var margin: Double
  }

  let circle: CircleGeometry
  let path: PathSegment
  /// Computes Earth-centred coordinates of path points (local series inside a grid cell).
  let frame: CartesianFrame
  let midChord: Double
  /// Tolerance in u corresponding to ``timeTolerance``.
  let parameterTolerance: Double
  /// The interpolated path, P(u) ≈ start + u · step + (u² − u)/2 · second, when set.
  private var interpolation: (start: SIMD3<Double>, step: SIMD3<Double>, second: SIMD3<Double>)?

  init(circle: CircleGeometry, path: PathSegment, frame: CartesianFrame) {
    self.circle = circle
    self.path = path
    self.frame = frame
    midChord = (circle.innerChord + circle.outerChord) / 2
    let duration = path.time1 - path.time0
    parameterTolerance = duration > 0 ? max(1e-12, Self.timeTolerance / duration) : 1e-9
  }

  /// Lets ``chord(_:)`` interpolate between the path's ends, Earth-centred `p0` and `p1`, when
  /// the frame is local and the interpolation's error bound, with 5e-9 m for the ends' own error
  /// (rounding, and at most 1e-9 m from ``CellCandidates/cartesian(latitude:longitude:)``'s map)
  /// and the rounding of the sum, is within ``interpolationTolerance``.
  @inline(__always)
  mutating func interpolate(from p0: SIMD3<Double>, to p1: SIMD3<Double>) {
    guard frame.isLocal else { return }
    let (second, error) = frame.curvature(deltaLatitude: path.deltaLatitude, deltaLongitude: path.deltaLongitude)
    guard error + 5e-9 <= Self.interpolationTolerance else { return }
    interpolation = (p0, p1 - p0, second)
  }

  /// Earth-centred coordinates of the path at `u`: interpolated when allowed, else exact.
  @inline(__always)
  func position(_ u: Double) -> SIMD3<Double> {
    if let (start, step, second) = interpolation {
      return start + u * step + ((u * u - u) / 2) * second
    }
    return frame.cartesian(path.point(at: u))
  }

  @inline(__always)
  func chord(_ u: Double) -> Double {
    let d = position(u) - circle.centerCartesian
    return (d * d).sum().squareRoot()
  }

  /// Exact state at u.
  func evaluate(_ u: Double) -> Evaluation {
    let point = path.point(at: u)
    return evaluation(frame.cartesian(point), point: point)
  }

  /// Exact state of a point given its Earth-centred coordinates.
  @inline(__always)
  func evaluation(_ p: SIMD3<Double>, point: @autoclosure () -> Coordinate) -> Evaluation {
    let v = p - circle.centerCartesian
    let d = (v * v).sum().squareRoot()
    if d <= circle.innerChord { return Evaluation(p: p, d: d, inside: true, margin: circle.innerChord - d) }
    if d > circle.outerChord { return Evaluation(p: p, d: d, inside: false, margin: d - circle.outerChord) }
    return Evaluation(p: p, d: d, inside: circle.exactlyContains(point()), margin: 0)
  }

  /// ``evaluation(_:point:)`` for a point whose chord `d` is known and outside the band, its state
  /// being `inside`.
  @inline(__always)
  func evaluation(_ p: SIMD3<Double>, chord d: Double, inside: Bool) -> Evaluation {
    Evaluation(p: p, d: d, inside: inside, margin: inside ? circle.innerChord - d : d - circle.outerChord)
  }

  /// The single crossing of a piece no longer than ``maximumPieceLength`` whose ends' exact states
  /// differ: what ``crossings(start:end:length:into:)`` finds for it, without the list.
  @inline(__always)
  func crossing(start: Evaluation, end: Evaluation) -> Double {
    root(0, start, 1, end)
  }

  /// Appends the crossings between u = 0 and u = 1 given the exact states at both ends and an
  /// upper bound on the whole path's length.
  func crossings(start: Evaluation, end: Evaluation, length: Double, into out: inout [(u: Double, enter: Bool)]) {
    solve(u0: 0, u1: 1, e0: start, e1: end, length: length, into: &out)
  }

  private func solve(
    u0: Double, u1: Double, e0: Evaluation, e1: Evaluation, length: Double, into out: inout [(u: Double, enter: Bool)]
  ) {
    if e0.inside == e1.inside && e0.margin + e1.margin > length { return }
    if length > Self.maximumPieceLength && u1 - u0 > 2 * parameterTolerance {
      let um = (u0 + u1) / 2
      let em = evaluate(um)
      solve(u0: u0, u1: um, e0: e0, e1: em, length: path.lengthBound(from: u0, to: um), into: &out)
      solve(u0: um, u1: u1, e0: em, e1: e1, length: path.lengthBound(from: um, to: u1), into: &out)
      return
    }
    if e0.inside != e1.inside {
      out.append((root(u0, e0, u1, e1), !e0.inside))
      return
    }
    guard !e0.inside else { return }  // quasi-convex: inside at both ends means inside throughout
    guard let (uMin, eMin) = closestApproach(u0, e0, u1, e1, length: length), eMin.inside else { return }
    out.append((root(u0, e0, uMin, eMin), true))
    out.append((root(uMin, eMin, u1, e1), false))
  }

  /// The u in [a, b] where the boundary is crossed, given opposite exact states at a and b.
  private func root(_ a: Double, _ ea: Evaluation, _ b: Double, _ eb: Evaluation) -> Double {
    var (a, ga, b, gb) = (a, ea.d - midChord, b, eb.d - midChord)
    var u: Double
    if (ga > 0) == (gb > 0) {
      // Both ends are inside the band on the same side of c_mid: the crossing is within half a
      // band of the end nearer to c_mid.
      u = abs(ga) < abs(gb) ? a : b
    } else {
      // Seed: where the straight 3-D segment between the ends meets the sphere of radius c_mid,
      // then safeguarded secant steps on the path itself (Illinois rule), stopping when a step
      // moves less than the tolerance.
      u = a + (b - a) * straightCrossing(ea.p, eb.p, entering: ga > 0)
      var side = 0
      for _ in 0..<100 {
        if !(u > a && u < b) { u = (a + b) / 2 }
        let gu = chord(u) - midChord
        if gu == 0 { break }
        if (gu > 0) == (ga > 0) {
          a = u
          ga = gu
          if side == -1 { gb /= 2 }
          side = -1
        } else {
          b = u
          gb = gu
          if side == 1 { ga /= 2 }
          side = 1
        }
        let next = a + (b - a) * ga / (ga - gb)
        if abs(next - u) <= parameterTolerance || b - a <= 2 * parameterTolerance {
          u = min(max(next, a), b)
          break
        }
        u = next
      }
    }
    guard circle.outerChord - circle.innerChord > Self.exactRefinementBand else { return u }
    return exactRoot(near: u, ea.inside)
  }

  /// Parameter t in [0, 1] where p + t(q − p) is at distance c_mid from the centre: the smaller
  /// root when the segment enters the sphere, the larger when it leaves.
  @inline(__always)
  private func straightCrossing(_ p: SIMD3<Double>, _ q: SIMD3<Double>, entering: Bool) -> Double {
    let v = q - p
    let w = p - circle.centerCartesian
    let a = (v * v).sum()
    let b = (v * w).sum()
    let c = (w * w).sum() - midChord * midChord
    guard a > 0 else { return 0.5 }
    let discriminant = max(0, b * b - a * c)
    let t = (-b + (entering ? -1 : 1) * discriminant.squareRoot()) / a
    return min(1, max(0, t))
  }

  /// Refines a crossing of a large circle on the exact geodesic distance: brackets the sign change
  /// of (geodesic − radius) around `u`, then bisects it to the time tolerance.
  private func exactRoot(near u: Double, _ insideBefore: Bool) -> Double {
    func inside(_ v: Double) -> Bool { circle.exactlyContains(path.point(at: v)) }
    var step = max(parameterTolerance, 1e-9)
    var a = max(0, u - step)
    var b = min(1, u + step)
    while (inside(a) != insideBefore || inside(b) == insideBefore) && (a > 0 || b < 1) {
      step *= 4
      a = max(0, u - step)
      b = min(1, u + step)
    }
    while b - a > 2 * parameterTolerance {
      let m = (a + b) / 2
      if inside(m) == insideBefore { a = m } else { b = m }
    }
    return (a + b) / 2
  }

  /// The point of [a, b] closest to the centre when it may be inside the circle, else nil.
  private func closestApproach(_ a: Double, _ ea: Evaluation, _ b: Double, _ eb: Evaluation, length: Double)
    -> (Double, Evaluation)?
  {
    // The straight segment between the ends bounds the path within the ellipse of foci p, q and
    // major axis `length`: every path point is within √(L² − c²)/2 of the segment.
    let p = ea.p
    let q = eb.p
    let pq = q - p
    let c2 = (pq * pq).sum()
    let toCenter = circle.centerCartesian - p
    let t = c2 > 0 ? min(1, max(0, (toCenter * pq).sum() / c2)) : 0
    let nearest = p + t * pq - circle.centerCartesian
    let dSegment = (nearest * nearest).sum().squareRoot()
    let deviation = (max(0, length * length - c2)).squareRoot() / 2 + 1e-9
    if dSegment - deviation > circle.outerChord { return nil }
    // Golden-section search for the smallest chord on the path itself.
    let ratio = (5.0.squareRoot() - 1) / 2
    var (lo, hi) = (a, b)
    var c = hi - ratio * (hi - lo)
    var d = lo + ratio * (hi - lo)
    var fc = chord(c)
    var fd = chord(d)
    while hi - lo > parameterTolerance {
      if min(fc, fd) <= circle.innerChord { break }
      if fc < fd {
        hi = d
        d = c
        fd = fc
        c = hi - ratio * (hi - lo)
        fc = chord(c)
      } else {
        lo = c
        c = d
        fc = fd
        d = lo + ratio * (hi - lo)
        fd = chord(d)
      }
    }
    let u = fc < fd ? c : d
    return (u, evaluate(u))
  }
}
