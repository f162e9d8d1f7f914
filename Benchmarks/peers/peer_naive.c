/* Naive peer: every fix against every circle with the haversine formula on a sphere
 * (R = 6,371,008.8 m). No index. For large K it runs on the first `limit` fixes only and reports
 * the rate (fixes/s), which does not depend on how many fixes are run.
 * Usage: peer_naive TRACK.csv REGIONS.csv [LIMIT] */
#include <math.h>
#include "peer_common.h"

int main(int argc, char **argv) {
  Fixes f;
  Circles c;
  long limit = peer_arguments(argc, argv, "peer_naive", &f, &c);
  double *clat = malloc(c.n * sizeof(double)), *ccos = malloc(c.n * sizeof(double)), *clon = malloc(c.n * sizeof(double));
  double *hmax = malloc(c.n * sizeof(double));
  double build = 1e300, run = 1e300;
  long pairs = 0;
  double spent = 0;
  for (int repeat = 0; peer_more(repeat, spent); repeat++) {
    double t0 = now_seconds();
    for (long j = 0; j < c.n; j++) {
      clat[j] = c.lat[j] * DEG; clon[j] = c.lon[j] * DEG; ccos[j] = cos(clat[j]);
      double s = sin(c.radius[j] / EARTH_RADIUS / 2);
      hmax[j] = s * s; /* haversine(d/R) <= hmax  <=>  d <= r */
    }
    double built = now_seconds() - t0;
    if (built < build) build = built;
    pairs = 0;
    t0 = now_seconds();
    for (long i = 0; i < limit; i++) {
      double la = f.lat[i] * DEG, lo = f.lon[i] * DEG, cl = cos(la);
      for (long j = 0; j < c.n; j++) {
        double a = sin((la - clat[j]) / 2), b = sin((lo - clon[j]) / 2);
        double h = a * a + cl * ccos[j] * b * b;
        pairs += h <= hmax[j];
      }
    }
    double ran = now_seconds() - t0;
    if (ran < run) run = ran;
    spent += built + ran;
  }
  printf("engine=naive-haversine fixes=%ld regions=%ld build_s=%.6f run_s=%.6f fixes_per_s=%.0f pairs=%ld exact=sphere\n",
         limit, c.n, build, run, limit / run, pairs);
  return 0;
}
