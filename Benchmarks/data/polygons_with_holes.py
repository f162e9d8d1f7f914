"""Writes a GeoJSON FeatureCollection of polygons with holes, for geowake-region-memory.

    python3 Benchmarks/data/polygons_with_holes.py COUNT SEED > FILE.geojson

Each region is a star-shaped shell of 5-40 positions (2-12 km across, around San Francisco)
with a hole of 3-12 positions; every third is a MultiPolygon whose second part is a shell of
4-20 positions beside the first. Rings are closed, as GeoJSON writes them. The same COUNT and
SEED give the same file.
"""
import json
import math
import random
import sys


def ring(rng, cx, cy, r, k, clockwise=False):
    turn = -1 if clockwise else 1
    positions = []
    for j in range(k):
        angle = turn * 2 * math.pi * j / k
        radius = r * (0.8 + 0.2 * rng.random())
        positions.append([round(cx + radius * math.cos(angle) / 0.79, 7), round(cy + radius * math.sin(angle), 7)])
    return positions + [positions[0]]


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    out = sys.stdout
    out.write('{"type":"FeatureCollection","features":[\n')
    for i in range(count):
        cx = -122.5 + 0.4 * rng.random()
        cy = 37.6 + 0.3 * rng.random()
        r = 0.002 + 0.01 * rng.random()
        polygon = [ring(rng, cx, cy, r, rng.randint(5, 40)), ring(rng, cx, cy, 0.3 * r, rng.randint(3, 12), True)]
        if i % 3 == 0:
            geometry = {"type": "MultiPolygon", "coordinates": [polygon, [ring(rng, cx + 3 * r, cy, 0.5 * r, rng.randint(4, 20))]]}
        else:
            geometry = {"type": "Polygon", "coordinates": polygon}
        feature = {"type": "Feature", "id": "h%06d" % i, "properties": {}, "geometry": geometry}
        out.write(json.dumps(feature, separators=(",", ":")) + (",\n" if i < count - 1 else "\n"))
    out.write("]}\n")


if __name__ == "__main__":
    main()
