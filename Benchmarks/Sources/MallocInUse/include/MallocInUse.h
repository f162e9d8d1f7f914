// The bytes the C allocator holds for the program, for measuring what a structure keeps.
#ifndef GEOWAKE_MALLOC_IN_USE_H
#define GEOWAKE_MALLOC_IN_USE_H

#include <stddef.h>

/// Bytes allocated and not yet freed, as the allocator counts them (its own per-block overhead
/// included): glibc's `mallinfo2`, or the default zone's statistics on Apple platforms.
size_t geowake_malloc_in_use(void);

#endif
