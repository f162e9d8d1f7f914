#!/usr/bin/env python3
"""shapely 2 peer: circles as 32-gons in longitude/latitude, or the polygons of a POLYGONS.txt
(polygons_flat.py, holes kept), one STRtree, and one vectorised query of every fix (predicate
"contains" from the polygons' side). Usage: peer_shapely.py TRACK.csv REGIONS.csv|POLYGONS.txt
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
    pairs = tree.query(points, predicate="within")
    ran = time.perf_counter() - t0
    run = min(run, ran)
    done, spent = done + 1, spent + built + ran
print("engine=shapely-strtree fixes=%d regions=%d build_s=%.6f run_s=%.6f fixes_per_s=%.0f pairs=%d exact=%s"
      % (len(fix), len(reg), build, run, len(fix) / run, pairs.shape[1], "lon/lat-plane" if polygonal else "32-gon"))
