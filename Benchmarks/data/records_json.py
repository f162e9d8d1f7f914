"""Writes a seeded Google Takeout `Records.json` location history, pretty-printed as Takeout
writes it, for the whole-process figures of docs/benchmarks.md: a phone's day-to-day movement
around a city, a location every 10 to 120 s, with accuracy, source, device tag and now and then
an activity guess.

Usage: python3 records_json.py COUNT SEED OUT.json
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
lat, lon = 37.77 + rng.uniform(-0.05, 0.05), -122.42 + rng.uniform(-0.05, 0.05)
time = datetime(2023, 1, 1, tzinfo=timezone.utc) + timedelta(days=rng.randrange(300))
locations = []
for k in range(count):
    time += timedelta(seconds=rng.randint(10, 120), milliseconds=rng.randrange(1000))
    lat += rng.gauss(0, 0.0005)
    lon += rng.gauss(0, 0.0005)
    location = {
        "latitudeE7": round(lat * 1e7),
        "longitudeE7": round(lon * 1e7),
        "accuracy": rng.randint(3, 60),
        "source": rng.choice(["WIFI", "GPS", "CELL"]),
        "deviceTag": 1234567890,
        "timestamp": time.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    if rng.random() < 0.1:
        location["activity"] = [{
            "activity": [{"type": rng.choice(["STILL", "WALKING", "IN_VEHICLE"]), "confidence": rng.randint(10, 100)}],
            "timestamp": location["timestamp"],
        }]
    locations.append(location)
with open(out, "w") as f:
    json.dump({"locations": locations}, f, indent=2)
    f.write("\n")
