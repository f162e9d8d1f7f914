#!/usr/bin/env python3
"""shapely 2 peer: circles as 32-gons in longitude/latitude, or the polygons of a POLYGONS.txt
(polygons_flat.py, holes kept), and the (fix, region) pairs with the fix inside, two ways, each
vectorised: an STRtree of the regions queried with every fix (predicate "covered_by", the fix's
side), and an STRtree of the fixes queried with every region (predicate "covers", the region's side,
which prepares each region once: far faster for regions of many vertices, slower for a few
regions, as the fixes' tree is built in the run). Both give the same pairs; the faster is
reported (method=...), the fix's side timed on the whole track only when a probe of its first
50,000 fixes says it may be the faster. Covers, not contains: a fix on a boundary is inside, as
in GeoWake's containment. Usage: peer_shapely.py TRACK.csv REGIONS.csv|POLYGONS.txt
[LIMIT]; best build and best run of at least PEER_REPEATS passes (default 3) taking
PEER_MIN_SECONDS (default 0) in all."""
import math
import os
import sys
import time

import numpy as np
import shapely

R = 6371008.8
track, regions = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
fix = np.loadtxt(track, delimiter=",", skiprows=1, usecols=(1, 2), comments="#")
if limit:
    fix = fix[:limit]
polygonal = regions.endswith(".txt")
if polygonal:
    rings = []
    with open(regions) as f:
        for line in f:
            parts = [np.array(part.split(), dtype=float).reshape(-1, 2) for part in line.split("|")]
            rings.append(parts)
    reg = rings
else:
    reg = np.loadtxt(regions, delimiter=",", skiprows=1, usecols=(1, 2, 3), comments="#", ndmin=2)
repeats = max(1, int(os.environ.get("PEER_REPEATS", "3")))
minimum_seconds = float(os.environ.get("PEER_MIN_SECONDS", "0"))
build = run = math.inf
method = "covered_by"
done, spent = 0, 0.0
while done < repeats or spent < minimum_seconds:
    t0 = time.perf_counter()
    angles = np.linspace(0, 2 * math.pi, 33)[:32]
    mlat = R * math.pi / 180
    polys = []
    if polygonal:
        for parts in reg:
            polys.append(shapely.Polygon(parts[0], parts[1:]))
    else:
        for lat, lon, r in reg:
            mlon = mlat * math.cos(math.radians(lat))
            ring = np.column_stack((lon + r * np.cos(angles) / mlon, lat + r * np.sin(angles) / mlat))
            polys.append(shapely.Polygon(ring))
    polys = np.array(polys)
    tree = shapely.STRtree(polys)
    tree.query(shapely.points([[0.0, 0.0]]))  # forces the build
    built = time.perf_counter() - t0
    build = min(build, built)
    points = shapely.points(fix[:, 1], fix[:, 0])
    t0 = time.perf_counter()
    fixes_tree = shapely.STRtree(points)
    joined = fixes_tree.query(polys, predicate="covers")
    ran_joined = time.perf_counter() - t0
    if ran_joined < run:
        run, method, pairs = ran_joined, "covers", joined.shape[1]
    # The fix's side on the first 50,000 fixes: the whole track too when it may be the faster.
    probe = min(len(points), 50_000)
    t0 = time.perf_counter()
    tree.query(points[:probe], predicate="covered_by")
    ran = (time.perf_counter() - t0) * len(points) / probe
    if ran < 1.5 * ran_joined:
        t0 = time.perf_counter()
        within = tree.query(points, predicate="covered_by")
        ran = time.perf_counter() - t0
        if within.shape[1] != joined.shape[1]:
            sys.exit("shapely: the two ways found %d and %d pairs" % (within.shape[1], joined.shape[1]))
        if ran < run:
            run, method = ran, "covered_by"
    done, spent = done + 1, spent + built + ran + ran_joined
print("engine=shapely-strtree fixes=%d regions=%d build_s=%.6f run_s=%.6f fixes_per_s=%.0f pairs=%d exact=%s method=%s"
      % (len(fix), len(reg), build, run, len(fix) / run, pairs, "lon/lat-plane" if polygonal else "32-gon",
         method))
