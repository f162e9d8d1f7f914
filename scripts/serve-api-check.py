#!/usr/bin/env python3
"""The live engine's HTTP API as a client sees it, with curl: who gets in (401 and 403 on every
route), bodies over the limit (413 from the Content-Length, and for a chunked body as its bytes
pass the limit, with the server's memory flat), malformed requests (a 4xx with a reason, never a
5xx), a client over its rate (429 with Retry-After, another client let in), fence changes while
fixes flow (kept across a restart), an address other than loopback refused without tokens, and
a reader that reads nothing (the server's memory flat), and SIGTERM with a stream and a long poll
open (both ended, a last checkpoint, exit 0).

usage: serve-api-check.py GEOWAKE REGIONS
"""
import argparse, json, os, re, shutil, signal, sqlite3, subprocess, sys, tempfile, time
import serve_process

ap = argparse.ArgumentParser()
ap.add_argument("geowake"); ap.add_argument("regions")
a = ap.parse_args()
work = tempfile.mkdtemp(prefix="geowake-api-")
data = os.path.join(work, "data")
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def start(*extra):
    return serve_process.start(a.geowake, a.regions, data, work, *extra)


def curl(method, url, token=None, body=None, headers=(), stdin=None):
    """(status, headers text, body text) of one request made by curl."""
    args = ["curl", "-s", "-S", "-o", "-", "-D", os.path.join(work, "headers"), "-X", method, "--max-time", "30", url]
    if token: args += ["-H", f"Authorization: Bearer {token}"]
    for h in headers: args += ["-H", h]
    if body is not None:
        path = os.path.join(work, "body")
        with open(path, "wb") as f: f.write(body if isinstance(body, bytes) else body.encode())
        args += ["--data-binary", "@" + path]
    if stdin is not None: args += ["--data-binary", "@-"]
    r = subprocess.run(args, capture_output=True, input=stdin)
    head = open(os.path.join(work, "headers"), errors="replace").read() if os.path.exists(os.path.join(work, "headers")) else ""
    m = re.findall(r"^HTTP/[\d.]+ (\d+)", head, re.M)
    return (int(m[-1]) if m else 0), head, r.stdout.decode(errors="replace")


def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) * 1024
    return 0


def error_message(body):
    try: return json.loads(body)["error"]["message"]
    except Exception: return None


try:
    # 1. No tokens, an address other than loopback: refused, status 64, the reason on stderr.
    r = subprocess.run([a.geowake, "serve", "--regions", a.regions, "--data", data, "--listen", "0.0.0.0:0"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 64 and "only a loopback address" in r.stderr, f"0.0.0.0 without tokens: status {r.returncode}, {r.stderr.strip()!r}")

    tokens = {"ingest": "ingest-token-0123456789", "read": "read-token-0123456789ab", "admin": "admin-token-0123456789a"}
    tokens_file = os.path.join(work, "tokens")
    with open(tokens_file, "w") as f:
        for scope, token in tokens.items(): f.write(f"{token} {scope}\n")
        f.write("second-ingest-token-0123 ingest\n")
    p, base, banner = start("--tokens", tokens_file, "--max-body", "65536", "--checkpoint-interval", "0.1", "--client-rate", "200")

    # 2. Every route: no token and an unknown one get 401 (with WWW-Authenticate), a token
    # without the scope 403; each with a JSON reason.
    feature = '{"type":"Feature","properties":{"radius":250},"geometry":{"type":"Point","coordinates":[139.7671,35.6812]}}'
    fix = '{"device":"walker","time":1700000000,"lat":35.6812,"lon":139.7671,"accuracy":5}'
    routes = [("GET", "/healthz", None, None), ("GET", "/openapi.json", None, "read"), ("GET", "/metrics", None, "read"),
              ("POST", "/v1/fixes", fix, "ingest"), ("GET", "/v1/events?limit=1", None, "read"),
              ("GET", "/v1/regions", None, "read"), ("GET", "/v1/regions/station", None, "read"),
              ("PUT", "/v1/regions/station", feature, "admin"), ("DELETE", "/v1/regions/station", None, "admin"),
              ("GET", "/v1/devices/walker", None, "read"), ("DELETE", "/v1/devices/walker", None, "admin")]
    for method, path, body, scope in routes:
        status, head, text = curl(method, base + path, body=body)
        check(status == 401 and "www-authenticate: bearer" in head.lower() and error_message(text),
              f"{method} {path} without a token: {status} {text[:100]}")
        status, _, text = curl(method, base + path, token="not-a-token-0123456789", body=body)
        check(status == 401 and error_message(text), f"{method} {path} with an unknown token: {status}")
        if scope:
            other = next(t for s, t in tokens.items() if s != scope)
            status, _, text = curl(method, base + path, token=other, body=body)
            check(status == 403 and scope in (error_message(text) or ""), f"{method} {path} without the {scope} scope: {status} {text[:100]}")

    # 3. Bodies over --max-body: 413 from the Content-Length, and a chunked body of 64 MB refused
    # as its bytes pass the limit, the server's memory flat.
    status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body=b"[" + b" " * 70_000 + b"]")
    check(status == 413 and "65536" in (error_message(text) or ""), f"a 70 kB body: {status} {text[:100]}")
    before = rss(p.pid)
    started = time.time()
    status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], headers=["Transfer-Encoding: chunked"],
                           stdin=b"\n" * (64 << 20))
    grown = rss(p.pid) - before
    check(status == 413, f"a chunked 64 MB body: {status} {text[:100]}")
    check(grown < 32 << 20, f"a chunked 64 MB body grew the server by {grown >> 20} MB")
    check(time.time() - started < 20, "a chunked 64 MB body took more than 20 s to be refused")

    # 4. Malformed requests: 400 with a reason naming the place, never a 5xx.
    bad = [("POST", "/v1/fixes", "[{\"device\":\"a\",", "ingest", "line 1"),
           ("POST", "/v1/fixes", "", "ingest", "no fix"),
           ("PUT", "/v1/regions/station", "{\"type\":\"Feature\"", "admin", "line 1"),
           ("PUT", "/v1/regions/station", feature.replace('"type":"Feature"', '"type":"Feature","id":"elsewhere"'), "admin", "elsewhere"),
           ("PUT", "/v1/regions/station", '{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[139.7,35.6]}}', "admin", "radius"),
           ("PUT", "/v1/regions/bowtie", '{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}', "admin", None),
           ("PUT", "/v1/regions/station", '{"type":"FeatureCollection","features":[]}', "admin", "Feature"),
           ("GET", "/v1/events?after=-1", None, "read", "after"),
           ("GET", "/v1/events?wait=9999&limit=1", None, "read", "wait"),
           ("GET", "/v1/regions/%20", None, "read", None)]
    status, head, text = curl("TRACE", base + "/v1/regions/station", token=tokens["read"])
    check(status == 405 and "allow: get, put, delete" in head.lower() and error_message(text), f"TRACE on a region: {status} {text[:100]}")
    status, _, text = curl("GET", base + "/v1/nothing", token=tokens["read"])
    check(status == 404 and "/v1/nothing" in (error_message(text) or ""), f"a path with no route: {status} {text[:100]}")
    # Without a token, which routes there are is not told.
    for method, path in (("TRACE", "/v1/regions/station"), ("GET", "/v1/nothing"), ("PATCH", "/v1/fixes")):
        status, head, text = curl(method, base + path)
        check(status == 401 and "allow:" not in head.lower(), f"{method} {path} without a token: {status} {text[:100]}")
    status, _, text = curl("GET", base + "/v1/events?limit=10001", token=tokens["read"])
    check(status == 400 and "10000" in (error_message(text) or ""), f"a page larger than 10,000: {status} {text[:100]}")
    for method, path, body, scope, needle in bad:
        status, _, text = curl(method, base + path, token=tokens[scope], body=body)
        message = error_message(text) or ""
        check(400 <= status < 500 and message and (needle is None or needle in message), f"{method} {path} {body!r:.60}: {status} {text[:160]}")
    # A body of NDJSON is read line by line: a line that is not a fix is an item rejected with
    # its place, the others are used.
    status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body=b"\xff\xfe garbage\n")
    answer = json.loads(text) if status == 200 else {}
    check(answer.get("rejected") == 1 and "line 1, column 1" in answer["results"][0].get("reason", ""), f"a line of garbage: {status} {text[:160]}")
    status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body='{"device":"a","time":1,"lat":95,"lon":0}')
    answer = json.loads(text) if status == 200 else {}
    check(answer.get("rejected") == 1 and answer["results"][0].get("field") == "lat", f"a fix at latitude 95: {status} {text[:160]}")

    # 5. A client over --client-rate: 429 with Retry-After and nothing used; another client
    # (another token) is not held back.
    burst = "\n".join(json.dumps({"device": "burst", "time": 1_600_000_000 + k, "lat": 35.0, "lon": 139.0}) for k in range(400))
    status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body=burst)
    check(status == 200, f"a batch of 400 fixes at a rate of 200: {status} {text[:100]}")
    status, head, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body=fix.replace("walker", "burst2"))
    retry = re.search(r"^retry-after: (\d+)", head, re.I | re.M)
    check(status == 429 and retry and int(retry.group(1)) >= 1 and "--client-rate" in (error_message(text) or ""),
          f"the next batch at once: {status} {head.splitlines()[-3:]} {text[:120]}")
    status, _, text = curl("GET", base + "/v1/devices/burst2", token=tokens["read"])
    check(status == 404, f"nothing of a refused batch was used: {status}")
    status, _, text = curl("POST", base + "/v1/fixes", token="second-ingest-token-0123", body=fix.replace("walker", "other"))
    check(status == 200, f"another client meanwhile: {status} {text[:100]}")
    time.sleep(int(retry.group(1)) if retry else 1)

    # 6. The fence set changed while a device reports: put around it (its state at its last fix),
    # it walks out (an exit), the region deleted; the set's version kept across a restart.
    def post(fixes):
        status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body="\n".join(json.dumps(f) for f in fixes))
        check(status == 200, f"posting fixes: {status} {text[:100]}")
    t0 = 1_700_000_000
    post([{"device": "walker", "time": t0 + 10 * k, "lat": 35.6812, "lon": 139.7671, "accuracy": 5} for k in range(1, 10)])
    status, _, text = curl("PUT", base + "/v1/regions/station", token=tokens["admin"], body=feature)
    put = json.loads(text) if status in (200, 201) else {}
    # (Its state event waits, as any event, for the reorder window past it.)
    check(status == 201 and put.get("created"), f"PUT a region around the device: {status} {text[:160]}")
    status, _, text = curl("PUT", base + "/v1/regions/station", token=tokens["admin"], body=feature)
    check(status == 200 and json.loads(text).get("replaced"), f"PUT it again: {status} {text[:160]}")
    post([{"device": "walker", "time": t0 + 100 + 10 * k, "lat": 35.6812 + 0.0005 * k, "lon": 139.7671, "accuracy": 5} for k in range(1, 20)])
    status, _, text = curl("GET", base + "/v1/events?after=0&limit=100&device=walker", token=tokens["read"])
    events = [(e["event"], e["region"]) for e in json.loads(text)["events"]] if status == 200 else []
    check(("state", "station") in events and ("exit", "station") in events, f"the device's events: {events}")
    # Resuming names the last event had: Last-Event-ID wins over ?after=, on a long poll as on a
    # stream, and one that is not an event's id is a 400.
    if len(events) >= 2:
        first = json.loads(text)["events"][0]["seq"]
        status, _, text = curl("GET", base + "/v1/events?after=0&limit=100&device=walker", token=tokens["read"], headers=[f"Last-Event-ID: {first}"])
        resumed = [e["seq"] for e in json.loads(text)["events"]] if status == 200 else []
        check(resumed and resumed[0] > first, f"a long poll with Last-Event-ID {first}: {status} {resumed[:3]}")
    status, _, text = curl("GET", base + "/v1/events?limit=1", token=tokens["read"], headers=["Last-Event-ID: 9223372036854775808"])
    check(status == 400 and "Last-Event-ID" in (error_message(text) or ""), f"a Last-Event-ID past int64: {status} {text[:100]}")
    # The antimeridian: 180° is taken as −180°, the place the track readers make of it.
    status, _, text = curl("POST", base + "/v1/fixes", token="second-ingest-token-0123", body='{"device":"dateline","time":1700000000,"lat":-16.5,"lon":180}')
    check(status == 200 and json.loads(text).get("accepted") == 1, f"a fix at longitude 180: {status} {text[:120]}")
    status, _, text = curl("GET", base + "/v1/devices/dateline", token=tokens["read"])
    check(status == 200 and '"lon":-180' in text.replace(" ", ""), f"its last fix: {status} {text[:200]}")
    status, _, text = curl("GET", base + "/v1/regions", token=tokens["read"])
    version = json.loads(text).get("version") if status == 200 else None
    check(isinstance(version, int) and version > 0, f"GET /v1/regions version: {text[:100]}")
    status, _, text = curl("DELETE", base + "/v1/regions/station", token=tokens["admin"])
    check(status == 200 and json.loads(text).get("removed"), f"DELETE the region: {status} {text[:100]}")
    status, _, _ = curl("DELETE", base + "/v1/regions/station", token=tokens["admin"])
    check(status == 404, f"DELETE it again: {status}")
    status, _, text = curl("PUT", base + "/v1/regions/station", token=tokens["admin"], body=feature)
    check(status == 201, f"PUT it back: {status}")
    status, _, text = curl("GET", base + "/v1/regions", token=tokens["read"])
    version = json.loads(text)["version"]
    status, _, text = curl("GET", base + "/metrics", token=tokens["read"])
    check("geowake_fence_changes_total" in text and "geowake_requests_rejected_total{reason=\"unauthorized\"}" in text,
          f"metrics count the fence changes and the refused requests: {text[-600:]}")
    p.terminate(); p.wait(timeout=30)
    p, base, banner = start("--tokens", tokens_file)
    status, _, text = curl("GET", base + "/v1/regions", token=tokens["read"])
    kept = json.loads(text) if status == 200 else {}
    check(kept.get("version") == version and any(f["id"] == "station" for f in kept.get("features", [])),
          f"after a restart the set is version {kept.get('version')} (was {version})")
    check(f"version {version}" in banner, f"the banner names the version: {banner.strip()}")

    # 7. A reader that reads nothing holds the server to a page of events, not to the stream: a
    # device steps in and out of the station 20,000 times (some 6 MB of events), then four readers
    # ask for the stream from the start and read nothing. Were the stream held per reader, the
    # server would grow by four streams (27 MB); it may grow by a page and a connection each,
    # and by what any new connection costs a process (a reader's cache, an allocator arena):
    # together under one stream.
    walker = [{"device": "pacer", "time": 1_750_000_000 + 10 * k, "lat": 35.6812 + (0.006 if k % 2 else 0), "lon": 139.7671, "accuracy": 5}
              for k in range(20_000)]
    for k in range(0, len(walker), 2_000):
        status, _, text = curl("POST", base + "/v1/fixes", token=tokens["ingest"], body="\n".join(json.dumps(f) for f in walker[k:k + 2_000]))
        check(status == 200, f"posting the pacer's fixes: {status} {text[:100]}")
    # Read once to the end first: the store's read cache is then as full as it gets.
    after = 0
    while True:
        status, _, text = curl("GET", base + f"/v1/events?after={after}&limit=10000", token=tokens["read"])
        page = json.loads(text) if status == 200 else {"events": []}
        if not page["events"]: break
        after = page["next"]
    before = rss(p.pid)
    import socket
    readers = []
    for _ in range(4):
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", int(base.rsplit(":", 1)[1])))
        stalled.sendall(f"GET /v1/events?after=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tokens['read']}\r\n\r\n".encode())
        readers.append(stalled)
    time.sleep(3)
    grown = rss(p.pid) - before
    stored = sqlite3.connect(os.path.join(data, "geowake.sqlite")).execute("SELECT sum(length(body)), count(*) FROM events").fetchone()
    check(stored[1] > 15_000, f"the pacer's events: {stored[1]}")
    check(grown < stored[0], f"four stalled readers of {stored[0] / 1e6:.1f} MB of events each grew the server by {grown / 1e6:.1f} MB")
    for stalled in readers:
        stalled.close()

    # 8. SIGTERM: a stream and a long poll open, fixes just posted; the server ends the stream,
    # answers the poll, checkpoints every device through the last row logged and exits 0.
    auth = ["-H", f"Authorization: Bearer {tokens['read']}"]
    stream = subprocess.Popen(["curl", "-sN", "--max-time", "60", *auth, base + "/v1/events"], stdout=subprocess.DEVNULL)
    poll = subprocess.Popen(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", *auth,
                             base + "/v1/events?after=999999&limit=10&wait=50"], stdout=subprocess.PIPE, text=True)
    post([{"device": "last", "time": t0 + 10 * k, "lat": 35.6812, "lon": 139.7671, "accuracy": 5} for k in range(1, 30)])
    time.sleep(0.3)
    started = time.time()
    p.send_signal(signal.SIGTERM)
    try: code = p.wait(timeout=20)
    except subprocess.TimeoutExpired: code = None
    check(code == 0, f"SIGTERM with a stream and a long poll open: exit {code} after {time.time() - started:.1f} s")
    check(time.time() - started < 10, f"SIGTERM took {time.time() - started:.1f} s")
    try: polled = poll.communicate(timeout=10)[0]
    except subprocess.TimeoutExpired: polled = "hung"
    check(polled == "200", f"the long poll open at SIGTERM: {polled}")
    try: stream.wait(timeout=10)
    except subprocess.TimeoutExpired: check(False, "the stream open at SIGTERM did not end")
    store = sqlite3.connect(os.path.join(data, "geowake.sqlite"))
    through = int(store.execute("SELECT value FROM meta WHERE key = 'checkpointed'").fetchone()[0])
    last = store.execute("SELECT max(id) FROM log").fetchone()[0]
    store.close()
    check(through == last, f"after SIGTERM the checkpoint is through row {through}, the log ends at {last}")
    if "stopped; the device states are checkpointed" not in open(os.path.join(work, "serve.log")).read():
        check(False, "the server did not say it stopped")
finally:
    subprocess.run(["pkill", "-f", data], capture_output=True)
    shutil.rmtree(work, ignore_errors=True)

print(f"{checks} checks of the HTTP API with curl: {len(failures)} failed")
sys.exit(1 if failures else 0)
