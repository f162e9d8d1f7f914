package import CGEOS

/// An error reported by GEOS, with the operation that failed and GEOS's own message.
package struct GEOSError: Error, Hashable, Sendable, CustomStringConvertible {
  package let operation: String
  package let message: String
  package var description: String { message.isEmpty ? "\(operation) failed" : "\(operation): \(message)" }
}

/// One GEOS context handle (`GEOS_init_r`), the owner of every geometry made with it.
///
/// GEOS's re-entrant API is safe when each context is used by one thread at a time; this class
/// is therefore not `Sendable`.
/// - Important: Confine a context, and every geometry made with it, to one task.
package final class GEOSContext {
  package let handle: GEOSContextHandle_t
  /// The last error message GEOS reported on this context (set by the error handler).
  package fileprivate(set) var lastError: String = ""

  package init() throws(GEOSError) {
    guard let handle = GEOS_init_r() else { throw GEOSError(operation: "GEOS_init_r", message: "no context") }
    self.handle = handle
    // The handler gets `self` back as user data; unretained because the context owns the handler.
    _ = GEOSContext_setErrorMessageHandler_r(
      handle,
      { message, userData in
        guard let userData, let message else { return }
        Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue().lastError = String(cString: message)
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  deinit { GEOS_finish_r(handle) }

  /// Decodes GEOS's predicate convention: 1 = true, 0 = false, 2 = exception.
  package func predicate(_ result: CChar, _ operation: StaticString) throws(GEOSError) -> Bool {
    switch result {
    case 1: return true
    case 0: return false
    default: throw takeError(String(describing: operation))
    }
  }

  /// The pending error message as a ``GEOSError``, clearing it.
  package func takeError(_ operation: String) -> GEOSError {
    defer { lastError = "" }
    return GEOSError(operation: operation, message: lastError)
  }
}
