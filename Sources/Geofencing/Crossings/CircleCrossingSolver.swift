import Geodesy

/// Finds where a ``PathSegment`` crosses the boundary of a circle, exactly on WGS84.
///
/// Works on f(u) = chord(P(u), centre) − c_mid, where c_mid is the middle of the circle's chord
/// band; inside the band (where the chord cannot decide) f takes its sign from the exact geodesic
/// distance. So the sign of f is always the exact containment, and every root bracket is honest.
///
/// * Pieces of the path longer than ``maximumPieceLength`` are halved until a piece is short or
///   provably cannot reach the boundary (the Lipschitz test: containment can change only after
///   moving as far as the margin to the band, so two end margins adding up to more than the piece
///   length rule a crossing out).
/// * On a short piece the chord distance is quasi-convex in u, so ends on opposite sides have one
///   crossing; ends outside have two crossings exactly when the closest approach is inside (a
///   *pass-through*); ends inside have none.
/// * A crossing is located to ``timeTolerance`` by checking the sign of f on both sides of the
///   secant estimate, falling back to Illinois iterations.
struct CircleCrossingSolver {
  /// Crossing times are exact to this many seconds (the tests compare with 1 ms).
  static let timeTolerance = 1e-6
  /// Pieces of path longer than this (metres) are subdivided.
  static let maximumPieceLength = 1_000.0

  struct Evaluation {
    var f: Double
    var inside: Bool
    var margin: Double
  }

  let circle: CircleGeometry
  let path: PathSegment
  let midChord: Double
  /// Tolerance in u corresponding to ``timeTolerance``.
  let parameterTolerance: Double

  init(circle: CircleGeometry, path: PathSegment) {
    self.circle = circle
    self.path = path
    midChord = (circle.innerChord + circle.outerChord) / 2
    let duration = path.time1 - path.time0
    parameterTolerance = duration > 0 ? max(1e-12, Self.timeTolerance / duration) : 1e-9
  }

  /// Sign-exact evaluation at u (see the type's documentation).
  func evaluate(_ u: Double) -> Evaluation {
    let point = path.point(at: u)
    let d3 = Ellipsoid.wgs84.cartesian(point) - circle.centerCartesian
    let d = (d3 * d3).sum().squareRoot()
    return evaluation(chord: d, point: point)
  }

  func evaluation(chord d: Double, point: @autoclosure () -> Coordinate) -> Evaluation {
    if d <= circle.innerChord { return Evaluation(f: d - midChord, inside: true, margin: circle.innerChord - d) }
    if d > circle.outerChord { return Evaluation(f: d - midChord, inside: false, margin: d - circle.outerChord) }
    let inside = circle.exactlyContains(point())
    let f = inside ? min(d - midChord, -1e-12) : max(d - midChord, 1e-12)
    return Evaluation(f: f, inside: inside, margin: 0)
  }

  /// Appends the crossings between u = 0 and u = 1 given the exact states at both ends.
  /// Each element is (u, entering).
  func crossings(start: Evaluation, end: Evaluation, into out: inout [(u: Double, enter: Bool)]) {
    solve(u0: 0, u1: 1, e0: start, e1: end, into: &out)
  }

  private func solve(u0: Double, u1: Double, e0: Evaluation, e1: Evaluation, into out: inout [(u: Double, enter: Bool)]) {
    let length = path.lengthBound(from: u0, to: u1)
    if e0.inside == e1.inside && e0.margin + e1.margin > length { return }
    if length > Self.maximumPieceLength && u1 - u0 > 2 * parameterTolerance {
      let um = (u0 + u1) / 2
      let em = evaluate(um)
      solve(u0: u0, u1: um, e0: e0, e1: em, into: &out)
      solve(u0: um, u1: u1, e0: em, e1: e1, into: &out)
      return
    }
    if e0.inside != e1.inside {
      out.append((root(u0, e0, u1, e1), !e0.inside))
      return
    }
    guard !e0.inside else { return }  // quasi-convex: inside at both ends means inside throughout
    let (uMin, eMin) = closestApproach(u0, u1)
    guard eMin.inside else { return }
    out.append((root(u0, e0, uMin, eMin), true))
    out.append((root(uMin, eMin, u1, e1), false))
  }

  /// The u in [a, b] where f changes sign, given opposite states at a and b.
  private func root(_ a: Double, _ ea: Evaluation, _ b: Double, _ eb: Evaluation) -> Double {
    var (a, fa, b, fb) = (a, ea.f, b, eb.f)
    let insideA = ea.inside
    let tolerance = parameterTolerance
    // Secant estimate, then check the sign just either side of it.
    var guess = fa == fb ? (a + b) / 2 : a + (b - a) * fa / (fa - fb)
    guess = min(max(guess, a), b)
    if b - a <= 2 * tolerance { return guess }
    let left = max(a, guess - tolerance)
    let right = min(b, guess + tolerance)
    if evaluate(left).inside == insideA && evaluate(right).inside != insideA { return guess }
    // Illinois (modified regula falsi) on the sign-exact f.
    var side = 0
    for _ in 0..<200 where b - a > 2 * tolerance {
      var c = a + (b - a) * fa / (fa - fb)
      if !(c > a && c < b) { c = (a + b) / 2 }
      let ec = evaluate(c)
      if ec.inside == insideA {
        a = c
        fa = ec.f
        if side == -1 { fb /= 2 }
        side = -1
      } else {
        b = c
        fb = ec.f
        if side == 1 { fa /= 2 }
        side = 1
      }
    }
    return (a + b) / 2
  }

  /// The u in [a, b] closest to the centre (golden-section search on the chord), and f there.
  private func closestApproach(_ a: Double, _ b: Double) -> (Double, Evaluation) {
    let ratio = (5.0.squareRoot() - 1) / 2
    var (a, b) = (a, b)
    var c = b - ratio * (b - a)
    var d = a + ratio * (b - a)
    var ec = evaluate(c)
    var ed = evaluate(d)
    while b - a > parameterTolerance {
      if ec.inside { return (c, ec) }
      if ed.inside { return (d, ed) }
      if ec.f < ed.f {
        b = d
        d = c
        ed = ec
        c = b - ratio * (b - a)
        ec = evaluate(c)
      } else {
        a = c
        c = d
        ec = ed
        d = a + ratio * (b - a)
        ed = evaluate(d)
      }
    }
    return ec.f < ed.f ? (c, ec) : (d, ed)
  }
}
