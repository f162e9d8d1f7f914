"""gpxpy and gpsbabel reading a GPX file, for Benchmarks/compare-peers.

gpxpy: gpxpy.parse of the whole file (a DOM), then every track point visited. gpsbabel: the whole
process reading the file, read only (every waypoint, route and track dropped by the nuketypes
filter before the writer runs), best of 3 wall times. Usage: python3 peer_gpx_python.py FILE.gpx [--skip-gpxpy]
"""
import os
import shutil
import subprocess
import sys
import time

path = sys.argv[1]
size = os.path.getsize(path)

if shutil.which("gpsbabel"):
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(["gpsbabel", "-t", "-i", "gpx", "-f", path, "-x", "nuketypes,waypoints,routes,tracks", "-o", "gpx", "-F", "/dev/null"], check=True)
        best = min(best, time.perf_counter() - t0)
    print(f"engine=gpsbabel task=gpx bytes={size} run_s={best} mb_per_s={size / best / 1e6} points=-")

if "--skip-gpxpy" not in sys.argv:
    import gpxpy

    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as f:
        gpx = gpxpy.parse(f)
    points = sum(len(s.points) for t in gpx.tracks for s in t.segments)
    elapsed = time.perf_counter() - t0
    print(f"engine=gpxpy task=gpx bytes={size} run_s={elapsed} mb_per_s={size / elapsed / 1e6} points={points}")
