"""geowake serve --apns against real HTTP/2 clients: every answer as `geowake push` gives it.

1. Generated provider schedules (one per seed: silent and alert pushes, bursts, collapse ids,
   expirations, bad priorities, bad tokens, bad ids, payloads empty, broken or too large, methods
   and paths APNs refuses), each sent to the endpoint over HTTP/2 and TLS by curl and by httpx in
   turn, on a simulated clock moved to each request's time. Every answer (status, apns-id, reason)
   and then every step the device's stream shows must equal `geowake push --format jsonl` on the
   same schedule, byte for byte; one seed's server is killed (kill -9) halfway and restarted.
2. A burst of 10 silent pushes in 2 minutes to a device on ios (named in --apns-devices): the
   wakes and refusals equal geowake push's.
3. aioapns, a real APNs client library, with its own JWT signing (ES256) against a provider key
   given with --apns-key, on real time: accepted with an apns-id; a token signed by a key the
   endpoint was not given is 403 InvalidProviderToken, none at all 403 MissingProviderToken.
4. Garbage: bytes that are not TLS, a TLS connection that sends no HTTP/2 preface, a cleartext
   endpoint sent a broken HTTP/2 preface: no crash, and the endpoint answers the next request.

usage: serve-apns-check.py GEOWAKE REGIONS [--seeds N]
"""
import argparse, asyncio, json, os, random, shutil, socket, ssl, subprocess, sys, tempfile, time, uuid
import logging
import httpx
import serve_process

# aioapns logs every refusal it gets as an error; the check says what it expected.
logging.getLogger("aioapns").setLevel(logging.CRITICAL)

T0 = 1_714_521_600  # 2024-05-01T00:00:00Z


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + (f".{int(round((t % 1) * 1000)):03d}Z" if t % 1 else "Z")


def schedule(seed, start):
    """A provider's requests to one device: (time, method, token in the path or None for another
    path, headers, body bytes)."""
    rng = random.Random(seed)
    token = "".join(rng.choice("0123456789abcdef") for _ in range(64))
    topic = f"com.example.app{seed}"
    t = start
    out = []
    for i in range(rng.randint(14, 30)):
        t += rng.choice([rng.uniform(0, 20), rng.uniform(20, 300), rng.uniform(300, 1800)])
        t = round(t, 3)
        kind = rng.choices(
            ["silent", "alert", "alert5", "collapse", "expire0", "badpriority", "badtoken", "badid", "empty", "broken",
             "large", "get", "badpath", "notype"],
            [30, 14, 5, 6, 4, 3, 3, 2, 2, 2, 2, 1, 1, 3])[0]
        headers = {"apns-topic": topic}
        body = b'{"aps":{"alert":"news %d"}}' % i
        method, path = "POST", token
        if kind == "silent":
            headers.update({"apns-push-type": "background", "apns-priority": "5"})
            body = b'{"aps":{"content-available":1},"n":%d}' % i
        elif kind == "alert":
            headers.update({"apns-push-type": "alert", "apns-priority": "10"})
        elif kind == "alert5":
            headers.update({"apns-push-type": "alert", "apns-priority": "5"})
        elif kind == "collapse":
            headers.update({"apns-push-type": "alert", "apns-collapse-id": f"score-{rng.randint(0, 1)}"})
        elif kind == "expire0":
            headers.update({"apns-push-type": "alert", "apns-expiration": "0"})
        elif kind == "badpriority":
            headers.update({"apns-push-type": "background", "apns-priority": "10"})
            body = b'{"aps":{"content-available":1}}'
        elif kind == "badtoken":
            path = token[:-1] + "x"
        elif kind == "badid":
            headers["apns-id"] = rng.choice(["not-a-uuid", "84DB694F-464F-49BD-960A-D6DB028335C9"])
        elif kind == "empty":
            body = b""
        elif kind == "broken":
            body = b'{"aps":{"alert":'
        elif kind == "large":
            body = b'{"aps":{"alert":"' + b"x" * 4100 + b'"}}'
        elif kind == "get":
            method = "GET"
        elif kind == "badpath":
            path = None
        out.append((t, method, path, headers, body))
    return token, out


def push_schedule_file(path, token, requests):
    """The schedule as geowake push reads it (the POSTs to /3/device/ only: its format has no
    method or path)."""
    with open(path, "w") as f:
        for t, method, suffix, headers, body in requests:
            if not offline_request(method, suffix, token): continue
            f.write(json.dumps({"at": iso(t), "token": suffix, "headers": headers, "payloadText": body.decode()}) + "\n")


def offline_request(method, suffix, token):
    """Whether geowake push's schedule of the device can say it: a POST to the device's token
    (a request to another token, or another method or path, reaches no device)."""
    return method == "POST" and suffix == token


def offline(geowake, path, platform):
    out = subprocess.run([geowake, "push", "--schedule", path, "--format", "jsonl", "--platform", platform],
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line.startswith('{"event"')]


class Clients:
    """curl and httpx in turn, over HTTP/2 and TLS, trusting the endpoint's certificate."""

    def __init__(self, cert, work):
        self.cert, self.work, self.n = cert, work, 0
        self.httpx = None
        self.port = None

    def connect(self, port):
        if self.httpx: self.httpx.close()
        self.port = port
        self.httpx = httpx.Client(http2=True, verify=ssl.create_default_context(cafile=self.cert), timeout=30)

    def send(self, method, suffix, headers, body):
        self.n += 1
        url = f"https://localhost:{self.port}" + ("/3/device/" + suffix if suffix is not None else "/4/devices")
        if self.n % 2:
            return self.curl(method, url, headers, body)
        r = self.httpx.request(method, url, headers=headers, content=body if method == "POST" else None)
        assert r.http_version == "HTTP/2", r.http_version
        return r.status_code, r.headers.get("apns-id"), r.json().get("reason") if r.content else None

    def curl(self, method, url, headers, body, flags=("--http2",)):
        data = os.path.join(self.work, "body.bin")
        with open(data, "wb") as f: f.write(body)
        command = ["curl", "-sS", *flags, "--cacert", self.cert, "-X", method, "-D", "-", "-o", os.path.join(self.work, "answer.json"), url]
        for name, value in headers.items(): command += ["-H", f"{name}: {value}"]
        if method == "POST": command += ["--data-binary", "@" + data, "-H", "content-type:"]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        lines = out.splitlines()
        assert lines[0].startswith("HTTP/1.1 " if "--http1.1" in flags else "HTTP/2 "), lines[0]
        status = int(lines[0].split()[1])
        apns_id = next((l.split(":", 1)[1].strip() for l in lines if l.lower().startswith("apns-id:")), None)
        answer = open(os.path.join(self.work, "answer.json"), "rb").read()
        return status, apns_id, json.loads(answer)["reason"] if answer else None


def api(base, method, path, body=None):
    r = httpx.request(method, base + path, content=json.dumps(body) if body is not None else None, timeout=30)
    return r.status_code, (r.json() if r.content else None)


class Server:
    def __init__(self, geowake, regions, work, extra):
        self.geowake, self.regions, self.work, self.extra = geowake, regions, work, extra
        self.data = os.path.join(work, "data")
        self.process = None

    def start(self):
        self.process, self.base, _ = serve_process.start(self.geowake, self.regions, self.data, self.work, *self.extra)
        deadline = time.time() + 30
        while time.time() < deadline:
            for line in open(os.path.join(self.work, "serve.log")).read().splitlines()[::-1]:
                if "APNs endpoint on " in line:
                    self.apns_port = int(line.split("APNs endpoint on ")[1].split(" ")[0].rsplit(":", 1)[1])
                    return
            time.sleep(0.02)
        raise SystemExit("no APNs endpoint: " + open(os.path.join(self.work, "serve.log")).read())

    def kill(self):
        self.process.kill()
        self.process.wait()

    def stop(self):
        self.process.terminate()
        assert self.process.wait(timeout=60) == 0, "serve did not stop cleanly"


def stream_lines(server, device):
    """The device's events as the stream's raw lines, with seq and device taken out."""
    r = httpx.get(server.base + f"/v1/events?after=0&limit=10000&wait=0&device={device}", timeout=30)
    raw = r.text
    # The page is {"events":[LINE,LINE,...],"next":N}: each LINE is the stored line with seq first.
    body = raw[len('{"events":['):raw.rindex('],"next":')]
    out, depth, start, quoted, escaped = [], 0, 0, False, False
    for i, c in enumerate(body):
        if quoted:
            if escaped: escaped = False
            elif c == "\\": escaped = True
            elif c == '"': quoted = False
            continue
        if c == '"': quoted = True
        elif c == "{":
            if depth == 0: start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0: out.append(body[start:i + 1])
    prefix_device = f'"device":{json.dumps(device)},'
    lines = []
    for line in out:
        assert line.startswith('{"seq":'), line[:40]
        rest = line[line.index(",") + 1:]
        assert rest.startswith(prefix_device), rest[:80]
        lines.append("{" + rest[len(prefix_device):])
    return lines


def check_schedule(args, server, clients, seed, start, platform="server", device=None, requests=None, token=None, kill_at=None):
    if requests is None: token, requests = schedule(seed, start)
    device = device or token
    path = os.path.join(server.work, f"schedule-{seed}.jsonl")
    push_schedule_file(path, token, requests)
    expected = offline(args.geowake, path, platform)
    answers = [json.loads(l) for l in expected if json.loads(l)["event"] in ("pushAccepted", "pushRejected")]
    got = []
    for i, (t, method, suffix, headers, body) in enumerate(requests):
        if kill_at is not None and i == kill_at:
            server.kill()
            server.start()
            clients.connect(server.apns_port)
        status, clock = api(server.base, "POST", "/v1/clock", {"time": t})
        assert status in (200, 409), clock
        answer = clients.send(method, suffix, headers, body)
        if offline_request(method, suffix, token): got.append(answer)
        else:
            want = (405, "MethodNotAllowed") if method != "POST" else (404, "BadPath") if suffix is None else (400, "BadDeviceToken")
            assert (answer[0], answer[2]) == want and answer[1], (answer, want)
    for (status, apns_id, reason), a in zip(got, answers):
        assert (status, apns_id, reason) == (a["status"], a["apnsId"], a["apnsReason"]), (status, apns_id, reason, a)
    assert len(got) == len(answers), (len(got), len(answers))
    end = max(t for t, *_ in requests) + 3600
    assert api(server.base, "POST", "/v1/clock", {"time": end})[0] == 200
    status, ended = api(server.base, "DELETE", f"/v1/devices/{device}")
    assert status == 200 and ended["ended"], ended
    lines = stream_lines(server, device)
    if lines != expected:
        for i, (a, b) in enumerate(zip(lines, expected)):
            if a != b:
                print(f"seed {seed}: step {i} differs:\n  served:  {a}\n  offline: {b}", file=sys.stderr)
                break
        raise SystemExit(f"seed {seed}: {len(lines)} steps served, {len(expected)} offline")
    return expected, end


def burst(rng, start):
    token = "".join(rng.choice("0123456789abcdef") for _ in range(64))
    times = sorted(round(start + rng.uniform(0, 120), 3) for _ in range(10))
    return token, [(t, "POST", token, {"apns-topic": "com.example.burst", "apns-push-type": "background", "apns-priority": "5"},
                    b'{"aps":{"content-available":1},"i":%d}' % i) for i, t in enumerate(times)]


async def aioapns_check(key_path, other_key_path, port, cert, topic, token):
    from aioapns import APNs, NotificationRequest, PushType
    import aioapns.connection as connection
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
    connection.APNsDevelopmentClientProtocol.APNS_PORT = port
    context = ssl.create_default_context(cafile=cert)
    results = []
    for path, key_id in ((key_path, "KEY1234567"), (other_key_path, "OTHER12345")):
        client = APNs(key=open(path).read(), key_id=key_id, team_id="TEAM123456", topic=topic, use_sandbox=True,
                      ssl_context=context, max_connection_attempts=1)
        for message in ({"aps": {"alert": "hello"}}, {"aps": {"content-available": 1}}):
            push_type = "background" if "content-available" in message["aps"] else "alert"
            request = NotificationRequest(device_token=token, message=message,
                                          push_type=PushType.BACKGROUND if push_type == "background" else PushType.ALERT,
                                          priority=5 if push_type == "background" else 10)
            result = await client.send_notification(request)
            results.append((key_id, push_type, result.status, result.description, result.notification_id))
        client.pool.close()
    return results


def p256_key(path):
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives import serialization
    key = ec.generate_private_key(ec.SECP256R1())
    with open(path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def garbage(host, port, tls_cert=None):
    """Bytes that are not what the endpoint speaks; the connection may be closed, the server lives."""
    payloads = [b"\x16\x03\x01\x00\x05hello", b"GET / HTTP/1.1\r\n\r\n", os.urandom(2048), b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + os.urandom(64)]
    for payload in payloads:
        with socket.create_connection((host, port), timeout=5) as s:
            if tls_cert and payload is payloads[-1]:
                s = ssl.create_default_context(cafile=tls_cert).wrap_socket(s, server_hostname="localhost")
            try:
                s.sendall(payload)
                s.settimeout(5)
                s.recv(4096)
            except (ConnectionError, socket.timeout, ssl.SSLError):
                pass


def frame(kind, flags, stream, payload, length=None):
    n = len(payload) if length is None else length
    return n.to_bytes(3, "big") + bytes([kind, flags]) + (stream & 0x7FFFFFFF).to_bytes(4, "big") + payload


def h2_connection(port, cert):
    """A TLS connection that negotiated h2, its preface and SETTINGS sent."""
    context = ssl.create_default_context(cafile=cert)
    context.set_alpn_protocols(["h2"])
    s = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="localhost")
    assert s.selected_alpn_protocol() == "h2"
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b""))
    return s


def drain(s, seconds=1.0):
    """What the server sends until it closes or is quiet for `seconds`."""
    s.settimeout(seconds)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            out += chunk
    except (socket.timeout, ssl.SSLError, ConnectionError, OSError):
        pass
    return out


def statuses(data):
    """The :status of every response HEADERS frame in `data` (HPACK-decoded)."""
    import hpack
    decoder, out, i = hpack.Decoder(), [], 0
    while i + 9 <= len(data):
        n = int.from_bytes(data[i:i + 3], "big")
        kind, flags = data[i + 3], data[i + 4]
        payload = data[i + 9:i + 9 + n]
        i += 9 + n
        if kind == 1:
            if flags & 0x8: payload = payload[1:len(payload) - payload[0]]
            if flags & 0x20: payload = payload[5:]
            try:
                out += [int(v) for k, v in decoder.decode(payload) if k == ":status"]
            except Exception:
                break
    return out


async def multiplexed(port, cert, rng, n):
    """`n` requests at once on one HTTP/2 connection (the endpoint takes 1,500 at a time), each with
    an apns-id of its own, one in five with a bad priority, one in seven to a device token that
    is not one: every answer must be its own request's. Then a body past what the endpoint reads,
    and a request after it on the same connection."""
    context = ssl.create_default_context(cafile=cert)
    limits = httpx.Limits(max_connections=1)
    async with httpx.AsyncClient(http2=True, verify=context, timeout=30, limits=limits) as client:
        base = f"https://localhost:{port}/3/device/"
        tokens = ["".join(rng.choice("0123456789abcdef") for _ in range(64)) for _ in range(5)]

        async def one(k):
            ident = str(uuid.UUID(int=rng.getrandbits(128)))
            headers = {"apns-topic": "com.example.many", "apns-id": ident, "apns-priority": "7" if k % 5 == 0 else "10"}
            token = "nothex" if k % 7 == 0 else tokens[k % len(tokens)]
            r = await client.post(base + token, headers=headers, content=b'{"aps":{"alert":"many"}}')
            want = (400, "BadDeviceToken") if k % 7 == 0 else (400, "BadPriority") if k % 5 == 0 else (200, None)
            got = (r.status_code, r.json()["reason"] if r.content else None)
            assert r.http_version == "HTTP/2" and got == want and r.headers["apns-id"] == ident, (k, got, want, dict(r.headers))

        # One connection at most (httpx's limit): all of them are its streams.
        await asyncio.gather(*(one(k) for k in range(n)))
        r = await client.post(base + tokens[0], headers={"apns-topic": "com.example.many"}, content=b"x" * 200_000)
        assert (r.status_code, r.json()["reason"]) == (413, "PayloadTooLarge") and r.headers["apns-id"], r
        r = await client.post(base + tokens[0], headers={"apns-topic": "com.example.many"}, content=b'{"aps":{"alert":"after"}}')
        assert r.status_code == 200 and r.headers["apns-id"], r
    return n


def h2_fuzz(port, cert, token, seed, rounds):
    """Malformed HTTP/2 on TLS connections: frames of every type with random flags, streams,
    lengths and payloads; requests whose headers HTTP/2 forbids (no :path, upper-case names,
    connection headers); a stream reset as soon as it is opened, a thousand times. No answer may
    be a 5xx, and after each connection the endpoint must answer a good request."""
    import hpack
    rng = random.Random(seed)
    encoder = hpack.Encoder()
    bad_headers = [
        [(":method", "POST"), (":scheme", "https"), (":authority", "localhost")],
        [(":method", "POST"), (":path", "/3/device/" + token), (":scheme", "https"), ("APNS-TOPIC", "x")],
        [(":method", "POST"), (":path", "/3/device/" + token), (":scheme", "https"), ("connection", "close")],
        [(":path", "/3/device/" + token), (":scheme", "https"), (":authority", "localhost")],
        [(":method", "POST"), (":path", ""), (":scheme", "https")],
        [(":method", "POST"), (":path", "/3/device/" + token), (":scheme", "https"), (":method", "GET")],
    ]
    # The frames as this check writes them, well formed: the endpoint answers 200.
    s = h2_connection(port, cert)
    good = hpack.Encoder().encode([(":method", "POST"), (":path", "/3/device/" + token), (":scheme", "https"),
                                   (":authority", "localhost"), ("apns-topic", "com.example.fuzz")])
    s.sendall(frame(1, 0x4, 1, good) + frame(0, 0x1, 1, b'{"aps":{"alert":"x"}}'))
    assert statuses(drain(s)) == [200]
    s.close()
    answered = 0
    for round_ in range(rounds):
        s = h2_connection(port, cert)
        try:
            if round_ % 4 == 0:
                headers = rng.choice(bad_headers)
                block = hpack.Encoder().encode(headers)
                s.sendall(frame(1, 0x4, 1, block) + frame(0, 0x1, 1, b'{"aps":{"alert":"x"}}'))
            elif round_ % 4 == 1:
                # A request opened and reset at once, many times over (the "rapid reset" pattern).
                out = b""
                for k in range(1, 2000, 2):
                    out += frame(1, 0x4, k, hpack.Encoder().encode([(":method", "POST"), (":path", "/3/device/" + token),
                                                                    (":scheme", "https"), (":authority", "localhost")]))
                    out += frame(3, 0, k, (8).to_bytes(4, "big"))
                s.sendall(out)
            else:
                out = b""
                for _ in range(rng.randint(1, 20)):
                    kind = rng.choice(list(range(10)) + [0x42])
                    payload = os.urandom(rng.choice([0, 1, 4, 5, 8, 9, 16, 64, 300]))
                    length = None if rng.random() < 0.8 else rng.choice([0, 2 ** 14 + 1, 2 ** 24 - 1])
                    out += frame(kind, rng.randrange(256), rng.choice([0, 1, 2, 3, 2 ** 31 - 1]), payload, length)
                s.sendall(out)
            got = statuses(drain(s))
            assert all(status < 500 for status in got), got
            answered += len(got)
        except (ConnectionError, ssl.SSLError, BrokenPipeError, OSError):
            pass
        finally:
            s.close()
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=cert), timeout=30) as c:
        r = c.post(f"https://localhost:{port}/3/device/{token}", headers={"apns-topic": "com.example.fuzz"}, content=b'{"aps":{"alert":"x"}}')
        assert r.status_code == 200 and r.headers["apns-id"], r
        for k in range(40):
            body = os.urandom(rng.randint(1, 600)) if k % 2 else bytes(rng.choice(b'{}[]":,0123456789aeflnrstu\\ ') for _ in range(rng.randint(1, 200)))
            r = c.post(f"https://localhost:{port}/3/device/{token}", headers={"apns-topic": "com.example.fuzz"}, content=body)
            assert 400 <= r.status_code < 500 and r.json()["reason"] and r.headers["apns-id"], (body, r.status_code, r.text)
    return answered


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("geowake")
    parser.add_argument("regions")
    parser.add_argument("--seeds", type=int, default=6)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="geowake-apns-")
    server = None
    try:
        rng = random.Random(4242)
        burst_token, burst_requests = burst(rng, T0 + 200 * 86_400)
        devices = os.path.join(work, "devices.csv")
        with open(devices, "w") as f: f.write(f"token,device,platform\n{burst_token},burst-phone,ios\n")
        server = Server(args.geowake, args.regions, work, ["--apns", "127.0.0.1:0", "--clock", iso(T0), "--apns-devices", devices])
        server.start()
        cert = os.path.join(server.data, "apns-tls-cert.pem")
        clients = Clients(cert, work)
        clients.connect(server.apns_port)
        steps = 0
        for seed in range(1, args.seeds + 1):
            expected, _ = check_schedule(args, server, clients, seed, T0 + seed * 10 * 86_400,
                                         kill_at=8 if seed == 2 else None)
            steps += len(expected)
        print(f"serve-apns-check: {args.seeds} generated schedules sent by curl and httpx over HTTP/2 and TLS: every answer "
              f"and all {steps} steps equal geowake push's (one server killed with kill -9 halfway and restarted)")
        expected, _ = check_schedule(args, server, clients, "burst", 0, platform="ios", device="burst-phone",
                                     requests=burst_requests, token=burst_token)
        events = [json.loads(l) for l in expected]
        wakes = sum(1 for e in events if e["event"] == "wake")
        held = [e["event"] for e in events if e["event"] in ("pushDelayed", "pushDropped", "pushHeld", "pushPiggybacked")]
        print(f"serve-apns-check: 10 silent pushes in 2 minutes on ios: {wakes} wakes, {len(held)} not delivered at once "
              f"({', '.join(sorted(set(held))) or 'none'}), as geowake push gives them")
        # HTTP/1.1 over TLS (ALPN http/1.1), to a device of its own.
        other = "".join(rng.choice("0123456789abcdef") for _ in range(64))
        answer = clients.curl("POST", f"https://localhost:{server.apns_port}/3/device/{other}", {"apns-topic": "com.example.h1"},
                              b'{"aps":{"alert":"over HTTP/1.1"}}', flags=("--http1.1",))
        assert answer[0] == 200 and answer[1], answer
        garbage("127.0.0.1", server.apns_port, tls_cert=cert)
        fuzz_token = "".join(rng.choice("0123456789abcdef") for _ in range(64))
        answered = h2_fuzz(server.apns_port, cert, fuzz_token, 77, 24)
        assert server.process.poll() is None, "serve ended under malformed HTTP/2"
        print(f"serve-apns-check: 24 connections of malformed HTTP/2 (random frames, forbidden headers, 1,000 streams reset "
              f"as opened) and 40 garbage bodies: {answered} answers to the malformed ones, none a 5xx; every garbage body "
              "a 4xx with a reason and an apns-id; the endpoint answers after them")
        metrics = httpx.get(server.base + "/metrics").text
        assert 'geowake_apns_requests_total{status="200",reason="Success"}' in metrics, metrics
        status, _, reason = clients.send("GET", "0" * 64, {}, b"")
        assert (status, reason) == (405, "MethodNotAllowed"), (status, reason)
        taken = asyncio.run(multiplexed(server.apns_port, cert, rng, 300))
        print(f"serve-apns-check: {taken} requests in flight together on one HTTP/2 connection: each answered with its own "
              "apns-id and the reason its headers call for; a body past 64 KB answered 413 PayloadTooLarge at once, the "
              "connection still answering")
        started = time.time()
        server.stop()
        stopped = time.time() - started
        assert stopped < 8, f"serve took {stopped:.1f} s to stop with an HTTP/2 connection open"
        print("serve-apns-check: garbage, a TLS connection without HTTP/2 and a broken preface: the endpoint answers after them")

        # Cleartext: HTTP/2 with prior knowledge and HTTP/1.1 on one port.
        shutil.rmtree(server.data)
        server = Server(args.geowake, args.regions, work, ["--apns", "127.0.0.1:0", "--apns-transport", "cleartext"])
        server.start()
        url = f"http://127.0.0.1:{server.apns_port}/3/device/{other}"
        for flags, line in ((("--http2-prior-knowledge",), "HTTP/2 "), (("--http1.1",), "HTTP/1.1 ")):
            out = subprocess.run(["curl", "-sS", *flags, "-D", "-", "-o", "/dev/null", url, "-H", "apns-topic: com.example.h1",
                                  "--data-binary", '{"aps":{"alert":"cleartext"}}'], capture_output=True, text=True, check=True).stdout
            assert out.startswith(line + "200") and "apns-id:" in out.lower(), out
        with httpx.Client(http1=False, http2=True) as h2c:
            r = h2c.post(url, headers={"apns-topic": "com.example.h1", "apns-priority": "7"}, content=b'{"aps":{"alert":"x"}}')
            assert (r.http_version, r.status_code, r.json()["reason"]) == ("HTTP/2", 400, "BadPriority") and r.headers["apns-id"], r
        garbage("127.0.0.1", server.apns_port)
        assert subprocess.run(["curl", "-sS", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", url, "-X", "GET"],
                              capture_output=True, text=True).stdout == "405"
        server.stop()
        print("serve-apns-check: HTTP/1.1 over TLS, and in cleartext HTTP/2 with prior knowledge (curl, httpx) and HTTP/1.1 on one port, "
              "each answered as APNs answers")

        # Real time, provider tokens, a real client library.
        shutil.rmtree(server.data)
        key, other = os.path.join(work, "AuthKey_KEY1234567.p8"), os.path.join(work, "AuthKey_OTHER12345.p8")
        p256_key(key)
        p256_key(other)
        server = Server(args.geowake, args.regions, work, ["--apns", "127.0.0.1:0", "--apns-key", f"TEAM123456:KEY1234567:{key}"])
        server.start()
        token = "".join(rng.choice("0123456789abcdef") for _ in range(64))
        results = asyncio.run(aioapns_check(key, other, server.apns_port, cert, "com.example.aioapns", token))
        for key_id, push_type, status, description, _ in results:
            want = ("200", None) if key_id == "KEY1234567" else ("403", "InvalidProviderToken")
            assert (str(status), description) == want, (key_id, push_type, status, description)
        clients.connect(server.apns_port)
        status, apns_id, reason = clients.send("POST", token, {"apns-topic": "com.example.aioapns"}, b'{"aps":{"alert":"x"}}')
        assert (status, reason) == (403, "MissingProviderToken") and apns_id, (status, reason)
        deadline = time.time() + 10
        while True:
            status, report = api(server.base, "GET", f"/v1/devices/{token}")
            if status == 200 and report["pushes"]["outcomes"].get("delivered") == 2: break
            assert time.time() < deadline, report
            time.sleep(0.2)
        server.stop()
        print("serve-apns-check: aioapns with its own ES256 provider tokens: accepted with an apns-id under the key given, "
              "403 InvalidProviderToken under another, 403 MissingProviderToken without; the device shows both deliveries")
    finally:
        if server and server.process and server.process.poll() is None: server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
