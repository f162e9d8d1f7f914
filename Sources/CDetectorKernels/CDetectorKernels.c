// The kernels are `static inline` in include/ (CircleFilterKernel.h, Prefetch.h); SwiftPM needs
// one source file.
#include "CircleFilterKernel.h"
#include "Prefetch.h"
