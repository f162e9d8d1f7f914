#!/bin/sh
# geowake serve --apns against real HTTP/2 clients (scripts/serve-apns-check.py): curl over
# HTTP/2 and TLS, httpx and aioapns from PyPI in a virtual environment (.build/apns-venv) made
# here when missing.
# usage: scripts/serve-apns-check.sh GEOWAKE REGIONS [serve-apns-check.py options]
set -eu
cd "$(dirname "$0")/.."
venv=.build/apns-venv
. scripts/python-venv.sh
python_venv "$venv" "$venv/bin/python -c 'import httpx, h2, aioapns, cryptography'" "httpx[http2]==0.28.1" "aioapns==4.0"
curl -V | grep -q HTTP2 || { echo "serve-apns-check: this curl has no HTTP/2 (Debian's curl has it)" >&2; exit 69; }
exec "$venv/bin/python" scripts/serve-apns-check.py "$@"
