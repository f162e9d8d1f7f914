/// A running sum of doubles that keeps the rounding error of every addition (Knuth's TwoSum,
/// summed apart as in Kahan–Babuška–Neumaier summation), so that ``value`` is the exact sum of
/// the terms, correctly rounded, but for the errors of the kept errors themselves: below
/// n·ε² times the sum of the terms' magnitudes (ε = 2⁻⁵³), 10⁻²⁰ of it for a billion terms.
///
/// So the result does not depend on the order of the terms, nor on how they were grouped: two
/// sums joined (``add(_:)-(CompensatedSum)``) give what one sum over all their terms gives. A
/// file's statistics read in two halves print the same digits as read in order; a plain running
/// sum differs in its last bits, which a mean printed to a millionth can show (a mean of
/// one-decimal readings over 200,000 points often lies exactly halfway between two such digits).
struct CompensatedSum: Hashable, Sendable {
  private var sum = 0.0
  private var error = 0.0

  /// The sum, rounded once.
  var value: Double { sum + error }

  /// Adds `term`.
  @inline(__always)
  mutating func add(_ term: Double) {
    let s = sum + term
    let b = s - sum
    error += (sum - (s - b)) + (term - b)
    sum = s
  }

  /// Adds the terms of `other`.
  mutating func add(_ other: CompensatedSum) {
    add(other.sum)
    error += other.error
  }
}
