// The row or column of a grid a coordinate falls in, for Swift, whose Double-to-Int conversion
// checks for NaN and range (about ten instructions) where the value is already known to fit.
#ifndef GEOWAKE_GRID_INDEX_H
#define GEOWAKE_GRID_INDEX_H

/// `offset · scale` clamped to 0 … `last` (NaN gives `last`), then truncated toward zero: the
/// row (or column) of a grid of `last` + 1 rows, `scale` rows per unit, that a point `offset` from
/// its first edge falls in, the nearest row for a point outside. `last` must be at most 2⁵³.
static inline long geowake_grid_index(double offset, double scale, double last) {
  double v = offset * scale;
  v = v < last ? v : last;
  v = v > 0 ? v : 0;
  return (long)v;
}

#endif
