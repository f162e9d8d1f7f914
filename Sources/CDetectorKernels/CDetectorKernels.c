// The kernel is `static inline` in include/CircleFilterKernel.h; SwiftPM needs one source file.
#include "CircleFilterKernel.h"
