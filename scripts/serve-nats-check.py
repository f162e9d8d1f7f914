#!/usr/bin/env python3
"""geowake serve over NATS JetStream, with a real nats-server (Debian's, started here on loopback
with a store of its own): fixes published to geowake.fixes.<device> while the engine is killed
(kill -9) and restarted at random points and the NATS server itself restarted once; then every
event read back from the GEOWAKE_EVENTS stream must equal `geowake analyze --format jsonl` of the
same fixes, device by device (none lost), each sequence number once (none repeated), each with
Nats-Msg-Id DEVICE-SEQ.

usage: serve-nats-check.py GEOWAKE REGIONS [--devices N] [--fixes N] [--kills K] [--seed S]
(run by scripts/serve-nats-check.sh, which makes the virtual environment with nats-py)
"""
import argparse, asyncio, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_process
import nats

ap = argparse.ArgumentParser()
ap.add_argument("geowake"); ap.add_argument("regions")
ap.add_argument("--devices", type=int, default=20); ap.add_argument("--fixes", type=int, default=300)
ap.add_argument("--kills", type=int, default=3); ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rng = random.Random(a.seed)

# Every fifth device has a dot in its name, which a subject token may not hold.
fixes = serve_process.walks(a.regions, a.devices, a.fixes, rng, name=lambda d: f"dev.{d}" if d % 5 == 0 else f"dev-{d}")

work = tempfile.mkdtemp(prefix="geowake-nats-")
data = os.path.join(work, "data")
track = os.path.join(work, "fixes.ndjson")
with open(track, "w") as f:
    for x in fixes: f.write(json.dumps(x) + "\n")


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


nats_port = free_port()
nats_url = f"nats://127.0.0.1:{nats_port}"


def start_nats():
    p = subprocess.Popen(["nats-server", "-js", "-a", "127.0.0.1", "-p", str(nats_port), "-sd", os.path.join(work, "js")],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "nats.log"), "a"))
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", nats_port), timeout=0.2).close(); return p
        except OSError: time.sleep(0.05)
    raise SystemExit("nats-server did not start: " + open(os.path.join(work, "nats.log")).read())


def start_serve():
    p, base, _ = serve_process.start(a.geowake, a.regions, data, work, "--nats", nats_url, "--checkpoint-interval", "0.1")
    return p, base


def token(device):
    return "".join(f"%{b:02X}" if b in b".*>%" or b <= 32 or b == 127 else chr(b) for b in device.encode())


def http(base, method, path):
    req = urllib.request.Request(base + path, method=method)
    with urllib.request.urlopen(req, timeout=30) as r: return r.read()


def serve_log():
    return open(os.path.join(work, "serve.log")).read()


async def main():
    problems = []
    # A URL the client would not take: status 64 and the reason, before anything starts.
    r = subprocess.run([a.geowake, "serve", "--regions", a.regions, "--data", os.path.join(work, "bad"), "--listen", "127.0.0.1:0",
                        "--nats", f"127.0.0.1:{nats_port}"], capture_output=True, text=True, timeout=30)
    if r.returncode != 64 or f"--nats 127.0.0.1:{nats_port}: no scheme" not in r.stderr:
        problems.append(f"--nats without a scheme: status {r.returncode}, {r.stderr.strip()!r}")
    # No NATS server yet: serve says so and serves HTTP, a SIGTERM stops it at once (it used to
    # wait in the client's connect for ever), and one started now takes fixes once NATS is up.
    for attempt in range(2):
        offset = len(serve_log()) if os.path.exists(os.path.join(work, "serve.log")) else 0
        def warned(): return "no fix is taken from NATS until it answers" in serve_log()[offset:]
        serve, base = start_serve()
        deadline = time.time() + 10
        while not warned() and time.time() < deadline: time.sleep(0.05)
        if not warned(): problems.append("no warning while NATS is not up: " + serve_log()[-400:])
        if attempt == 0:
            serve.send_signal(signal.SIGTERM)
            try: code = serve.wait(timeout=15)
            except subprocess.TimeoutExpired:
                serve.kill(); serve.wait(); code = "none in 15 s"
            if code != 0: problems.append(f"SIGTERM while NATS is not up: exit status {code}")
    nats_server = start_nats()
    async def quiet(error): pass  # the restart below drops the connection on purpose
    nc = await nats.connect(nats_url, max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=quiet)
    js = nc.jetstream()
    # The engine makes the streams; wait for them.
    deadline = time.time() + 30
    while True:
        try:
            await js.stream_info("GEOWAKE_FIXES"); break
        except Exception:
            if time.time() > deadline: raise SystemExit("the engine made no GEOWAKE_FIXES stream: " + open(os.path.join(work, "serve.log")).read())
            await asyncio.sleep(0.1)
    kills = sorted(rng.sample(range(len(fixes) // 10, len(fixes)), a.kills))
    nats_restart = len(fixes) // 2
    killed = 0
    for k, fix in enumerate(fixes):
        if killed < len(kills) and k == kills[killed]:
            serve.send_signal(signal.SIGKILL); serve.wait(); killed += 1
            await asyncio.sleep(rng.uniform(0, 0.3))
            serve, base = start_serve()
        if k == nats_restart:
            nats_server.send_signal(signal.SIGTERM); nats_server.wait()
            nats_server = start_nats()
        while True:
            try:
                await js.publish(f"geowake.fixes.{token(fix['device'])}", json.dumps(fix).encode(), stream="GEOWAKE_FIXES", timeout=5)
                break
            except Exception:
                await asyncio.sleep(0.1)
    # Every fix used and acknowledged.
    deadline = time.time() + 120
    while True:
        try:
            info = await js.consumer_info("GEOWAKE_FIXES", "geowake")
            if info.num_pending == 0 and info.num_ack_pending == 0: break
        except Exception: pass
        if time.time() > deadline: raise SystemExit(f"fixes still pending: {info}")
        await asyncio.sleep(0.1)
    for d in sorted({x["device"] for x in fixes}):
        http(base, "DELETE", "/v1/devices/" + urllib.request.quote(d, safe=""))
    last = 0
    for line in http(base, "GET", "/metrics").decode().splitlines():
        if line.startswith("geowake_event_sequence "): last = int(line.split()[1])
    deadline = time.time() + 60
    while (await js.stream_info("GEOWAKE_EVENTS")).state.messages < last:
        if time.time() > deadline: raise SystemExit("events not all published")
        await asyncio.sleep(0.1)
    # Read the events' stream from the start.
    sub = await js.pull_subscribe("geowake.events.>", stream="GEOWAKE_EVENTS")
    events, ids, subjects = [], [], []
    while True:
        try: msgs = await sub.fetch(1000, timeout=1)
        except Exception: break
        for m in msgs:
            events.append(json.loads(m.data)); ids.append((m.headers or {}).get("Nats-Msg-Id")); subjects.append(m.subject)
            await m.ack()
    await nc.close()
    serve.send_signal(signal.SIGTERM); code = serve.wait()
    nats_server.send_signal(signal.SIGTERM); nats_server.wait()

    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, last + 1)): problems.append(f"sequence numbers: {len(seqs)} events, {len(set(seqs))} distinct, last {last}")
    for e, i, s in zip(events, ids, subjects):
        if i != f"{e['device']}-{e['seq']}": problems.append(f"Nats-Msg-Id {i} for {e['device']} {e['seq']}")
        if s != f"geowake.events.{token(e['device'])}": problems.append(f"subject {s} for {e['device']}")
    if code != 0: problems.append(f"geowake serve exited {code} on SIGTERM")
    offline = subprocess.run([a.geowake, "analyze", "--platform", "server", "--regions", a.regions, track, "--format", "jsonl"],
                             capture_output=True, text=True, check=True).stdout
    expected = [json.loads(l) for l in offline.splitlines() if l.strip()]
    def by_device(es):
        out = {}
        for e in es:
            e = {k: v for k, v in e.items() if k not in ("seq", "visit")}
            out.setdefault(e["device"], []).append(e)
        return out
    live, off = by_device(events), by_device(expected)
    if live != off:
        bad = [d for d in off if live.get(d) != off[d]]
        problems.append(f"{len(bad)} devices differ from analyze, the first {bad[0]}: {len(live.get(bad[0], []))} live, {len(off[bad[0]])} offline")
    print(f"{len(fixes)} fixes over NATS JetStream, {a.devices} devices, {killed} kill -9s of geowake serve, 1 nats-server restart: "
          f"{len(events)} events in GEOWAKE_EVENTS, {len(expected)} offline; equal per device: {live == off}; "
          f"each sequence number once: {seqs == list(range(1, last + 1))}")
    for p in problems[:5]: print("FAIL:", p)
    return 1 if problems else 0


try:
    status = asyncio.run(main())
finally:
    subprocess.run(["pkill", "-f", work], capture_output=True)
    shutil.rmtree(work, ignore_errors=True)
sys.exit(status)
