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

  /// Sorts a scratch array that is usually short by insertion, taking each element in turn left
  /// past every element before it for which `movesBefore(element, earlier)` holds: with a strict
  /// order "less than", a stable ascending sort; with "not less than", exactly its reverse (equal
  /// elements last first). Elements are moved, never copied (no reference counting), and nothing
  /// is allocated: the library's stable sort set up a buffer even for a handful of elements.
  /// Quadratic: for arrays of a few dozen elements.
  @inline(__always)
  mutating func insertionSort(by movesBefore: (Element, Element) -> Bool) {
    guard count > 1 else { return }
    withUnsafeMutableBufferPointer { buffer in
      // Non-empty (count > 1).
      let a = buffer.baseAddress!
      for i in 1..<buffer.count where movesBefore(a[i], a[i - 1]) {
        let element = (a + i).move()
        var j = i
        repeat {
          (a + j).moveInitialize(from: a + j - 1, count: 1)
          j -= 1
        } while j > 0 && movesBefore(element, a[j - 1])
        (a + j).initialize(to: element)
      }
    }
  }
}
