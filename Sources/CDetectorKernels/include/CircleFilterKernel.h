// The vectorised loop of GeoWake's circle filter (Geofencing's `CircleFilter`), in C with
// clang's portable vector extensions so that every operation stays one vector instruction
// (x86-64 SSE or AVX, ARM NEON). Swift inlines it: it is `static inline` in the header.
//
// The arithmetic, its order and its rounding are the ones `CircleFilter`'s error bound is proved
// for: single precision, no fused multiply-add, the square root correctly rounded.
#ifndef GEOWAKE_CIRCLE_FILTER_KERNEL_H
#define GEOWAKE_CIRCLE_FILTER_KERNEL_H

#include <stdint.h>

typedef float geowake_float8 __attribute__((ext_vector_type(8)));
typedef float geowake_float4 __attribute__((ext_vector_type(4)));
typedef float geowake_float2 __attribute__((ext_vector_type(2)));
typedef int32_t geowake_int8 __attribute__((ext_vector_type(8)));

/// Floats per block: x, y, z, innerSquared, inner, outer, eight lanes each (`FilterBlock`).
#define GEOWAKE_FILTER_BLOCK_FLOATS 48

/// What `geowake_circle_filter` found: the least margin, and the circles it did not clear.
typedef struct {
  /// The least margin over all lanes (+inf for no block).
  float least;
  /// Bit 8 j + lane for lane `lane` of block j.
  uint64_t uncleared;
} geowake_filter_result;

/// Tests `count` (at most 8) blocks of eight circles at the point (qx, qy, qz), at the end of a
/// segment of length at most `step` (`isShort`: no longer than the solver's maximum piece), the
/// circles' states at its start being `inside` (eight 0 / -1 lanes per block).
///
/// It only reads memory (`pure`), so that Swift keeps no references alive around the call.
static inline __attribute__((pure)) geowake_filter_result geowake_circle_filter(
    const float *_Nonnull blocks, const int32_t *_Nonnull inside, long count, float qx, float qy, float qz,
    float step, int isShort) {
#pragma clang fp contract(off)
  const geowake_float8 x = qx, y = qy, z = qz, length = step;
  const geowake_int8 shortLanes = isShort ? -1 : 0;
  const geowake_int8 laneBits = {1, 2, 4, 8, 16, 32, 64, 128};
  geowake_float8 least = __builtin_inff();
  uint64_t uncleared = 0;
  for (long j = 0; j < count; j++) {
    const float *b = blocks + GEOWAKE_FILTER_BLOCK_FLOATS * j;
    geowake_float8 bx, by, bz, innerSquared, inner, outer;
    geowake_int8 was;
    __builtin_memcpy(&bx, b, sizeof bx);
    __builtin_memcpy(&by, b + 8, sizeof by);
    __builtin_memcpy(&bz, b + 16, sizeof bz);
    __builtin_memcpy(&innerSquared, b + 24, sizeof innerSquared);
    __builtin_memcpy(&inner, b + 32, sizeof inner);
    __builtin_memcpy(&outer, b + 40, sizeof outer);
    __builtin_memcpy(&was, inside + 8 * j, sizeof was);
    const geowake_float8 dx = x - bx, dy = y - by, dz = z - bz;
    const geowake_float8 d2 = dx * dx + dy * dy + dz * dz;
    const geowake_float8 reach = outer + length;
    const geowake_int8 clearInside = (d2 <= innerSquared) & shortLanes;
    const geowake_int8 clearOutside = d2 > reach * reach;
    const geowake_int8 clear = (was & clearInside) | (~was & clearOutside);
    uncleared |= (uint64_t)(uint32_t)__builtin_reduce_or(~clear & laneBits) << (8 * j);
    const geowake_float8 d = __builtin_elementwise_sqrt(d2);
    const geowake_float8 outward = d - outer, inward = inner - d;
    // Plain selects: no lane is NaN (the coordinates are finite), so the NaN rules of fmax and
    // fmin would only cost instructions.
    const geowake_float8 margin = inward > outward ? inward : outward;
    least = margin < least ? margin : least;
  }
  // The least lane by halves: three steps instead of a chain of seven.
  const geowake_float4 four = least.lo < least.hi ? least.lo : least.hi;
  const geowake_float2 two = four.lo < four.hi ? four.lo : four.hi;
  geowake_filter_result result = {two.x < two.y ? two.x : two.y, uncleared};
  return result;
}

#endif
