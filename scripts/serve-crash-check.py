#!/usr/bin/env python3
"""kill -9 the live engine at random points of a load, restart it each time, and check that the
event stream equals `geowake analyze --format jsonl` of the same fixes (none lost, none
repeated), and that each visit, enter to exit, carries one id of its own.

usage: serve-crash-check.py GEOWAKE REGIONS [--devices N] [--fixes N] [--kills K] [--seed S] [--rules '--dwell 60 …']
"""
import argparse, json, os, random, signal, subprocess, sys, tempfile, time, urllib.error, urllib.request
import serve_process

ap = argparse.ArgumentParser()
ap.add_argument("geowake"); ap.add_argument("regions")
ap.add_argument("--devices", type=int, default=20); ap.add_argument("--fixes", type=int, default=400)
ap.add_argument("--kills", type=int, default=5); ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--batch", type=int, default=200)
ap.add_argument("--checkpoint-interval", default="0.2", help="seconds: short, so that restarts restore checkpoints")
ap.add_argument("--rules", default="", help="server rules given to both serve and analyze, e.g. '--dwell 60 --confirm-distance 5'")
a = ap.parse_args()
rng = random.Random(a.seed)

fixes = serve_process.walks(a.regions, a.devices, a.fixes, rng)
work = tempfile.mkdtemp(prefix="geowake-serve-")
data = os.path.join(work, "data")
track = os.path.join(work, "fixes.ndjson")
with open(track, "w") as f:
    for x in fixes: f.write(json.dumps(x) + "\n")

def start():
    p, base, _ = serve_process.start(a.geowake, a.regions, data, work, "--checkpoint-interval", a.checkpoint_interval, *a.rules.split())
    return p, base


def post(base, body, method="POST", path="/v1/fixes"):
    """The answer to one request; a 429 is waited out as its Retry-After says, and sent again."""
    while True:
        req = urllib.request.Request(base + path, data=body, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as r: return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code != 429: raise
            time.sleep(float(e.headers.get("Retry-After", "1")))

batches = [fixes[k:k + a.batch] for k in range(0, len(fixes), a.batch)]
kill_at = sorted(rng.sample(range(1, len(batches)), min(a.kills, len(batches) - 1)))
proc, base = start()
kills = 0
k = 0
while k < len(batches):
    body = "\n".join(json.dumps(x) for x in batches[k]).encode()
    if kills < len(kill_at) and k == kill_at[kills]:
        # kill -9 while the batch is in flight (or just before or after it is answered).
        import threading
        timer = threading.Timer(rng.uniform(0, 0.02), lambda: proc.send_signal(signal.SIGKILL))
        timer.start()
        try: post(base, body)
        except Exception: pass
        timer.join(); proc.wait(); kills += 1
        proc, base = start()
        continue  # the client retries the batch it may not have had answered
    answer = post(base, body)
    assert answer["accepted"] + answer["rejected"] == len(batches[k]), answer
    k += 1
for d in sorted({x["device"] for x in fixes}): post(base, None, "DELETE", "/v1/devices/" + d)
events, after = [], 0
while True:
    with urllib.request.urlopen(f"{base}/v1/events?after={after}&limit=10000") as r: page = json.loads(r.read())
    if not page["events"]: break
    events += page["events"]; after = page["next"]
proc.send_signal(signal.SIGTERM); proc.wait()
seqs = [e.pop("seq") for e in events]
assert seqs == list(range(1, len(seqs) + 1)), "sequence numbers not consecutive"
# Visits: an enter (or a state inside) opens one, its dwells and its exit (or state outside)
# carry its id; a pass-through is one of its own; no id names two visits.
visits = [e.pop("visit", None) for e in events]
opened, used, visit_errors = {}, set(), []
for e, v in zip(events, visits):
    key, kind = (e["device"], e.get("region")), e["event"]
    if v is None:
        visit_errors.append(f"no visit id: {e}")
    elif kind == "enter" or (kind == "state" and e.get("state") == "inside") or kind == "passThrough":
        if v in used: visit_errors.append(f"visit id {v} used again: {e}")
        used.add(v)
        if kind != "passThrough": opened[key] = v
    elif kind == "exit" or (kind == "state" and e.get("state") == "outside"):
        if opened.pop(key, None) != v: visit_errors.append(f"exit not in its enter's visit: {e}")
    elif kind == "dwell" and opened.get(key) != v:
        visit_errors.append(f"dwell not in its visit: {e}")
if visit_errors:
    print(f"{len(visit_errors)} visit errors, the first:", *visit_errors[:3], sep="\n  ")
    sys.exit(1)
offline = subprocess.run([a.geowake, "analyze", "--platform", "server", "--regions", a.regions, track, "--format", "jsonl", *a.rules.split()],
                         capture_output=True, text=True, check=True).stdout
expected = [json.loads(l) for l in offline.splitlines() if l.strip()]
def by_device(es):
    out = {}
    for e in es: out.setdefault(e["device"], []).append(e)
    return out
live, off = by_device(events), by_device(expected)
lost = sum(max(0, len(off.get(d, [])) - len(live.get(d, []))) for d in off)
same = live == off
print(f"{len(fixes)} fixes, {a.devices} devices, {kills} kill -9s: {len(events)} live events, {len(expected)} offline; "
      f"equal per device: {same}; {len(used)} visits, each enter to exit under one id"
      + (f"; {sum(e['event'] == 'dwell' for e in events)} dwells ({a.rules})" if a.rules else ""))
if not same:
    for d in off:
        if live.get(d) != off[d]:
            print("first difference in", d, len(live.get(d, [])), len(off[d]))
            for x, y in zip(live.get(d, []), off[d]):
                if x != y: print(" live:", x, "\n  off:", y); break
            break
    sys.exit(1)
log = open(os.path.join(work, "serve.log")).read()
warnings = [l for l in log.splitlines() if "warning" in l or "error" in l]
if warnings:
    print("server warnings:", *warnings[:5], sep="\n  ")
    sys.exit(1)
import shutil
shutil.rmtree(work)
