#ifndef GEOWAKE_CGEOS_SHIM_H
#define GEOWAKE_CGEOS_SHIM_H
// Only the re-entrant (`_r`) API: every call names its context, so one context per thread is safe.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#endif
