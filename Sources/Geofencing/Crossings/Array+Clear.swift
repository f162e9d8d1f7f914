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
}
