#ifndef GEOWAKE_CZLIB_SHIM_H
#define GEOWAKE_CZLIB_SHIM_H
// The system zlib: gzip-compressed inputs are inflated as they are read.
#include <zlib.h>
#endif
