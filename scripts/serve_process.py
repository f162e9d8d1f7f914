"""Starts `geowake serve` for the scripts that check it: on a free loopback port, its standard
error appended to WORK/serve.log, waiting (30 s at most) for the banner that names the port."""
import os, subprocess, time


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
