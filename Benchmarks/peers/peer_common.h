/* Shared by the C/C++ peers of Benchmarks/compare-peers: CSV loading (not timed) and a clock.
 * Track CSV: header "time,lat,lon[,accuracy]"; regions CSV: header "id,lat,lon,radius". */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { double *lat, *lon; long n; } Fixes;
typedef struct { double *lat, *lon, *radius; long n; } Circles;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Returns the comma-separated field `k` (0-based) of `line`, or NULL. */
static const char *field(const char *line, int k) {
  while (k > 0 && line) { line = strchr(line, ','); if (line) line++; k--; }
  return line;
}

static Fixes load_fixes(const char *path) {
  Fixes f = {0};
  FILE *in = fopen(path, "r");
  if (!in) { perror(path); exit(66); }
  long cap = 1 << 20;
  f.lat = (double *)malloc(cap * sizeof(double)); f.lon = (double *)malloc(cap * sizeof(double));
  char line[512];
  int header = 1;
  while (fgets(line, sizeof line, in)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (header) { header = 0; continue; }
    if (f.n == cap) { cap *= 2; f.lat = (double *)realloc(f.lat, cap * sizeof(double)); f.lon = (double *)realloc(f.lon, cap * sizeof(double)); }
    f.lat[f.n] = strtod(field(line, 1), NULL);
    f.lon[f.n] = strtod(field(line, 2), NULL);
    f.n++;
  }
  fclose(in);
  return f;
}

static Circles load_circles(const char *path) {
  Circles c = {0};
  FILE *in = fopen(path, "r");
  if (!in) { perror(path); exit(66); }
  long cap = 1 << 10;
  c.lat = (double *)malloc(cap * sizeof(double)); c.lon = (double *)malloc(cap * sizeof(double)); c.radius = (double *)malloc(cap * sizeof(double));
  char line[512];
  int header = 1;
  while (fgets(line, sizeof line, in)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (header) { header = 0; continue; }
    if (c.n == cap) {
      cap *= 2;
      c.lat = (double *)realloc(c.lat, cap * sizeof(double)); c.lon = (double *)realloc(c.lon, cap * sizeof(double));
      c.radius = (double *)realloc(c.radius, cap * sizeof(double));
    }
    c.lat[c.n] = strtod(field(line, 1), NULL);
    c.lon[c.n] = strtod(field(line, 2), NULL);
    c.radius[c.n] = strtod(field(line, 3), NULL);
    c.n++;
  }
  fclose(in);
  return c;
}

/* Polygons from the flat text of polygons_flat.py: per polygon, its rings (shell first, then
 * holes), each as interleaved lon/lat pairs without the closing vertex. */
typedef struct { long rings; long *ring_start; long *ring_count; } PolygonRings;
typedef struct { double *xy; long points; PolygonRings *polygons; long n; long vertices; } Polygons;

static Polygons load_polygons(const char *path) {
  Polygons p = {0};
  FILE *in = fopen(path, "r");
  if (!in) { perror(path); exit(66); }
  long cap = 1 << 20, pcap = 1 << 10;
  p.xy = (double *)malloc(cap * 2 * sizeof(double));
  p.polygons = (PolygonRings *)malloc(pcap * sizeof(PolygonRings));
  size_t size = 0;
  char *line = NULL;
  while (getline(&line, &size, in) > 0) {
    if (line[0] == '\n') continue;
    if (p.n == pcap) { pcap *= 2; p.polygons = (PolygonRings *)realloc(p.polygons, pcap * sizeof(PolygonRings)); }
    PolygonRings *poly = &p.polygons[p.n++];
    poly->rings = 1;
    for (char *c = line; *c; c++) if (*c == '|') poly->rings++;
    poly->ring_start = (long *)malloc(poly->rings * sizeof(long));
    poly->ring_count = (long *)malloc(poly->rings * sizeof(long));
    char *c = line;
    for (long r = 0; r < poly->rings; r++) {
      poly->ring_start[r] = p.points;
      long count = 0;
      for (;;) {
        while (*c == ' ') c++;
        if (*c == '|') { c++; break; }
        if (*c == '\n' || *c == 0) break;
        char *end;
        double x = strtod(c, &end);
        double y = strtod(end, &c);
        if (p.points == cap) { cap *= 2; p.xy = (double *)realloc(p.xy, cap * 2 * sizeof(double)); }
        p.xy[2 * p.points] = x;
        p.xy[2 * p.points + 1] = y;
        p.points++;
        count++;
      }
      poly->ring_count[r] = count;
      p.vertices += count;
    }
  }
  free(line);
  fclose(in);
  return p;
}

/* A regions argument names polygons when it ends in ".txt" (polygons_flat.py's output). */
static int names_polygons(const char *path) {
  size_t n = strlen(path);
  return n > 4 && strcmp(path + n - 4, ".txt") == 0;
}

/* Every peer's command line: TRACK.csv REGIONS.csv [LIMIT]. Loads both files (not timed) and
 * returns how many fixes to run (all, or the first LIMIT). */
static long peer_arguments(int argc, char **argv, const char *name, Fixes *fixes, Circles *circles) {
  if (argc < 3) { fprintf(stderr, "usage: %s TRACK.csv REGIONS.csv|POLYGONS.txt [LIMIT]\n", name); exit(64); }
  *fixes = load_fixes(argv[1]);
  if (!names_polygons(argv[2])) *circles = load_circles(argv[2]);
  long limit = argc > 3 ? atol(argv[3]) : fixes->n;
  return limit > fixes->n ? fixes->n : limit;
}

/* Each peer builds its index and runs the track again and again, until it has done so
 * PEER_REPEATS times (default 3) and spent PEER_MIN_SECONDS (default 0) in all, and reports its
 * best build and its best run. compare-peers gives every engine the same two numbers, so that a
 * burst of load on a shared machine costs no engine its result. */
static int peer_more(int done, double spent) {
  const char *repeats = getenv("PEER_REPEATS");
  const char *seconds = getenv("PEER_MIN_SECONDS");
  int n = repeats ? atoi(repeats) : 3;
  double t = seconds ? atof(seconds) : 0;
  return done < (n > 0 ? n : 1) || spent < t;
}

#define EARTH_RADIUS 6371008.8 /* mean radius, as in ../shared/PERF.md */
#define DEG (3.14159265358979323846 / 180.0)
#endif
