"""GPX exports (Benchmarks/peers/export_gpx.py) read whole process, for Benchmarks/compare-peers:
`geowake crossings FILE --regions FAR` (every point read, checked against one region that no
point is near, nothing found), gpsbabel reading the file (every waypoint, route and track dropped
by the nuketypes filter before the writer runs) and libxml2's SAX2 parser (in process, its own
timing). Best of 3 wall times each.

Usage: python3 peer_gpx_exports.py GEOWAKE REGIONS LIBXML2_PEER STYLE=FILE...
"""
import os
import shutil
import subprocess
import sys
import time

geowake, regions, libxml2 = sys.argv[1:4]


def best_of_3(command):
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


for item in sys.argv[4:]:
    style, path = item.split("=", 1)
    size = os.path.getsize(path)
    rows = [("geowake", best_of_3([geowake, "crossings", path, "--regions", regions]))]
    if shutil.which("gpsbabel"):
        rows.append(("gpsbabel", best_of_3(["gpsbabel", "-t", "-i", "gpx", "-f", path, "-x", "nuketypes,waypoints,routes,tracks", "-o", "gpx", "-F", "/dev/null"])))
    out = subprocess.run([libxml2, path], check=True, capture_output=True, text=True).stdout
    fields = dict(p.split("=", 1) for p in out.split() if "=" in p)
    rows.append(("libxml2-sax2 (parse only)", float(fields["run_s"])))
    for engine, seconds in rows:
        print(f"task=export style={style} engine={engine.replace(' ', '_')} bytes={size} run_s={seconds} mb_per_s={size / seconds / 1e6}")
