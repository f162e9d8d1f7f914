"""Writes the polygons of a GeoJSON region file (Polygon and MultiPolygon features) as flat text
for the C/C++ polygon peers of Benchmarks/compare-peers: one line per polygon part, the rings
separated by " | " (the shell first, then its holes), each ring "lon lat lon lat ..." without
repeating its first vertex; a MultiPolygon gives one line per part, each counted as its own
region by the peers (the generated sets have none). Usage: polygons_flat.py IN.geojson OUT.txt"""
import json
import sys

with open(sys.argv[1]) as f:
    features = json.load(f)["features"]
with open(sys.argv[2], "w") as out:
    for feature in features:
        geometry = feature["geometry"]
        parts = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"] if geometry["type"] == "MultiPolygon" else []
        for rings in parts:
            texts = []
            for ring in rings:
                if len(ring) > 1 and ring[0] == ring[-1]:
                    ring = ring[:-1]
                texts.append(" ".join("%.17g %.17g" % (p[0], p[1]) for p in ring))
            out.write(" | ".join(texts) + "\n")
