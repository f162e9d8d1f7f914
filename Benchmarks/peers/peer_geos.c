/* GEOS peer (C API, re-entrant): each circle as a 32-gon in longitude/latitude (vertices r
 * metres from the centre on a local equirectangular plane), or each polygon of a POLYGONS.txt
 * (polygons_flat.py) with its holes, an STRtree over them, and a prepared covers per candidate (the
 * boundary counts as inside, as GeoWake's containment has it).
 * Usage: peer_geos TRACK.csv REGIONS.csv|POLYGONS.txt [LIMIT] */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#include <math.h>
#include "peer_common.h"

typedef struct { GEOSContextHandle_t ctx; const GEOSPreparedGeometry **prepared; const GEOSGeometry *point; long hits; } Query;

static void visit(void *item, void *user) {
  Query *q = user;
  long j = (long)(size_t)item;
  if (GEOSPreparedCovers_r(q->ctx, q->prepared[j], q->point) == 1) q->hits++;
}

static void nothing(void *item, void *user) { (void)item; (void)user; }

int main(int argc, char **argv) {
  Fixes f;
  Circles c;
  long limit = peer_arguments(argc, argv, "peer_geos", &f, &c);
  int polygonal = names_polygons(argv[2]);
  Polygons p = {0};
  if (polygonal) { p = load_polygons(argv[2]); c.n = p.n; }
  GEOSContextHandle_t ctx = GEOS_init_r();
  GEOSGeometry **polygons = malloc(c.n * sizeof *polygons);
  const GEOSPreparedGeometry **prepared = malloc(c.n * sizeof *prepared);
  double build = 1e300, run = 1e300;
  Query q = {ctx, prepared, NULL, 0};
  double spent = 0;
  for (int repeat = 0; peer_more(repeat, spent); repeat++) {
    double t0 = now_seconds();
    GEOSSTRtree *tree = GEOSSTRtree_create_r(ctx, 10);
    for (long j = 0; j < c.n && polygonal; j++) {
      PolygonRings *poly = &p.polygons[j];
      GEOSGeometry *rings[poly->rings];
      for (long r = 0; r < poly->rings; r++) {
        long n = poly->ring_count[r];
        double *xy = malloc((n + 1) * 2 * sizeof(double));
        memcpy(xy, p.xy + 2 * poly->ring_start[r], n * 2 * sizeof(double));
        xy[2 * n] = xy[0]; xy[2 * n + 1] = xy[1];
        rings[r] = GEOSGeom_createLinearRing_r(ctx, GEOSCoordSeq_copyFromBuffer_r(ctx, xy, n + 1, 0, 0));
        free(xy);
      }
      polygons[j] = GEOSGeom_createPolygon_r(ctx, rings[0], rings + 1, poly->rings - 1);
      prepared[j] = GEOSPrepare_r(ctx, polygons[j]);
      GEOSSTRtree_insert_r(ctx, tree, polygons[j], (void *)(size_t)j);
    }
    for (long j = 0; j < c.n && !polygonal; j++) {
      double xy[33 * 2];
      double mlat = EARTH_RADIUS * DEG, mlon = mlat * cos(c.lat[j] * DEG);
      for (int k = 0; k < 32; k++) {
        double a = 2 * 3.14159265358979323846 * k / 32;
        xy[2 * k] = c.lon[j] + c.radius[j] * cos(a) / mlon;
        xy[2 * k + 1] = c.lat[j] + c.radius[j] * sin(a) / mlat;
      }
      xy[64] = xy[0]; xy[65] = xy[1];
      GEOSCoordSequence *seq = GEOSCoordSeq_copyFromBuffer_r(ctx, xy, 33, 0, 0);
      polygons[j] = GEOSGeom_createPolygon_r(ctx, GEOSGeom_createLinearRing_r(ctx, seq), NULL, 0);
      prepared[j] = GEOSPrepare_r(ctx, polygons[j]);
      GEOSSTRtree_insert_r(ctx, tree, polygons[j], (void *)(size_t)j);
    }
    GEOSGeometry *probe = GEOSGeom_createPointFromXY_r(ctx, 0, 0);
    GEOSSTRtree_query_r(ctx, tree, probe, nothing, NULL); /* forces the tree to build */
    GEOSGeom_destroy_r(ctx, probe);
    double built = now_seconds() - t0;
    if (built < build) build = built;
    q.hits = 0;
    t0 = now_seconds();
    for (long i = 0; i < limit; i++) {
      GEOSGeometry *point = GEOSGeom_createPointFromXY_r(ctx, f.lon[i], f.lat[i]);
      q.point = point;
      GEOSSTRtree_query_r(ctx, tree, point, visit, &q);
      GEOSGeom_destroy_r(ctx, point);
    }
    double ran = now_seconds() - t0;
    if (ran < run) run = ran;
    spent += built + ran;
    /* Not timed: free this repeat's tree and geometries. */
    GEOSSTRtree_destroy_r(ctx, tree);
    for (long j = 0; j < c.n; j++) {
      GEOSPreparedGeom_destroy_r(ctx, prepared[j]);
      GEOSGeom_destroy_r(ctx, polygons[j]);
    }
  }
  printf("engine=geos-strtree fixes=%ld regions=%ld build_s=%.6f run_s=%.6f fixes_per_s=%.0f pairs=%ld exact=%s\n",
         limit, c.n, build, run, limit / run, q.hits, polygonal ? "lon/lat-plane" : "32-gon");
  GEOS_finish_r(ctx);
  return 0;
}
