"""geowake_dask on a real Dask cluster on loopback (a scheduler and two worker processes): the
distributed events must equal, byte for byte, one local ``geowake analyze`` over the same devices,
whatever the number of partitions."""

import csv
import logging
import os
import random
import subprocess
import tempfile
import unittest

import dask.dataframe as dd
from distributed import Client, LocalCluster

import geowake_dask

GEOWAKE = os.path.abspath(os.environ.get("GEOWAKE", ".build/debug/geowake"))


def population(seed: int, devices: int = 220):
    """Walkers around one centre, their rows interleaved in time order as a fleet logs them.
    Device d007 reports duplicate timestamps; device d013 has one impossible latitude."""
    rng = random.Random(seed)
    lat0, lon0 = 48.1 + rng.random(), 11.5 + rng.random()
    regions = [(f"r{k}", lat0 + rng.uniform(-0.01, 0.01), lon0 + rng.uniform(-0.01, 0.01), rng.randint(40, 400)) for k in range(30)]
    rows = []
    for d in range(devices):
        name = f"d{d:03d}"
        lat, lon = lat0 + rng.uniform(-0.01, 0.01), lon0 + rng.uniform(-0.01, 0.01)
        t = 1_714_546_800 + rng.randint(0, 3600)
        for k in range(rng.randint(1, 300)):
            lat += rng.uniform(-0.0002, 0.0002)
            lon += rng.uniform(-0.0002, 0.0002)
            rows.append([name, t, round(lat, 7), round(lon, 7), rng.randint(3, 25)])
            if not (name == "d007" and k % 4 == 1):
                t += rng.randint(1, 5)
    bad = next(i for i, r in enumerate(rows) if r[0] == "d013")
    rows[bad + min(2, sum(r[0] == "d013" for r in rows) - 1)][2] = 95.5
    rows.sort(key=lambda r: r[1])  # stable: each device keeps its order
    return regions, rows


class DistributedEqualsLocal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                                   silence_logs=logging.ERROR)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_events_equal_one_local_run_for_any_partitioning(self):
        for seed in (11, 12):
            regions, rows = population(seed)
            with tempfile.TemporaryDirectory(prefix="geowake-dask-test-") as folder:
                region_path = os.path.join(folder, "regions.csv")
                with open(region_path, "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(["id", "lat", "lon", "radius"])
                    w.writerows(regions)
                # The fleet's log: four files, rows in time order across devices.
                for part in range(4):
                    with open(os.path.join(folder, f"fixes-{part}.csv"), "w", newline="") as f:
                        w = csv.writer(f)
                        w.writerow(["device", "time", "lat", "lon", "accuracy"])
                        w.writerows(rows[part * len(rows) // 4:(part + 1) * len(rows) // 4])
                # The local reference: the same rows grouped by device, each device in its order.
                local_path = os.path.join(folder, "local.csv")
                with open(local_path, "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(["device", "time", "lat", "lon", "accuracy"])
                    w.writerows(sorted(rows, key=lambda r: r[0]))
                local = subprocess.run(
                    [GEOWAKE, "analyze", "--regions", region_path, "--format", "jsonl", "--seed", str(seed), local_path],
                    capture_output=True, check=False)
                self.assertEqual(local.returncode, 65, local.stderr)  # d013 fails
                self.assertIn(b"(device d013 left out)", local.stderr)
                for partitions in (1, 3, 17):
                    fixes = dd.read_csv(os.path.join(folder, "fixes-*.csv"), blocksize=None)
                    events = geowake_dask.analyze(
                        fixes, region_path, geowake=GEOWAKE, args=["--seed", str(seed)], npartitions=partitions)
                    good = events[events.event != "deviceFailed"]
                    self.assertEqual("".join(line + "\n" for line in good.line).encode(), local.stdout, f"{partitions} partitions")
                    failed = events[events.event == "deviceFailed"]
                    self.assertEqual(list(failed.device), ["d013"])
                    self.assertIn("latitude 95.5", failed.reason.iloc[0])
                    self.assertTrue((good.device.values[:-1] <= good.device.values[1:]).all())


if __name__ == "__main__":
    unittest.main()
