"""What the scripts that check `geowake serve` share: starting it (on a free loopback port, its
standard error appended to WORK/serve.log, waiting 30 s at most for the banner that names the
port) and the devices' walks they feed it."""
import math, os, subprocess, time


def start(geowake, regions, data, work, *extra):
    """(process, base URL, banner line) of a server started with `extra` options."""
    log = os.path.join(work, "serve.log")
    offset = os.path.getsize(log) if os.path.exists(log) else 0
    p = subprocess.Popen([geowake, "serve", "--regions", regions, "--data", data, "--listen", "127.0.0.1:0", *extra],
                         stderr=open(log, "a"))
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log) as f:
            f.seek(offset)
            for line in f:
                if "listening on http://" in line:
                    port = int(line.split("listening on http://")[1].split(" ")[0].rsplit(":", 1)[1])
                    return p, f"http://127.0.0.1:{port}", line
        if p.poll() is not None: raise SystemExit("server ended: " + open(log).read())
        time.sleep(0.02)
    raise SystemExit("server did not start: " + open(log).read())


def walks(regions, devices, count, rng, name=lambda d: f"dev-{d}"):
    """`count` fixes of each of `devices` devices walking from near a centre of the regions file
    (a CSV with `id,lat,lon,…`), so that the walks cross the regions: 5–40 m steps every 5–30 s,
    turning smoothly; in arrival order (devices interleaved, each in time order)."""
    centres = []
    for line in open(regions):
        parts = line.strip().split(",")
        try: centres.append((float(parts[1]), float(parts[2])))
        except (ValueError, IndexError): pass
    fixes = []
    for d in range(devices):
        lat, lon = rng.choice(centres)
        lat += rng.uniform(-0.01, 0.01); lon += rng.uniform(-0.01, 0.01)
        t = 1_700_000_000 + rng.randint(0, 600)
        heading = rng.uniform(0, 2 * math.pi)
        for _ in range(count):
            heading += rng.gauss(0, 0.3)
            step = rng.uniform(5, 40)
            lat += step * math.cos(heading) / 111_000; lon += step * math.sin(heading) / (111_000 * math.cos(math.radians(lat)))
            t += rng.randint(5, 30)
            fixes.append({"device": name(d), "time": t, "lat": round(lat, 7), "lon": round(lon, 7), "accuracy": rng.choice([5, 10, 20])})
    fixes.sort(key=lambda f: (f["time"], f["device"]))
    return fixes
