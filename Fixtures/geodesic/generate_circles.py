#!/usr/bin/env python3
"""Large circles against GeographicLib (pip `geographiclib`): containment truth for GeoWake's
circle tests at radii from 5 km to 10,000 km.

Writes `circles.txt`: one line per case,

    lat0 lon0 radius lat lon s

a circle's centre and radius, a point and its geodesic distance s from the centre, all by
GeographicLib (the point by the direct problem at a distance near the radius, s by the inverse
problem from the rounded point). The Swift tests require a circle to contain the point exactly
when s <= radius, for |s - radius| > 1 mm.

Deterministic: a fixed seed, Python's random.Random.
Re-run with `python3 Fixtures/geodesic/generate_circles.py > Fixtures/geodesic/circles.txt`.
"""
import math
import random

from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84
rng = random.Random(20261124)
print("# lat0 lon0 radius lat lon s  (GeographicLib %s, WGS84)" % __import__("geographiclib").__version__)
count = 0
while count < 3000:
    lat0 = math.degrees(math.asin(rng.uniform(-1, 1)))
    lon0 = rng.uniform(-180, 180)
    radius = math.exp(rng.uniform(math.log(5e3), math.log(1e7)))
    # Distances mostly within metres of the boundary, some far inside or outside.
    offset = math.exp(rng.uniform(math.log(2e-3), math.log(radius) if rng.random() < 0.2 else math.log(100.0)))
    distance = radius + (offset if rng.random() < 0.5 else -offset)
    if distance <= 0 or distance >= 19_900_000:
        continue
    d = G.Direct(lat0, lon0, rng.uniform(-180, 180), distance)
    lat, lon = float("%.17g" % d["lat2"]), float("%.17g" % d["lon2"])
    s = G.Inverse(lat0, lon0, lat, lon)["s12"]
    if abs(s - radius) <= 1e-3:
        continue
    print("%.17g %.17g %.17g %.17g %.17g %.17g" % (lat0, lon0, radius, lat, lon, s))
    count += 1
