#!/bin/sh
# geowake serve over NATS JetStream against a real nats-server (scripts/serve-nats-check.py), in a
# virtual environment (.build/nats-venv) made here with nats-py from PyPI when missing. Needs
# Debian's nats-server (scripts/install-deps.sh installs it).
# usage: scripts/serve-nats-check.sh GEOWAKE REGIONS [serve-nats-check.py options]
set -eu
cd "$(dirname "$0")/.."
venv=.build/nats-venv
. scripts/python-venv.sh
python_venv "$venv" "$venv/bin/python -c 'import nats'" "nats-py==2.9.0"
command -v nats-server >/dev/null 2>&1 || { echo "serve-nats-check: nats-server is not installed (scripts/install-deps.sh installs it)" >&2; exit 69; }
exec "$venv/bin/python" scripts/serve-nats-check.py "$@"
