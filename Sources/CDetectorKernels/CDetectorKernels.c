// The kernels are `static inline` in include/ (CircleFilterKernel.h, GridIndex.h, Prefetch.h);
// SwiftPM needs one source file.
#include "CircleFilterKernel.h"
#include "GridIndex.h"
#include "Prefetch.h"
