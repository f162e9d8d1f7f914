// Software prefetch for Swift, which has no prefetch intrinsic of its own.
#ifndef GEOWAKE_PREFETCH_H
#define GEOWAKE_PREFETCH_H

/// Asks the processor to bring the cache line holding `address` closer, for reading; a hint that
/// never faults, whatever the address.
static inline void geowake_prefetch(const void *_Nullable address) { __builtin_prefetch(address, 0, 3); }

#endif
