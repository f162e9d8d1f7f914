#include "MallocInUse.h"

#if defined(__APPLE__)
#include <malloc/malloc.h>

size_t geowake_malloc_in_use(void) {
  malloc_statistics_t statistics;
  malloc_zone_statistics(NULL, &statistics);
  return statistics.size_in_use;
}
#else
#include <malloc.h>

size_t geowake_malloc_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  // Small blocks from the heap, large ones mapped by themselves.
  return info.uordblks + info.hblkhd;
}
#endif
