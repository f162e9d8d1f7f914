"""Measures what a partition costs on a local Dask cluster: the same fleet analysed with 2, 8, 32
and 64 partitions (--partitions); the slope of wall time against partitions is the overhead per partition
(a task, a shuffle share, a geowake process, the regions loaded once).

    .build/dask-venv/bin/python integrations/dask/bench.py [--geowake .build/release/geowake] [--regions N]
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
import logging

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dask.dataframe as dd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import geowake_dask  # noqa: E402
from tests.test_distributed import population  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--geowake", default=".build/release/geowake")
    parser.add_argument("--regions", type=int, default=10_000, help="generated circles (geowake generate regions)")
    parser.add_argument("--devices", type=int, default=400)
    parser.add_argument("--partitions", type=int, nargs="+", default=[2, 8, 32, 64])
    options = parser.parse_args()
    geowake = os.path.abspath(options.geowake)
    with tempfile.TemporaryDirectory(prefix="geowake-dask-bench-") as folder:
        _, rows = population(5, devices=options.devices)
        rows = [r for r in rows if r[0] != "d013"]
        fixes_path = os.path.join(folder, "fixes.csv")
        with open(fixes_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["device", "time", "lat", "lon", "accuracy"])
            w.writerows(rows)
        regions = os.path.join(folder, "regions.csv")
        subprocess.run([geowake, "generate", "regions", "--count", str(options.regions), "--center", f"{rows[0][2]},{rows[0][3]}",
                        "--radii", "30,400", "-o", regions], check=True)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                          silence_logs=logging.ERROR) as cluster, Client(cluster):
            fixes = dd.read_csv(fixes_path)
            geowake_dask.analyze(fixes, regions, geowake=geowake, args=["--profile", "server"], npartitions=2)  # warm up
            print(f"{len(rows)} fixes of {options.devices - 1} devices, {options.regions} regions, profile server, 2 workers")
            timings = []
            for partitions in options.partitions:
                start = time.perf_counter()
                events = geowake_dask.analyze(fixes, regions, geowake=geowake, args=["--profile", "server"], npartitions=partitions)
                elapsed = time.perf_counter() - start
                timings.append((partitions, elapsed))
                print(f"{partitions:3d} partitions: {elapsed:6.2f} s, {len(events)} events")
            n = len(timings)
            mx = sum(p for p, _ in timings) / n
            my = sum(t for _, t in timings) / n
            slope = sum((p - mx) * (t - my) for p, t in timings) / sum((p - mx) ** 2 for p, _ in timings)
            print(f"overhead per partition: {slope * 1000:.1f} ms of wall time on 2 workers ({slope * 2000:.1f} ms of worker time)")


if __name__ == "__main__":
    main()
