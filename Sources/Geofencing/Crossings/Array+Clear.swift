extension Array {
  /// Empties a scratch array that is usually short, keeping its capacity.
  ///
  /// `removeAll(keepingCapacity:)` goes through `replaceSubrange`, some hundred instructions even
  /// for one element; the scratch arrays of the detector hold one to three elements per fix.
  @inline(__always)
  mutating func clearKeepingCapacity() {
    if count > 8 {
      removeAll(keepingCapacity: true)
    } else {
      while !isEmpty { removeLast() }
    }
  }

  /// Makes the array `count` copies of `value`, keeping its capacity: `append(contentsOf:)` of a
  /// `repeatElement` went through the generic sequence path.
  @inline(__always)
  mutating func reset(to value: Element, count: Int) {
    if self.count > count {
      removeLast(self.count - count)
    } else if self.count < count {
      reserveCapacity(count)
      for _ in self.count..<count { append(value) }
    }
    withUnsafeMutableBufferPointer { $0.update(repeating: value) }
  }
}
