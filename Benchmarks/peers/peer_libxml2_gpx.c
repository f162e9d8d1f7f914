/* libxml2 SAX2 reading a GPX file, for Benchmarks/compare-peers: the full fix as GeoWake reads it
 * (lat/lon attributes of every trkpt parsed with strtod, the text of ele/time/hdop collected;
 * time is not converted, which favours this peer). Whole parse timed, best of 3.
 * Usage: peer_libxml2_gpx FILE.gpx */
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long points, values;
static double checksum;
static int collecting;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void start(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri, int nns,
                  const xmlChar **ns, int nattr, int ndef, const xmlChar **attr) {
  (void)ctx; (void)prefix; (void)uri; (void)nns; (void)ns; (void)ndef;
  if (strcmp((const char *)local, "trkpt") == 0) {
    points++;
    for (int i = 0; i < nattr; i++) {
      const xmlChar **a = attr + 5 * i; /* localname, prefix, URI, value, end */
      char buf[64];
      int n = (int)(a[4] - a[3]);
      if (n > 63) n = 63;
      memcpy(buf, a[3], n);
      buf[n] = 0;
      checksum += strtod(buf, NULL);
    }
  } else if (!strcmp((const char *)local, "ele") || !strcmp((const char *)local, "time") || !strcmp((const char *)local, "hdop")) {
    collecting = 1;
  }
}

static void end(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
  (void)ctx; (void)local; (void)prefix; (void)uri;
  if (collecting) values++;
  collecting = 0;
}

static void characters(void *ctx, const xmlChar *ch, int len) {
  (void)ctx;
  if (collecting && len > 0) checksum += ch[0];
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: peer_libxml2_gpx FILE.gpx\n"); return 64; }
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 66; }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fclose(f);
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    xmlSAXHandler h;
    memset(&h, 0, sizeof h);
    h.initialized = XML_SAX2_MAGIC;
    h.startElementNs = start;
    h.endElementNs = end;
    h.characters = characters;
    points = values = 0;
    checksum = 0;
    double t0 = now_seconds();
    if (xmlSAXUserParseFile(&h, NULL, argv[1]) != 0) { fprintf(stderr, "libxml2: parse failed\n"); return 65; }
    double t = now_seconds() - t0;
    if (t < best) best = t;
  }
  printf("engine=libxml2-sax2 task=gpx bytes=%ld run_s=%f mb_per_s=%f points=%ld values=%ld\n", bytes, best, bytes / best / 1e6, points, values);
  return 0;
}
