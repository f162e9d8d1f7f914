// S2 peer (libs2): each circle as an S2Cap on the unit sphere (angle r / 6,371,008.8 m), its
// covering (S2RegionCoverer, at most 8 cells) in an S2CellIndex, and S2Cap::Contains for every
// candidate whose covering holds the fix's leaf cell. Usage: peer_s2 TRACK.csv REGIONS.csv [LIMIT]
#include <s2/s1angle.h>
#include <s2/s2cap.h>
#include <s2/s2cell_id.h>
#include <s2/s2cell_index.h>
#include <s2/s2latlng.h>
#include <s2/s2region_coverer.h>
#include <vector>
extern "C" {
#include "peer_common.h"
}

int main(int argc, char **argv) {
  Fixes f;
  Circles c;
  long limit = peer_arguments(argc, argv, "peer_s2", &f, &c);
  double build = 1e300, run = 1e300;
  long pairs = 0;
  double spent = 0;
  for (int repeat = 0; peer_more(repeat, spent); repeat++) {
    std::vector<S2Cap> caps;
    caps.reserve(c.n);
    double t0 = now_seconds();
    S2RegionCoverer::Options options;
    options.set_max_cells(8);
    S2RegionCoverer coverer(options);
    S2CellIndex index;
    for (long j = 0; j < c.n; j++) {
      S2Point center = S2LatLng::FromDegrees(c.lat[j], c.lon[j]).ToPoint();
      caps.emplace_back(center, S1Angle::Radians(c.radius[j] / EARTH_RADIUS));
      index.Add(coverer.GetCovering(caps.back()), (int32)j);
    }
    index.Build();
    double built = now_seconds() - t0;
    if (built < build) build = built;
    pairs = 0;
    t0 = now_seconds();
    S2CellIndex::RangeIterator range(&index);
    S2CellIndex::ContentsIterator contents(&index);
    for (long i = 0; i < limit; i++) {
      S2Point p = S2LatLng::FromDegrees(f.lat[i], f.lon[i]).ToPoint();
      S2CellId leaf(p);
      range.Seek(leaf);  // the range containing the leaf cell
      contents.Clear();  // queries are independent: forget the previous range
      for (contents.StartUnion(range); !contents.done(); contents.Next()) {
        if (caps[contents.label()].Contains(p)) pairs++;
      }
    }
    double ran = now_seconds() - t0;
    if (ran < run) run = ran;
    spent += built + ran;
  }
  printf("engine=s2-cellindex fixes=%ld regions=%ld build_s=%.6f run_s=%.6f fixes_per_s=%.0f pairs=%ld exact=sphere\n",
         limit, c.n, build, run, limit / run, pairs);
  return 0;
}
