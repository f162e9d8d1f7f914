/// The exact orientation of three points of the plane: on which side of the line a → b the point
/// c lies, decided without rounding error.
///
/// A floating-point determinant first, with Shewchuk's error bound ("Adaptive Precision
/// Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997, `orient2d` stage A):
/// when its magnitude exceeds the bound its sign is certain. Otherwise the determinant is
/// evaluated exactly as a floating-point expansion (every difference split into its rounded value
/// and error with TwoSum, every product with an exact two-product, the terms summed with
/// Grow-Expansion), and the sign of its most significant component is returned. The result is
/// therefore the sign of the real-number determinant of the given doubles, always.
enum PlanarOrientation {
  /// `1` if c is to the left of a → b (a, b, c counter-clockwise), `-1` to the right, `0` on the line.
  @inline(__always)
  static func sign(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
    let left = (ax - cx) * (by - cy)
    let right = (ay - cy) * (bx - cx)
    let determinant = left - right
    // Shewchuk's ccwerrboundA = (3 + 16ε)ε with ε = 2⁻⁵³.
    let bound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53 * (abs(left) + abs(right))
    if determinant > bound { return 1 }
    if -determinant > bound { return -1 }
    return exactSign(ax, ay, bx, by, cx, cy)
  }

  /// The exact sign of (ax − cx)(by − cy) − (ay − cy)(bx − cx).
  @inline(never)
  static func exactSign(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
    let acx = twoDifference(ax, cx)
    let bcy = twoDifference(by, cy)
    let acy = twoDifference(ay, cy)
    let bcx = twoDifference(bx, cx)
    // 16 exact product terms; at most 17 expansion components after growing.
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: 17) { expansion in
      var count = 0
      func grow(_ b: Double) {
        var q = b
        for i in 0..<count {
          let (sum, error) = twoSum(q, expansion[i])
          expansion[i] = error
          q = sum
        }
        expansion[count] = q
        count += 1
      }
      func addProduct(_ a: Double, _ b: Double, negated: Bool) {
        let (product, error) = twoProduct(a, b)
        grow(negated ? -error : error)
        grow(negated ? -product : product)
      }
      addProduct(acx.value, bcy.value, negated: false)
      addProduct(acx.value, bcy.error, negated: false)
      addProduct(acx.error, bcy.value, negated: false)
      addProduct(acx.error, bcy.error, negated: false)
      addProduct(acy.value, bcx.value, negated: true)
      addProduct(acy.value, bcx.error, negated: true)
      addProduct(acy.error, bcx.value, negated: true)
      addProduct(acy.error, bcx.error, negated: true)
      // Grow-Expansion keeps the components in increasing magnitude: the last non-zero one decides.
      for i in stride(from: count - 1, through: 0, by: -1) where expansion[i] != 0 {
        return expansion[i] > 0 ? 1 : -1
      }
      return 0
    }
  }

  /// a − b as its rounded value and the exact rounding error (Knuth's TwoSum on a and −b).
  @inline(__always)
  static func twoDifference(_ a: Double, _ b: Double) -> (value: Double, error: Double) {
    let (sum, error) = twoSum(a, -b)
    return (sum, error)
  }

  /// a + b as its rounded value and the exact rounding error (Knuth's TwoSum).
  @inline(__always)
  static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
    let sum = a + b
    let bVirtual = sum - a
    let aVirtual = sum - bVirtual
    return (sum, (a - aVirtual) + (b - bVirtual))
  }

  /// a × b as its rounded value and the exact rounding error (with a fused multiply-add).
  @inline(__always)
  static func twoProduct(_ a: Double, _ b: Double) -> (Double, Double) {
    let product = a * b
    return (product, (-product).addingProduct(a, b))
  }
}
