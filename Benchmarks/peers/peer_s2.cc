// S2 peer (libs2): each circle as an S2Cap on the unit sphere (angle r / 6,371,008.8 m), its
// covering (S2RegionCoverer, at most 8 cells) in an S2CellIndex, and S2Cap::Contains for every
// candidate whose covering holds the fix's leaf cell. Polygons (a POLYGONS.txt of
// polygons_flat.py): each an S2Polygon (edges are geodesics on the sphere, so a fix very near a
// long edge may be answered otherwise than on the lon/lat plane), all in one MutableS2ShapeIndex,
// and S2ContainsPointQuery visiting the polygons that contain each fix.
// Usage: peer_s2 TRACK.csv REGIONS.csv|POLYGONS.txt [LIMIT]
#include <s2/s1angle.h>
#include <s2/s2cap.h>
#include <s2/s2cell_id.h>
#include <s2/s2cell_index.h>
#include <s2/s2latlng.h>
#include <s2/s2region_coverer.h>
#include <s2/mutable_s2shape_index.h>
#include <s2/s2contains_point_query.h>
#include <s2/s2loop.h>
#include <s2/s2polygon.h>
#include <memory>
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
  if (names_polygons(argv[2])) {
    Polygons p = load_polygons(argv[2]);
    for (int repeat = 0; peer_more(repeat, spent); repeat++) {
      double t0 = now_seconds();
      MutableS2ShapeIndex index;
      for (long j = 0; j < p.n; j++) {
        PolygonRings *poly = &p.polygons[j];
        std::vector<std::unique_ptr<S2Loop>> loops;
        for (long r = 0; r < poly->rings; r++) {
          std::vector<S2Point> vertices;
          for (long k = 0; k < poly->ring_count[r]; k++) {
            const double *xy = p.xy + 2 * (poly->ring_start[r] + k);
            vertices.push_back(S2LatLng::FromDegrees(xy[1], xy[0]).ToPoint());
          }
          auto loop = std::make_unique<S2Loop>(vertices, S2Debug::DISABLE);
          loop->Normalize();  // at most a hemisphere: the side a small ring encloses
          loops.push_back(std::move(loop));
        }
        auto polygon = std::make_unique<S2Polygon>();
        polygon->set_s2debug_override(S2Debug::DISABLE);
        polygon->InitNested(std::move(loops));
        index.Add(std::make_unique<S2Polygon::OwningShape>(std::move(polygon)));
      }
      index.ForceBuild();
      double built = now_seconds() - t0;
      if (built < build) build = built;
      pairs = 0;
      t0 = now_seconds();
      auto query = MakeS2ContainsPointQuery(&index);
      for (long i = 0; i < limit; i++) {
        S2Point point = S2LatLng::FromDegrees(f.lat[i], f.lon[i]).ToPoint();
        query.VisitContainingShapes(point, [&](S2Shape *) { pairs++; return true; });
      }
      double ran = now_seconds() - t0;
      if (ran < run) run = ran;
      spent += built + ran;
    }
    printf("engine=s2-shapeindex fixes=%ld regions=%ld build_s=%.6f run_s=%.6f fixes_per_s=%.0f pairs=%ld exact=sphere\n",
           limit, p.n, build, run, limit / run, pairs);
    return 0;
  }
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
